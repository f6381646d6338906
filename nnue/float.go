package nnue

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tabula-zero/tabula/game/xiangqi"
)

// FloatNet is the network in float32, the form the trainer trains and
// Quantize turns into a Net. Its forward pass is the definition the
// quantised one follows:
//
//	acc_c = FTBias + sum of FTWeights rows of c's active features (c = side to move, other)
//	x     = clamp([acc_stm, acc_other], 0, 1)                 2*L1
//	h1    = clamp(W1 x + B1, 0, 1)                            L2
//	h2    = clamp(W2 h1 + B2, 0, 1)                           L3
//	y     = W3 . h2 + B3;  evaluation = y * OutputScale centi-units (side to move's view)
//
// Matrices are row-major by output: W1's row o holds output o's 2*L1
// weights, the side to move's L1 first.
type FloatNet struct {
	Sizes
	FTWeights []float32 // [NumFeatures][L1]
	FTBias    []float32 // [L1]
	W1        []float32 // [L2][2*L1]
	B1        []float32 // [L2]
	W2        []float32 // [L3][L2]
	B2        []float32 // [L3]
	W3        []float32 // [L3]
	B3        float32
}

// NewFloat returns a network of sizes s with every weight zero.
func NewFloat(s Sizes) (*FloatNet, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &FloatNet{
		Sizes:     s,
		FTWeights: make([]float32, NumFeatures*s.L1),
		FTBias:    make([]float32, s.L1),
		W1:        make([]float32, s.L2*2*s.L1),
		B1:        make([]float32, s.L2),
		W2:        make([]float32, s.L3*s.L2),
		B2:        make([]float32, s.L3),
		W3:        make([]float32, s.L3),
	}, nil
}

// RandomFloat returns a network of sizes s with seeded random weights of
// a trained network's magnitude: about half of the accumulators clipped
// at zero, hidden activations spread over [0, 1], evaluations of a few
// hundred centi-units. It is where a trainer starts, and the tests' and
// benchmarks' network.
func RandomFloat(s Sizes, seed uint64) (*FloatNet, error) {
	f, err := NewFloat(s)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x6e6e7565))
	uniform := func(xs []float32, lo, hi float64) {
		for i := range xs {
			xs[i] = float32(lo + (hi-lo)*rng.Float64())
		}
	}
	// About 32 rows a perspective: a sum of standard deviation near 0.5.
	uniform(f.FTWeights, -0.15, 0.15)
	uniform(f.FTBias, -0.1, 0.4)
	a1 := 4 / math.Sqrt(float64(2*s.L1))
	uniform(f.W1, -a1, a1)
	uniform(f.B1, 0, 0.5)
	a2 := 2 / math.Sqrt(float64(s.L2))
	uniform(f.W2, -a2, a2)
	uniform(f.B2, -0.2, 0.5)
	a3 := min(3/math.Sqrt(float64(s.L3)), MaxOutputWeight)
	uniform(f.W3, -a3, a3)
	f.B3 = 0
	return f, nil
}

// Check reports whether every array has the length its sizes need and
// every weight is finite.
func (f *FloatNet) Check() error {
	if err := f.Sizes.Check(); err != nil {
		return err
	}
	s := f.Sizes
	for _, a := range []struct {
		name string
		xs   []float32
		n    int
	}{
		{"FTWeights", f.FTWeights, NumFeatures * s.L1}, {"FTBias", f.FTBias, s.L1},
		{"W1", f.W1, s.L2 * 2 * s.L1}, {"B1", f.B1, s.L2},
		{"W2", f.W2, s.L3 * s.L2}, {"B2", f.B2, s.L3}, {"W3", f.W3, s.L3},
	} {
		if len(a.xs) != a.n {
			return fmt.Errorf("nnue: %s has %d values, sizes %s need %d", a.name, len(a.xs), s, a.n)
		}
		if err := checkFinite(a.name, a.xs); err != nil {
			return err
		}
	}
	return checkFinite("B3", []float32{f.B3})
}

// Transform sets dst (L1 values) to the accumulator of one perspective
// whose active features are feats, unclipped.
func (f *FloatNet) Transform(dst []float32, feats []uint16) {
	l1 := f.L1
	copy(dst[:l1], f.FTBias)
	for _, ft := range feats {
		row := f.FTWeights[int(ft)*l1 : int(ft)*l1+l1]
		for i, w := range row {
			dst[i] += w
		}
	}
}

// Forward returns y, the output in float units (y*OutputScale
// centi-units), of the position whose side to move has the active
// features us and the other side them.
func (f *FloatNet) Forward(us, them []uint16) float32 {
	l1 := f.L1
	x := make([]float32, 2*l1)
	f.Transform(x[:l1], us)
	f.Transform(x[l1:], them)
	for i, v := range x {
		x[i] = clamp01(v)
	}
	h1 := make([]float32, f.L2)
	for o := range h1 {
		h1[o] = clamp01(f.B1[o] + dot(f.W1[o*2*l1:(o+1)*2*l1], x))
	}
	y := f.B3
	for j := range f.L3 {
		h2 := clamp01(f.B2[j] + dot(f.W2[j*f.L2:(j+1)*f.L2], h1))
		y += f.W3[j] * h2
	}
	return y
}

// Evaluate returns p's evaluation in centi-units from the side to move's
// view, unrounded: Forward of p's features times OutputScale.
func (f *FloatNet) Evaluate(p *xiangqi.Position) float64 {
	us := p.SideToMove()
	var a, b [MaxActive]uint16
	return float64(f.Forward(AppendFeatures(a[:0], p, us), AppendFeatures(b[:0], p, us^1))) * OutputScale
}

func clamp01(x float32) float32 { return min(max(x, 0), 1) }

func dot(w, x []float32) float32 {
	var s float32
	for i, v := range x[:len(w)] {
		s += w[i] * v
	}
	return s
}

// Quantize returns the quantised network of f: each array rounded to its
// integer type at its scale (see FTScale). A weight that does not fit its
// type (beyond MaxFTWeight, MaxHiddenWeight or MaxOutputWeight; the
// trainer clips to them) or that is not finite is an error naming it.
func Quantize(f *FloatNet) (*Net, error) {
	if f == nil {
		return nil, fmt.Errorf("nnue: quantize: no network")
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	n := newNet(f.Sizes)
	var err error
	q16 := func(name string, dst []int16, src []float32) {
		for i, x := range src {
			v, ok := roundIn(float64(x)*FTScale, math.MinInt16, math.MaxInt16)
			if !ok && err == nil {
				err = fmt.Errorf("nnue: quantize: %s[%d] = %g is beyond +-%g", name, i, x, MaxFTWeight)
			}
			dst[i] = int16(v)
		}
	}
	q8 := func(name string, dst []int8, src []float32, scale, bound float64) {
		for i, x := range src {
			v, ok := roundIn(float64(x)*scale, math.MinInt8, math.MaxInt8)
			if !ok && err == nil {
				err = fmt.Errorf("nnue: quantize: %s[%d] = %g is beyond +-%.4g", name, i, x, bound)
			}
			dst[i] = int8(v)
		}
	}
	q32 := func(name string, dst []int32, src []float32, scale float64) {
		for i, x := range src {
			v, ok := roundIn(float64(x)*scale, math.MinInt32, math.MaxInt32)
			if !ok && err == nil {
				err = fmt.Errorf("nnue: quantize: %s[%d] = %g does not fit 32 bits at scale %g", name, i, x, scale)
			}
			dst[i] = int32(v)
		}
	}
	const hiddenBias = FTScale * HiddenWeightScale
	const outW = float64(OutputScale*OutputDiv) / FTScale
	q16("FTWeights", n.ftW, f.FTWeights)
	q16("FTBias", n.ftB, f.FTBias)
	q8("W1", n.w1, f.W1, HiddenWeightScale, MaxHiddenWeight)
	q32("B1", n.b1, f.B1, hiddenBias)
	q8("W2", n.w2, f.W2, HiddenWeightScale, MaxHiddenWeight)
	q32("B2", n.b2, f.B2, hiddenBias)
	q8("W3", n.w3, f.W3, outW, MaxOutputWeight)
	var b3 [1]int32
	q32("B3", b3[:], []float32{f.B3}, OutputScale*OutputDiv)
	n.b3 = b3[0]
	if err != nil {
		return nil, err
	}
	n.finish()
	return n, nil
}

// roundIn rounds x to the nearest integer (halves away from zero) and
// reports whether it lies in [lo, hi].
func roundIn(x float64, lo, hi int64) (int64, bool) {
	r := math.Round(x)
	if !(r >= float64(lo) && r <= float64(hi)) {
		return 0, false
	}
	return int64(r), true
}

// Float returns the network's values as floats (each integer over its
// scale): a trainer's start from a saved network. Quantize gives n back.
func (n *Net) Float() *FloatNet {
	s := n.sizes
	f, _ := NewFloat(s) // n's sizes were checked when it was made
	for i, v := range n.ftW {
		f.FTWeights[i] = float32(v) / FTScale
	}
	for i, v := range n.ftB {
		f.FTBias[i] = float32(v) / FTScale
	}
	for i, v := range n.w1 {
		f.W1[i] = float32(v) / HiddenWeightScale
	}
	for i, v := range n.w2 {
		f.W2[i] = float32(v) / HiddenWeightScale
	}
	for i, v := range n.b1 {
		f.B1[i] = float32(float64(v) / (FTScale * HiddenWeightScale))
	}
	for i, v := range n.b2 {
		f.B2[i] = float32(float64(v) / (FTScale * HiddenWeightScale))
	}
	for i, v := range n.w3 {
		f.W3[i] = float32(float64(v) * FTScale / (OutputScale * OutputDiv))
	}
	f.B3 = float32(float64(n.b3) / (OutputScale * OutputDiv))
	return f
}

// NewRandom returns the quantised network of RandomFloat(DefaultSizes,
// seed): round 0's evaluation and the tests' network.
func NewRandom(seed uint64) *Net {
	f, err := RandomFloat(DefaultSizes, seed)
	if err == nil {
		var n *Net
		if n, err = Quantize(f); err == nil {
			n.notes = fmt.Sprintf("random, seed %d", seed)
			return n
		}
	}
	panic(err) // DefaultSizes and RandomFloat's ranges always quantise
}
