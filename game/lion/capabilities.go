package lion

import (
	"time"

	"github.com/tabula-zero/tabula/game"
)

// capabilities are what generic packages ask of Catch the Lion
// (game.Capability).
type capabilities struct{}

// PlayMaxDepth is the Play page's deepest alpha-beta search.
func (capabilities) PlayMaxDepth() int { return 16 }

// ReferenceRuns: the preset's recorded 30-minute runs.
func (capabilities) ReferenceRuns() map[string]game.ReferenceRun {
	return map[string]game.ReferenceRun{Name: {Budget: 30 * time.Minute, Machine: "2-core Intel Xeon (AVX-512)", Generations: [2]int{243, 256},
		Source: "docs/notebook/lion.md, \"With and without the gate for 30 minutes\" (no gate, as the preset now)"}}
}
