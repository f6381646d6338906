package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The batch statistics, taken in one pass image by image, equal the
// two-pass float64 mean and variance over the whole batch, also where the
// images' means differ and lie far from zero against their spread.
func TestBNStatistics(t *testing.T) {
	b, c := Board{N: 5, H: 4, W: 3}, 8
	rng := rand.New(rand.NewPCG(3, 9))
	x := make([]float32, b.N*c*b.H*b.W)
	for i := range x {
		img := i / (c * b.H * b.W)
		x[i] = float32(1000 + 0.5*float64(img) + 0.01*rng.NormFloat64())
	}
	y := toPadded(b, c, x) // NCHW to the op's padded NHWC
	g := G.NewGraph()
	yn := G.NewTensor(g, tensor.Float32, 4, G.WithShape(b.padded(c)...), G.WithName("y"))
	gamma := G.NewTensor(g, tensor.Float32, 4, G.WithShape(1, c, 1, 1), G.WithName("gamma"))
	beta := G.NewTensor(g, tensor.Float32, 4, G.WithShape(1, c, 1, 1), G.WithName("beta"))
	_, bn, err := BatchNorm(yn, gamma, beta, nil, b, 1, testEps)
	if err != nil {
		t.Fatal(err)
	}
	bn.forward(y, ones(c), make([]float32, c), nil)
	px := b.N * b.H * b.W
	_, rv := bn.Stats()
	for ch := 0; ch < c; ch++ {
		mean := 0.0
		for n := 0; n < b.N; n++ {
			for p := 0; p < b.H*b.W; p++ {
				mean += float64(x[(n*c+ch)*b.H*b.W+p])
			}
		}
		mean /= float64(px)
		m2 := 0.0
		for n := 0; n < b.N; n++ {
			for p := 0; p < b.H*b.W; p++ {
				d := float64(x[(n*c+ch)*b.H*b.W+p]) - mean
				m2 += d * d
			}
		}
		if math.Abs(bn.mean[ch]-mean) > 1e-9*mean {
			t.Errorf("channel %d: mean %v, want %v", ch, bn.mean[ch], mean)
		}
		want := m2 / float64(px-1) // momentum 1: the batch's unbiased variance
		if got := float64(rv.(*tensor.Dense).Float32s()[ch]); math.Abs(got-want) > 1e-5*want {
			t.Errorf("channel %d: variance %v, want %v", ch, got, want)
		}
	}
}

// A batch norm after a Winograd convolution takes its sums from the
// convolution's chunks (statsByConv): its mean and variance are those of
// the convolution's output, pass after pass (a second input, other
// statistics).
func TestBNStatisticsFromWinograd(t *testing.T) {
	defer func() { winogradAnyCPU = false }()
	winogradAnyCPU = true
	b, c := Board{N: 9, H: 6, W: 7}, 32
	rng := rand.New(rand.NewPCG(5, 1))
	g := G.NewGraph()
	xn := G.NewTensor(g, tensor.Float32, 4, G.WithShape(b.padded(c)...), G.WithName("x"))
	w := G.NewTensor(g, tensor.Float32, 4, G.WithShape(c, c, 3, 3), G.WithName("w"),
		G.WithValue(tensor.New(tensor.WithShape(c, c, 3, 3), tensor.WithBacking(randSlice(rng, c*c*9)))))
	gamma := G.NewTensor(g, tensor.Float32, 4, G.WithShape(1, c, 1, 1), G.WithName("gamma"),
		G.WithValue(tensor.New(tensor.WithShape(1, c, 1, 1), tensor.WithBacking(ones(c)))))
	beta := G.NewTensor(g, tensor.Float32, 4, G.WithShape(1, c, 1, 1), G.WithName("beta"),
		G.WithValue(tensor.New(tensor.WithShape(1, c, 1, 1), tensor.Of(tensor.Float32))))
	y, err := Conv(xn, w, b, 3, true, BF16)
	if err != nil {
		t.Fatal(err)
	}
	_, bn, err := BatchNorm(y, gamma, beta, nil, b, 1, testEps)
	if err != nil {
		t.Fatal(err)
	}
	if !bn.statsByConv {
		t.Fatal("the batch norm after a Winograd convolution makes its own sums")
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	for pass := range 2 {
		x := randSlice(rng, b.N*c*b.H*b.W)
		for i := range x {
			x[i] += float32(pass) // another mean
		}
		if err := G.Let(xn, tensor.New(tensor.WithShape(b.padded(c)...), tensor.WithBacking(toPadded(b, c, x)))); err != nil {
			t.Fatal(err)
		}
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		out, ok := fromPadded(b, c, y.Value().Data().([]float32))
		if !ok {
			t.Fatal("the convolution wrote its padding")
		}
		_, rv := bn.Stats()
		px := b.N * b.H * b.W
		for ch := 0; ch < c; ch++ {
			mean, m2 := 0.0, 0.0
			for n := 0; n < b.N; n++ {
				for _, v := range out[(n*c+ch)*b.H*b.W:][:b.H*b.W] {
					mean += float64(v)
				}
			}
			mean /= float64(px)
			for n := 0; n < b.N; n++ {
				for _, v := range out[(n*c+ch)*b.H*b.W:][:b.H*b.W] {
					m2 += (float64(v) - mean) * (float64(v) - mean)
				}
			}
			if math.Abs(bn.mean[ch]-mean) > 1e-9*math.Max(1, math.Abs(mean)) {
				t.Errorf("pass %d, channel %d: mean %v, want %v", pass, ch, bn.mean[ch], mean)
			}
			want := m2 / float64(px-1)
			if got := float64(rv.(*tensor.Dense).Float32s()[ch]); math.Abs(got-want) > 1e-5*want {
				t.Errorf("pass %d, channel %d: variance %v, want %v", pass, ch, got, want)
			}
		}
		vm.Reset()
	}
}
