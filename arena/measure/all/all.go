// Package all links every position-set measure (arena/measure): import it
// for its side effect where the registry is read.
package all

import (
	_ "github.com/tabula-zero/tabula/arena/lionoracle"
	_ "github.com/tabula-zero/tabula/arena/pons"
	_ "github.com/tabula-zero/tabula/arena/xqset"
)
