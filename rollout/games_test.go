package rollout

// The games the tests and benchmarks play, registered by their packages.
import (
	_ "github.com/tabula-zero/tabula/game/connect4"
	_ "github.com/tabula-zero/tabula/game/lion"
	_ "github.com/tabula-zero/tabula/game/xiangqi"
)
