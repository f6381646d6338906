// Package all registers every game. Programs and packages that must know
// all games (configs, the commands) import it for its side effect; it is
// the one list a new game is added to.
package all

import (
	"github.com/tabula-zero/tabula/game/connect4"  // registers connect4
	_ "github.com/tabula-zero/tabula/game/lion"    // registers lion
	_ "github.com/tabula-zero/tabula/game/xiangqi" // registers xiangqi
)

// FirstRun is the game whose preset train and selfplay take when none is
// named: the quickest to learn.
const FirstRun = connect4.Name
