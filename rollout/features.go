package rollout

import "github.com/tabula-zero/tabula/game"

// MoveFeaturer is implemented by positions that describe a move by the two
// binary features of playout policy adaptation with move features (PPAF,
// PPAFP; Xiangqi thesis §2.4.4): whether it captures and whether its
// target square is attacked by the opponent.
type MoveFeaturer interface {
	// MoveFeatures returns FeatureCapture and FeatureAttacked bits for m,
	// a legal move of the side to move.
	MoveFeatures(m game.Move) uint8
}

// Move feature bits.
const (
	FeatureCapture  = 1 // the move captures
	FeatureAttacked = 2 // an enemy piece attacks the target square after the move
)

// RandomMover is implemented by positions that can draw a uniformly random
// legal move faster than by generating all of them (Xiangqi:
// game/xiangqi/playout.go, a pseudo-legal draw tested for legality alone,
// rejected and drawn again without it). The uniform playouts (uct, solver,
// mcts-ms, mcts-mb) use it; the policy playouts need every legal move and
// do not.
type RandomMover interface {
	// RandomMove returns a legal move of the side to move, each with
	// probability 1/(number of legal moves), drawing its random numbers
	// from intn (uniform in [0, n)); false when there is none. It must not
	// allocate.
	RandomMove(intn func(n int) int) (game.Move, bool)
}

// PseudoMover is implemented by positions that list a superset of their
// legal moves (the pseudo-legal moves) faster than the legal moves, and
// test one of them for legality (Xiangqi: most moves need no test, the
// rest a make, an attack test and an unmake). MAST's playouts use it: a
// move drawn by its Gibbs weight from the pseudo-legal moves and rejected
// when illegal, then drawn again from the rest, is distributed exactly as
// a draw from the legal moves (playoutPseudo), and a playout step tests
// one or two moves instead of all of them. The PPA kinds need every legal
// move's code for adapt and do not use it.
type PseudoMover interface {
	// PseudoMoves appends the pseudo-legal moves of the side to move to
	// dst[:0]: every legal move once, and possibly illegal ones.
	PseudoMoves(dst []game.Move) []game.Move
	// LegalPseudo reports whether m, one of PseudoMoves's moves in this
	// position, is legal.
	LegalPseudo(m game.Move) bool
}

// ruleStatuser is implemented by positions that can apply the rules that do
// not depend on the legal moves without generating them (alphabeta's
// RuleStatus): Xiangqi's Status generates every legal move again.
type ruleStatuser interface {
	RuleStatus() game.Status
}

// codeSpace bounds the move codes used as table indices: moves whose
// value is below it are their own code (Connect Four 1-7, Catch the Lion
// below 2^10, Xiangqi from|to<<7 below 2^14), larger ones are folded by a
// multiplicative hash.
const codeSpace = 1 << 20

// moveCode returns the policy-table code of m without features.
func moveCode(m game.Move) int32 {
	if m < codeSpace {
		return int32(m)
	}
	return int32((uint64(m) * 0x9e3779b97f4a7c15) >> 44)
}
