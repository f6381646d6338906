package nnuetrain

import (
	"fmt"
	"math"

	"github.com/tabula-zero/tabula/nnue"
)

// params is a network's trainable values in one flat slice, in the order
// of nnue.FloatNet's fields, then the virtual rows when factorised, so
// that the optimizer, the clipping and the state file each run one loop
// over it. The gradient and Adam's moments have the same layout.
//
// Factorised, the feature transformer's row of a feature is the sum of
// its own row, the row of its piece on its square whatever the bucket
// (NumPieceSquares virtual rows) and the row of its piece alone
// (nnue.NumPieces): what a piece is worth is learned from every position
// it stands in, not again for each of the general's buckets and squares
// (nnue-pytorch's factorisers). The sums are what the network exports.
type params struct {
	nnue.Sizes
	factor bool
	w      []float32
	// Offsets of each tensor in w.
	ft, ftb, w1, b1, w2, b2, w3, b3, vps, vp, n int
}

// NumPieceSquares is the virtual piece-square rows: a feature less its
// bucket.
const NumPieceSquares = nnue.NumPieces * 90

func layout(s nnue.Sizes, factor bool) params {
	p := params{Sizes: s, factor: factor}
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
	p.vps, p.vp = off, off
	if factor {
		p.vps = next(NumPieceSquares * s.L1)
		p.vp = next(nnue.NumPieces * s.L1)
	}
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
func (p *params) VPS(v []float32) []float32 { return v[p.vps:p.vp] }
func (p *params) VP(v []float32) []float32  { return v[p.vp:p.n] }

// dense and denseEnd bound the tensors after the feature transformer's
// weights: the part of a gradient each worker keeps its own copy of.
func (p *params) dense() int    { return p.ftb }
func (p *params) denseEnd() int { return p.b3 + 1 }

// virtualRows returns feature f's piece-square and piece rows.
func virtualRows(f int) (ps, pc int) {
	ps = f % NumPieceSquares
	return ps, ps / 90
}

// MaxFTClip bounds the feature transformer's weights and biases: bias
// plus MaxActive rows then stay within nnue.MaxFTWeight, an int16 at
// nnue.FTScale, whatever the position. Factorised, each of a row's three
// parts is held to a third of it, so their sum is.
const MaxFTClip = float32(nnue.MaxFTWeight / (nnue.MaxActive + 1))

// clipOf is the bound each tensor is clipped to after a step (0: none):
// the ranges nnue.Quantize accepts. Biases of the dense layers are int32
// and need none.
func (p *params) clipOf(i int) float32 {
	switch {
	case i < p.ftb && p.factor, i >= p.vps:
		return MaxFTClip / 3
	case i < p.w1:
		return MaxFTClip
	case i < p.b1, i >= p.w2 && i < p.b2:
		return float32(nnue.MaxHiddenWeight)
	case i >= p.w3 && i < p.b3:
		return float32(nnue.MaxOutputWeight)
	}
	return 0
}

// fromFloat lays f out as params, the virtual rows zero.
func fromFloat(f *nnue.FloatNet, factor bool) (params, error) {
	if err := f.Check(); err != nil {
		return params{}, fmt.Errorf("nnuetrain: %w", err)
	}
	p := layout(f.Sizes, factor)
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

// coalesce sets rows [lo, hi) of eff to the feature transformer's rows
// the network has: each feature's own row plus its virtual ones.
func (p *params) coalesce(eff []float32, lo, hi int) {
	l1 := p.L1
	ft, vps, vp := p.FT(p.w), p.VPS(p.w), p.VP(p.w)
	for f := lo; f < hi; f++ {
		ps, pc := virtualRows(f)
		row := eff[f*l1 : f*l1+l1]
		copy(row, ft[f*l1:f*l1+l1])
		add(row, vps[ps*l1:ps*l1+l1])
		add(row, vp[pc*l1:pc*l1+l1])
	}
}

// float returns the network the values make, a copy.
func (p *params) float() *nnue.FloatNet {
	f, _ := nnue.NewFloat(p.Sizes) // sizes checked when p was made
	if p.factor {
		p.coalesce(f.FTWeights, 0, nnue.NumFeatures)
	} else {
		copy(f.FTWeights, p.FT(p.w))
	}
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

// lossFn is the loss of one position: it returns the loss and its
// derivative by y, the network's output in float units (eval = y *
// nnue.OutputScale centi-units), given the target probability t.
type lossFn struct {
	scale float64 // nnue.OutputScale / K: y to the sigmoid's argument
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func (l lossFn) eval(y float32, t float64) (loss, dy float64) {
	p := sigmoid(float64(y) * l.scale)
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
	}{{p.ftb, "FTWeights"}, {p.w1, "FTBias"}, {p.b1, "W1"}, {p.w2, "B1"}, {p.b2, "W2"}, {p.w3, "B2"}, {p.b3, "W3"},
		{p.b3 + 1, "B3"}, {p.vp, "piece-square rows"}, {p.n, "piece rows"}} {
		if i < t.end {
			return t.name
		}
	}
	return "?"
}
