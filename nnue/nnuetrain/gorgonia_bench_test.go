package nnuetrain

import (
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/cputime"
	"github.com/tabula-zero/tabula/net/gemm"
	"github.com/tabula-zero/tabula/nnue"
)

// BenchmarkGorgoniaStep is the same training step as BenchmarkStep (the
// default sizes, squared error of sigmoid(eval/K), Adam), formulated the
// obvious way gorgonia can express it: the features as dense one-hot
// rows multiplied by the feature transformer (gorgonia has no sparse
// product or embedding bag), clipped ReLU as relu(x) - relu(x-1), on the
// project's Sgemm (gemm.BLAS, what package net/train trains with) and on
// gonum's. It is the comparison behind the trainer's own kernels
// (docs/nnue.md); a benchmark, never a test.
func BenchmarkGorgoniaStep(b *testing.B) {
	const batch = 1024
	samples := benchSamples(b, batch)
	b.Run("own-kernels", func(b *testing.B) {
		cfg := DefaultConfig()
		cfg.Batch, cfg.Factorize, cfg.Threads = batch, false, runtime.GOMAXPROCS(0)
		tr, err := New(cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer tr.Close()
		idx := make([]uint32, batch)
		for i := range idx {
			idx[i] = uint32(i)
		}
		tr.trainStep(samples, idx)
		measure(b, batch, func() { tr.trainStep(samples, idx) })
	})
	for _, blas := range []struct {
		name string
		impl G.BLAS
	}{{"gorgonia-gemm", gemm.BLAS{}}, {"gorgonia-gonum", gonum.Implementation{}}} {
		b.Run(blas.name, func(b *testing.B) {
			G.Use(blas.impl)
			defer G.Use(gonum.Implementation{})
			step, err := gorgoniaStep(samples)
			if err != nil {
				b.Fatal(err)
			}
			if err := step(); err != nil {
				b.Fatal(err)
			}
			measure(b, batch, func() {
				if err := step(); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// measure times step and reports positions a second and a CPU-second.
func measure(b *testing.B, batch int, step func()) {
	b.ReportAllocs()
	cpu0, _ := cputime.Process()
	b.ResetTimer()
	for range b.N {
		step()
	}
	b.StopTimer()
	cpu1, _ := cputime.Process()
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(b.N*batch)/(cpu1-cpu0).Seconds(), "samples/cpu-s")
}

// gorgoniaStep builds the graph of one step on samples and returns the
// function that runs it and Adam's update.
func gorgoniaStep(samples []Sample) (func() error, error) {
	s := nnue.DefaultSizes
	n := len(samples)
	f, err := initial(s, 1)
	if err != nil {
		return nil, err
	}
	// The inputs: one-hot rows of each perspective's features, the
	// targets.
	us := make([]float32, n*nnue.NumFeatures)
	them := make([]float32, n*nnue.NumFeatures)
	targets := make([]float32, n)
	for i := range samples {
		sm := &samples[i]
		a, _ := features(nil, sm, game.Color(sm.Side))
		c, _ := features(nil, sm, game.Color(sm.Side^1))
		for _, ft := range a {
			us[i*nnue.NumFeatures+int(ft)] = 1
		}
		for _, ft := range c {
			them[i*nnue.NumFeatures+int(ft)] = 1
		}
		targets[i] = float32(target(sm, DefaultLambda, DefaultK))
	}
	g := G.NewGraph()
	mat := func(name string, r, c int, data []float32) *G.Node {
		return G.NewMatrix(g, G.Float32, G.WithShape(r, c), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(r, c), tensor.WithBacking(data))))
	}
	// The weights, laid out for x*W: FloatNet's W1 is by output, so it
	// is transposed here.
	transpose := func(w []float32, out, in int) []float32 {
		t := make([]float32, len(w))
		for o := range out {
			for i := range in {
				t[i*out+o] = w[o*in+i]
			}
		}
		return t
	}
	xu := mat("us", n, nnue.NumFeatures, us)
	xt := mat("them", n, nnue.NumFeatures, them)
	tg := mat("target", n, 1, targets)
	ft := mat("ft", nnue.NumFeatures, s.L1, f.FTWeights)
	ftb := mat("ftb", 1, s.L1, f.FTBias)
	w1 := mat("w1", 2*s.L1, s.L2, transpose(f.W1, s.L2, 2*s.L1))
	b1 := mat("b1", 1, s.L2, f.B1)
	w2 := mat("w2", s.L2, s.L3, transpose(f.W2, s.L3, s.L2))
	b2 := mat("b2", 1, s.L3, f.B2)
	w3 := mat("w3", s.L3, 1, f.W3)
	b3 := mat("b3", 1, 1, []float32{f.B3})
	learn := G.Nodes{ft, ftb, w1, b1, w2, b2, w3, b3}
	one := G.NewConstant(float32(1))
	scale := G.NewConstant(float32(nnue.OutputScale / DefaultK))
	var e error
	must := func(x *G.Node, err error) *G.Node {
		if err != nil && e == nil {
			e = err
		}
		return x
	}
	clamp := func(x *G.Node) *G.Node {
		return must(G.Sub(must(G.Rectify(x)), must(G.Rectify(must(G.Sub(x, one))))))
	}
	affine := func(x, w, bias *G.Node) *G.Node {
		return must(G.BroadcastAdd(must(G.Mul(x, w)), bias, nil, []byte{0}))
	}
	acc := must(G.Concat(1, affine(xu, ft, ftb), affine(xt, ft, ftb)))
	h1 := clamp(affine(clamp(acc), w1, b1))
	h2 := clamp(affine(h1, w2, b2))
	y := affine(h2, w3, b3)
	p := must(G.Sigmoid(must(G.HadamardProd(y, scale))))
	loss := must(G.Mean(must(G.Square(must(G.Sub(p, tg))))))
	if e != nil {
		return nil, e
	}
	if _, err := G.Grad(loss, learn...); err != nil {
		return nil, err
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(learn...))
	solver := G.NewAdamSolver(G.WithLearnRate(DefaultLR))
	return func() error {
		defer vm.Reset()
		if err := vm.RunAll(); err != nil {
			return err
		}
		return solver.Step(G.NodesToValueGrads(learn))
	}, nil
}
