package mcts

import "github.com/tabula-zero/tabula/game"

// Evaluator scores a position for the search: priors over the given legal
// moves (written into priors, same order, summing to 1) and the value of
// the position for the side to move, in [-1, 1]. Implementations used by
// several games at once must be safe for concurrent use.
type Evaluator interface {
	Evaluate(p game.Position, moves []game.Move, priors []float32) (value float32, err error)
}

// Uniform is an evaluator with uniform priors and a constant value: search
// then relies on terminal positions alone (useful for tests and as a
// network-free baseline).
type Uniform struct{ Value float32 }

// Evaluate implements Evaluator.
func (u Uniform) Evaluate(_ game.Position, moves []game.Move, priors []float32) (float32, error) {
	for i := range moves {
		priors[i] = 1 / float32(len(moves))
	}
	return u.Value, nil
}
