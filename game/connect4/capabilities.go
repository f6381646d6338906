package connect4

import (
	"time"

	"github.com/tabula-zero/tabula/game"
)

// capabilities are what generic packages ask of Connect Four
// (game.Capability).
type capabilities struct{}

// PlayMaxDepth is the Play page's deepest alpha-beta search.
func (capabilities) PlayMaxDepth() int { return 16 }

// ReferenceRuns: the preset's recorded 30-minute runs.
func (capabilities) ReferenceRuns() map[string]game.ReferenceRun {
	return map[string]game.ReferenceRun{Name: {Budget: 30 * time.Minute, Machine: "2-core AMD EPYC (Zen 4, AVX-512; self-play in fp32 then)", Generations: [2]int{463, 482},
		Source: "docs/notebook/connect4.md, \"The preset with surprise weighting for 30 minutes\""}}
}
