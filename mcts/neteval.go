package mcts

import (
	"errors"
	"fmt"
	"math"

	"github.com/tabula-zero/tabula/game"
)

// NetEvaluator is an Evaluator running a network for a single goroutine:
// no batching loop, no locks. A player in a match or an engine uses it;
// self-play's many games share a Batcher instead. With a capacity above
// one it is a BatchEvaluator too, for a network that spreads a batch over
// cores (net/infer's Parallel).
type NetEvaluator struct {
	fwd      Forwarder
	enc      game.Encoder
	capacity int
	size     int // c*h*w
	planes   []float32
	policy   []float32
	value    []float32
	// wdl is fwd as a network with the WDL head (nil without it), probs
	// its probabilities of the last batch [capacity][3].
	wdl   WDLForwarder
	probs []float32
	draw  []float32 // EvaluateDraw's draw probability
	// The queued positions' action indices and prior slices.
	queued  int
	actions [][]int
	priors  [][]float32
}

// NewNetEvaluator evaluates one position at a time with fwd (owned by the
// evaluator from now on: give each goroutine its own network) and the
// game's encoder.
func NewNetEvaluator(fwd Forwarder, enc game.Encoder) *NetEvaluator {
	return NewNetBatchEvaluator(fwd, enc, 1)
}

// NewNetBatchEvaluator is NewNetEvaluator for batches of up to capacity
// positions (fwd must take them).
func NewNetBatchEvaluator(fwd Forwarder, enc game.Encoder, capacity int) *NetEvaluator {
	c, h, w := enc.Shape()
	capacity = max(capacity, 1)
	e := &NetEvaluator{fwd: fwd, enc: enc, capacity: capacity, size: c * h * w,
		planes: make([]float32, capacity*c*h*w), policy: make([]float32, capacity*enc.ActionSize()),
		value: make([]float32, capacity), draw: make([]float32, 1), actions: make([][]int, capacity), priors: make([][]float32, capacity)}
	if wf, ok := fwd.(WDLForwarder); ok && wf.HasWDL() {
		e.wdl, e.probs = wf, make([]float32, 3*capacity)
	}
	return e
}

// Evaluate implements Evaluator.
func (e *NetEvaluator) Evaluate(p game.Position, moves []game.Move, priors []float32) (float32, error) {
	v, _, err := e.EvaluateDraw(p, moves, priors)
	return v, err
}

// Draws implements DrawEvaluator: whether the network has the WDL head.
func (e *NetEvaluator) Draws() bool { return e.wdl != nil }

// EvaluateDraw implements DrawEvaluator (the draw probability is 0
// without the WDL head).
func (e *NetEvaluator) EvaluateDraw(p game.Position, moves []game.Move, priors []float32) (value, draw float32, err error) {
	if e.queued > 0 {
		return 0, 0, errors.New("mcts: Evaluate with a batch queued")
	}
	e.Queue(p, moves, priors[:len(moves)])
	if err := e.FlushDraws(e.value[:1], e.draw); err != nil {
		return 0, 0, err
	}
	return e.value[0], e.draw[0], nil
}

// Capacity implements BatchEvaluator.
func (e *NetEvaluator) Capacity() int { return e.capacity }

// Queue implements BatchEvaluator; a full batch ignores further positions
// (Flush then fails).
func (e *NetEvaluator) Queue(p game.Position, moves []game.Move, priors []float32) {
	i := e.queued
	e.queued++
	if i >= e.capacity {
		return
	}
	e.enc.Encode(p, e.planes[i*e.size:(i+1)*e.size])
	a := e.actions[i][:0]
	for _, m := range moves {
		a = append(a, e.enc.ActionIndex(p, m))
	}
	e.actions[i], e.priors[i] = a, priors
}

// Flush implements BatchEvaluator. The batch is emptied even when it
// fails.
func (e *NetEvaluator) Flush(values []float32) error { return e.FlushDraws(values, nil) }

// FlushDraws implements BatchDrawEvaluator; draws may be nil (and is
// written with zeros without the WDL head).
func (e *NetEvaluator) FlushDraws(values, draws []float32) error {
	n := e.queued
	e.queued = 0
	if n > e.capacity {
		return fmt.Errorf("mcts: %d positions queued for a batch of %d", n, e.capacity)
	}
	if n == 0 {
		return nil
	}
	actions := e.enc.ActionSize()
	var err error
	if e.wdl != nil {
		err = e.wdl.ForwardWDL(e.planes[:n*e.size], n, e.policy[:n*actions], e.value[:n], e.probs[:3*n])
	} else {
		err = e.fwd.Forward(e.planes[:n*e.size], n, e.policy[:n*actions], e.value[:n])
	}
	if err != nil {
		return err
	}
	for i := range n {
		logits := e.policy[i*actions : (i+1)*actions]
		pr := e.priors[i]
		for j, a := range e.actions[i] {
			pr[j] = logits[a]
		}
		softmax(pr, pr)
		values[i] = e.value[i]
		if draws != nil {
			draws[i] = 0
			if e.wdl != nil {
				draws[i] = e.probs[3*i+1]
			}
		}
	}
	return nil
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
