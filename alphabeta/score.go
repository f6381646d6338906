package alphabeta

import (
	"fmt"

	"github.com/tabula-zero/tabula/game"
)

const (
	// Infinity bounds every score.
	Infinity = 32000
	// Mate is the score of a win at the root; a win n plies away scores
	// Mate - n.
	Mate = 31000
	// MaxPly bounds the search depth in plies, quiescence included.
	MaxPly = 128
	// mateBound: scores beyond it are wins or losses found by search.
	mateBound = Mate - MaxPly
)

// IsMate reports whether score is a proven win or loss.
func IsMate(score int) bool { return score > mateBound || score < -mateBound }

// MateIn returns the number of moves (not plies) to mate: positive when the
// side to move mates, negative when it is mated. Only for IsMate scores.
func MateIn(score int) int {
	if score > 0 {
		return (Mate - score + 1) / 2
	}
	return -(Mate + score + 1) / 2
}

// FormatScore writes score as UCI does: "cp 35" or "mate -3".
func FormatScore(score int) string {
	if IsMate(score) {
		return fmt.Sprintf("mate %d", MateIn(score))
	}
	return fmt.Sprintf("cp %d", score)
}

// resultScore turns a game result at ply into a score.
func resultScore(r game.Result, ply int) int {
	switch r {
	case game.Win:
		return Mate - ply
	case game.Loss:
		return -Mate + ply
	}
	return 0
}

// toTT and fromTT make mate scores relative to the node, so that a TT
// entry stored at one ply is right at another.
func toTT(score, ply int) int {
	switch {
	case score > mateBound:
		return score + ply
	case score < -mateBound:
		return score - ply
	}
	return score
}

func fromTT(score, ply int) int {
	switch {
	case score > mateBound:
		return score - ply
	case score < -mateBound:
		return score + ply
	}
	return score
}
