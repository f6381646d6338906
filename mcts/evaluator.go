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

// BatchEvaluator is an Evaluator that also takes several positions in one
// call: a network whose batch is spread over cores. A PUCT search through
// one gathers up to Capacity leaves, each path under a virtual visit
// (counted in the exploration term only) so that the next descent looks
// elsewhere, and evaluates them together
// (Tree.Search). It is used by one goroutine.
type BatchEvaluator interface {
	Evaluator
	// Capacity is the most positions one batch holds.
	Capacity() int
	// Queue adds p, whose legal moves are moves, to the next batch; Flush
	// writes its priors over moves into priors (len(moves) long).
	Queue(p game.Position, moves []game.Move, priors []float32)
	// Flush evaluates the queued positions, writes the i-th one's value
	// for its side to move into values[i] and its priors where Queue was
	// told, and empties the batch.
	Flush(values []float32) error
}

// DrawEvaluator is an Evaluator that also gives each position's draw
// probability: a network with the win/draw/loss value head, whose value
// is W - L. A tree searched through one backs the draw probabilities up
// beside the values and reports its root's win, draw and loss
// (Result.WDL); the search itself reads only the values.
type DrawEvaluator interface {
	Evaluator
	// Draws reports whether the evaluator knows draw probabilities (a
	// network evaluator whose network has the WDL head).
	Draws() bool
	// EvaluateDraw is Evaluate that also returns the draw probability.
	EvaluateDraw(p game.Position, moves []game.Move, priors []float32) (value, draw float32, err error)
}

// BatchDrawEvaluator is a BatchEvaluator that is a DrawEvaluator too.
type BatchDrawEvaluator interface {
	BatchEvaluator
	DrawEvaluator
	// FlushDraws is Flush that also writes the i-th position's draw
	// probability into draws[i].
	FlushDraws(values, draws []float32) error
}

// drawsOf returns e as a DrawEvaluator when it knows draw
// probabilities, else nil.
func drawsOf(e Evaluator) DrawEvaluator {
	if de, ok := e.(DrawEvaluator); ok && de.Draws() {
		return de
	}
	return nil
}
