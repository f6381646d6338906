package rollout

// The games the tests and benchmarks play, registered by their packages.
import (
	_ "github.com/tabula-zero/tabula/game/all" // registers every game
)
