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
