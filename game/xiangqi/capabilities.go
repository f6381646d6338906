package xiangqi

import (
	"strings"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// capabilities are what generic packages ask of Xiangqi (game.Capability).
type capabilities struct{}

// AlphaBetaFeatures are the pruning features SPRTs accepted for Xiangqi
// (docs/notebook/alphabeta.md).
func (capabilities) AlphaBetaFeatures() []string {
	return []string{"nullmove", "lmr", "aspiration", "rfp", "futility", "lmp", "delta", "see", "qchecks", "singular"}
}

// UCCIOptions: UCCI's moves are ICCS (ranks 0-9: h2e2).
func (capabilities) UCCIOptions() game.Options { return game.Options{OptNotation: "iccs"} }

// XboardVariant is xboard's name of Xiangqi.
func (capabilities) XboardVariant() string { return Name }

// XboardOptions: xboard's Xiangqi coordinates are ICCS.
func (capabilities) XboardOptions() game.Options { return game.Options{OptNotation: "iccs"} }

// XboardFEN reads xboard's FEN, Fairy-Stockfish's letters with xboard's
// H (horse) and E (elephant) for N and B.
func (capabilities) XboardFEN(fen string) string {
	board, rest, _ := strings.Cut(fen, " ")
	return strings.NewReplacer("H", "N", "h", "n", "E", "B", "e", "b").Replace(board) + " " + rest
}

// ReferenceRuns: the preset's recorded two-hour runs.
func (capabilities) ReferenceRuns() map[string]game.ReferenceRun {
	return map[string]game.ReferenceRun{Name: {Budget: 2 * time.Hour, Machine: "2-core AMD EPYC (Zen 4, AVX-512)", Generations: [2]int{624, 642},
		Source: "docs/notebook/xiangqi.md, \"The teacher for the whole two hours\""}}
}

// PlayMaxDepth keeps the Play page's alpha-beta within its budget on the
// wider game.
func (capabilities) PlayMaxDepth() int { return 8 }
