package nnue

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game/xiangqi"
)

// Quantisation error bounds in centi-units, on RandomFloat's networks
// (weights of a trained network's magnitude; evaluations average 170 to
// 700 centi-units over these positions). Measured on seeds 1-3: the
// quantised evaluation off the float one by 15-24 on average, 104 at
// most, correlation 0.994-0.996 (the int8 rounding of W1's small weights
// dominates); off the float network of its own dequantised values
// (Net.Float, where only the activations round) by 2.4-4.5 on average,
// 16 at most.
const (
	quantMeanErr = 35
	quantMaxErr  = 160
	quantMinCorr = 0.985
	dequantMean  = 8
	dequantMax   = 30
)

// The quantised network tracks the float one it was made from, and the
// float network of its own values closer still; the evaluations spread
// widely enough that tracking them means something.
func TestQuantizedTracksFloat(t *testing.T) {
	positions := randomPositions(t, 8, 3)
	for _, seed := range []uint64{1, 2, 3} {
		f, err := RandomFloat(DefaultSizes, seed)
		if err != nil {
			t.Fatal(err)
		}
		n, err := Quantize(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name      string
			f         *FloatNet
			mean, max float64
		}{{"float", f, quantMeanErr, quantMaxErr}, {"dequantised", n.Float(), dequantMean, dequantMax}} {
			var sumErr, maxErr, sumAbs, sx, sy, sxx, syy, sxy float64
			for _, p := range positions {
				want := c.f.Evaluate(p)
				got := float64(n.EvaluateFull(p))
				d := math.Abs(got - want)
				sumErr += d
				maxErr = max(maxErr, d)
				sumAbs += math.Abs(want)
				sx, sy, sxx, syy, sxy = sx+want, sy+got, sxx+want*want, syy+got*got, sxy+want*got
			}
			k := float64(len(positions))
			r := (sxy/k - sx*sy/k/k) / math.Sqrt((sxx/k-sx*sx/k/k)*(syy/k-sy*sy/k/k))
			t.Logf("seed %d, %s: %d positions, mean |eval| %.0f, error mean %.2f max %.1f, correlation %.4f", seed, c.name, len(positions), sumAbs/k, sumErr/k, maxErr, r)
			if sumErr/k > c.mean || maxErr > c.max || r < quantMinCorr {
				t.Errorf("seed %d: quantised evaluation off the %s one by %.2f on average, %.1f at most, correlation %.4f (bounds %g, %g, %g)", seed, c.name, sumErr/k, maxErr, r, c.mean, c.max, quantMinCorr)
			}
			if sumAbs/k < 100 {
				t.Errorf("seed %d: evaluations average %.0f centi-units: too flat to test tracking", seed, sumAbs/k)
			}
		}
	}
}

// The integer forward pass computes what the documented arithmetic says,
// checked on a network whose output can be worked by hand.
func TestForwardByHand(t *testing.T) {
	f, _ := NewFloat(DefaultSizes)
	// Every accumulator entry 0.5 (the biases), so x = 0.5 everywhere;
	// W1's first row weighs x's first 4 entries by 0.25: h1[0] = 0.5;
	// W2[0][0] = 1: h2[0] = 0.5; W3[0] = 1 and B3 = 0.25: y = 0.75, 450
	// centi-units.
	for i := range f.FTBias {
		f.FTBias[i] = 0.5
	}
	for i := range 4 {
		f.W1[i] = 0.25
	}
	f.W2[0] = 1
	f.W3[0] = 1
	f.B3 = 0.25
	n, err := Quantize(f)
	if err != nil {
		t.Fatal(err)
	}
	p := xiangqi.New(xiangqi.DefaultRules)
	if got := f.Evaluate(p); got != 450 {
		t.Errorf("float evaluation %v, want 450", got)
	}
	// Quantised: bias 64 (0.5*127 rounded), x = 64; s = 4*64*16 = 4096,
	// >> 6 = 64; h2 = (64*64) >> 6 = 64; out = 64*round(9600/127) + 2400
	// = 64*76 + 2400 = 7264, / 16 = 454.
	if got := n.EvaluateFull(p); got != 454 {
		t.Errorf("quantised evaluation %d, want 454", got)
	}
	// An output beyond MaxEval is bounded, away from mate scores.
	f.B3 = -50
	if n, err = Quantize(f); err != nil {
		t.Fatal(err)
	}
	if got, inc := n.EvaluateFull(p), New(n, p).Evaluate(); got != -MaxEval || inc != -MaxEval {
		t.Errorf("evaluations %d and %d of an output of -29,700 centi-units, want -%d", got, inc, MaxEval)
	}
}

// Quantize refuses what its integer types cannot hold, naming the array.
func TestQuantizeRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(f *FloatNet)
		want string
	}{
		{"hidden weight", func(f *FloatNet) { f.W1[7] = 2.5 }, "W1[7]"},
		{"output weight", func(f *FloatNet) { f.W3[1] = -1.8 }, "W3[1]"},
		{"ft weight", func(f *FloatNet) { f.FTWeights[3] = 300 }, "FTWeights[3]"},
		{"NaN", func(f *FloatNet) { f.B2[0] = float32(math.NaN()) }, "B2[0]"},
		{"short array", func(f *FloatNet) { f.FTBias = f.FTBias[:10] }, "FTBias"},
		{"bad sizes", func(f *FloatNet) { f.L1 = 100 }, "L1"},
	} {
		f, _ := RandomFloat(DefaultSizes, 1)
		c.set(f)
		if _, err := Quantize(f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Quantize error %v, want one naming %s", c.name, err, c.want)
		}
	}
	if _, err := Quantize(nil); err == nil {
		t.Errorf("Quantize(nil) did not fail")
	}
	// Within the bounds the trainer clips to, every weight quantises.
	f, _ := NewFloat(DefaultSizes)
	for i := range f.W1 {
		f.W1[i] = MaxHiddenWeight * float32(1-2*(i%2))
	}
	for i := range f.W3 {
		f.W3[i] = MaxOutputWeight * float32(1-2*(i%2))
	}
	if _, err := Quantize(f); err != nil {
		t.Errorf("weights at the documented bounds: %v", err)
	}
}

// Net.Float gives the values Quantize turns back into the same network.
func TestFloatRoundTrip(t *testing.T) {
	n := NewRandom(7)
	m, err := Quantize(n.Float())
	if err != nil {
		t.Fatal(err)
	}
	if !sameNet(n, m) {
		t.Errorf("Quantize(n.Float()) differs from n")
	}
}

func sameNet(a, b *Net) bool {
	return a.sizes == b.sizes && slices.Equal(a.ftW, b.ftW) && slices.Equal(a.ftB, b.ftB) &&
		slices.Equal(a.w1, b.w1) && slices.Equal(a.b1, b.b1) && slices.Equal(a.w2, b.w2) &&
		slices.Equal(a.b2, b.b2) && slices.Equal(a.w3, b.w3) && a.b3 == b.b3
}

func TestSizesCheck(t *testing.T) {
	for _, s := range []Sizes{{128, 8, 8}, {2048, 256, 256}, DefaultSizes} {
		if err := s.Check(); err != nil {
			t.Errorf("%v: %v", s, err)
		}
	}
	for _, s := range []Sizes{{0, 16, 32}, {96, 16, 32}, {4096, 16, 32}, {256, 6, 32}, {256, 0, 32}, {256, 16, 0}, {256, 16, 300}} {
		if err := s.Check(); err == nil {
			t.Errorf("%v accepted", s)
		}
	}
}
