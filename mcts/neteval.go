package mcts

import (
	"math"

	"github.com/tabula-zero/tabula/game"
)

// NetEvaluator is an Evaluator running a network on one position at a
// time (batch 1) for a single goroutine: no batching loop, no locks. A
// player in a match or an engine uses it; self-play's many games share a
// Batcher instead.
type NetEvaluator struct {
	fwd    Forwarder
	enc    game.Encoder
	planes []float32
	policy []float32
	value  [1]float32
}

// NewNetEvaluator evaluates with fwd (owned by the evaluator from now on:
// give each goroutine its own network) and the game's encoder.
func NewNetEvaluator(fwd Forwarder, enc game.Encoder) *NetEvaluator {
	c, h, w := enc.Shape()
	return &NetEvaluator{fwd: fwd, enc: enc, planes: make([]float32, c*h*w), policy: make([]float32, enc.ActionSize())}
}

// Evaluate implements Evaluator.
func (e *NetEvaluator) Evaluate(p game.Position, moves []game.Move, priors []float32) (float32, error) {
	e.enc.Encode(p, e.planes)
	if err := e.fwd.Forward(e.planes, 1, e.policy, e.value[:]); err != nil {
		return 0, err
	}
	priors = priors[:len(moves)]
	for i, m := range moves {
		priors[i] = e.policy[e.enc.ActionIndex(p, m)]
	}
	softmax(priors, priors)
	return e.value[0], nil
}

// softmax writes the softmax of logits into out (which may be logits).
// Callers pass the legal moves' logits only: that is the mask.
func softmax(logits, out []float32) {
	mx := float32(math.Inf(-1))
	for _, l := range logits {
		mx = max(mx, l)
	}
	var sum float32
	for i, l := range logits {
		out[i] = float32(math.Exp(float64(l - mx)))
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
}
