package nnuetrain

import (
	"fmt"
	"math"

	"github.com/tabula-zero/tabula/nnue"
)

// params is a network's trainable values in one flat slice, in the order
// of nnue.FloatNet's fields, so that the optimizer, the clipping and the
// state file each run one loop over it. The gradient and Adam's moments
// have the same layout.
type params struct {
	nnue.Sizes
	w []float32
	// Offsets of each tensor in w.
	ft, ftb, w1, b1, w2, b2, w3, b3, n int
}

func layout(s nnue.Sizes) params {
	p := params{Sizes: s}
	off := 0
	next := func(n int) int { o := off; off += n; return o }
	p.ft = next(nnue.NumFeatures * s.L1)
	p.ftb = next(s.L1)
	p.w1 = next(s.L2 * 2 * s.L1)
	p.b1 = next(s.L2)
	p.w2 = next(s.L3 * s.L2)
	p.b2 = next(s.L3)
	p.w3 = next(s.L3)
	p.b3 = next(1)
	p.n = off
	return p
}

// Views of a flat slice laid out as p.
func (p *params) FT(v []float32) []float32  { return v[p.ft:p.ftb] }
func (p *params) FTB(v []float32) []float32 { return v[p.ftb:p.w1] }
func (p *params) W1(v []float32) []float32  { return v[p.w1:p.b1] }
func (p *params) B1(v []float32) []float32  { return v[p.b1:p.w2] }
func (p *params) W2(v []float32) []float32  { return v[p.w2:p.b2] }
func (p *params) B2(v []float32) []float32  { return v[p.b2:p.w3] }
func (p *params) W3(v []float32) []float32  { return v[p.w3:p.b3] }

// dense is where the tensors after the feature transformer's weights
// begin: the part of a gradient each worker keeps its own copy of.
func (p *params) dense() int { return p.ftb }

// MaxFTClip bounds the feature transformer's weights and biases: bias
// plus MaxActive rows then stay within nnue.MaxFTWeight, an int16 at
// nnue.FTScale, whatever the position.
const MaxFTClip = float32(nnue.MaxFTWeight / (nnue.MaxActive + 1))

// clipOf is the bound each tensor is clipped to after a step (0: none):
// the ranges nnue.Quantize accepts. Biases of the dense layers are int32
// and need none.
func (p *params) clipOf(i int) float32 {
	switch {
	case i < p.w1:
		return MaxFTClip
	case i < p.b1, i >= p.w2 && i < p.b2:
		return float32(nnue.MaxHiddenWeight)
	case i >= p.w3 && i < p.b3:
		return float32(nnue.MaxOutputWeight)
	}
	return 0
}

// fromFloat copies f into a new flat slice.
func fromFloat(f *nnue.FloatNet) (params, error) {
	if err := f.Check(); err != nil {
		return params{}, fmt.Errorf("nnuetrain: %w", err)
	}
	p := layout(f.Sizes)
	p.w = make([]float32, p.n)
	copy(p.FT(p.w), f.FTWeights)
	copy(p.FTB(p.w), f.FTBias)
	copy(p.W1(p.w), f.W1)
	copy(p.B1(p.w), f.B1)
	copy(p.W2(p.w), f.W2)
	copy(p.B2(p.w), f.B2)
	copy(p.W3(p.w), f.W3)
	p.w[p.b3] = f.B3
	return p, nil
}

// float returns the values as a network of their own.
func (p *params) float() *nnue.FloatNet {
	f, _ := nnue.NewFloat(p.Sizes) // sizes checked when p was made
	copy(f.FTWeights, p.FT(p.w))
	copy(f.FTBias, p.FTB(p.w))
	copy(f.W1, p.W1(p.w))
	copy(f.B1, p.B1(p.w))
	copy(f.W2, p.W2(p.w))
	copy(f.B2, p.B2(p.w))
	copy(f.W3, p.W3(p.w))
	f.B3 = p.w[p.b3]
	return f
}

// clip holds every value within its tensor's bound (a value beyond what
// Quantize takes, from -init or a state file, is pulled in too).
func (p *params) clip() {
	for i := range p.w {
		if c := p.clipOf(i); c > 0 {
			p.w[i] = min(max(p.w[i], -c), c)
		}
	}
}

// Loss names.
const (
	LossMSE  = "mse"
	LossXent = "xent"
)

// lossFn is the loss of one position: it returns the loss and its
// derivative by y, the network's output in float units (eval = y *
// nnue.OutputScale centi-units), given the target probability t.
type lossFn struct {
	xent  bool
	scale float64 // nnue.OutputScale / K: y to the sigmoid's argument
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func (l lossFn) eval(y float32, t float64) (loss, dy float64) {
	p := sigmoid(float64(y) * l.scale)
	if l.xent {
		// Cross-entropy less the target's own entropy (a KL divergence),
		// so a perfect prediction scores 0 whatever the targets.
		const eps = 1e-12
		loss = t*math.Log((t+eps)/(p+eps)) + (1-t)*math.Log((1-t+eps)/(1-p+eps))
		return loss, (p - t) * l.scale
	}
	d := p - t
	return d * d, 2 * d * p * (1 - p) * l.scale
}

// target is the blend of the score's and the result's win probability.
func target(s *Sample, lambda, k float64) float64 {
	return lambda*sigmoid(float64(s.Score)/k) + (1-lambda)*(float64(s.Result)+1)/2
}

// name names the tensor of value i, for messages.
func (p *params) name(i int) string {
	for _, t := range []struct {
		end  int
		name string
	}{{p.ftb, "FTWeights"}, {p.w1, "FTBias"}, {p.b1, "W1"}, {p.w2, "B1"}, {p.b2, "W2"}, {p.w3, "B2"}, {p.b3, "W3"}, {p.n, "B3"}} {
		if i < t.end {
			return t.name
		}
	}
	return "?"
}
