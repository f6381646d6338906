package train_test

import (
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/gemm"
	"github.com/tabula-zero/tabula/net/train"
)

// benchGOGC is the GC target the benchmarks run with. Every gorgonia
// inference pass allocates about as much as the live heap (all
// intermediates are reallocated), so at the default GOGC=100 the collector
// runs after every pass; 400 is what gorgonia-notes.md recommends for such
// programs (set it with GOGC or debug.SetGCPercent in the binary, never in
// the library). Training steps on net/train/ops allocate only gorgonia's
// bookkeeping (TestStepAllocatesNoTensors). The benchmarks set it for their
// duration and restore the old value.
const benchGOGC = 400

var benchGames = game.Names()

func presetSpec(tb testing.TB, name string) net.Spec {
	s, err := configs.PresetSpec(name)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// fromToSpec is the Xiangqi preset with encoder 4 and the from-to policy
// head of 32 features a square.
func fromToSpec(tb testing.TB) net.Spec {
	c, err := configs.Preset("xiangqi")
	if err != nil {
		tb.Fatal(err)
	}
	c.Network.EncoderVersion, c.Network.PolicyHead, c.Network.PolicyChannels = 4, net.PolicyFromTo, 32
	s, err := configs.NetSpec(c)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// newBenchTrainer returns an SGD trainer (momentum 0.9, weight decay 1e-4)
// of a fresh network of spec at batch n, and a random batch for it.
func newBenchTrainer(tb testing.TB, spec net.Spec, n int, opts ...net.ModelOption) (*train.Trainer, train.Batch) {
	tb.Helper()
	p, err := net.NewParams(spec, 1)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := train.NewModel(p, n, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tr, err := m.NewTrainer(train.Config{Schedule: net.Schedule{LR: 0.01}, Momentum: 0.9, WeightDecay: 1e-4})
	if err != nil {
		tb.Fatal(err)
	}
	return tr, train.RandomBatch(rand.New(rand.NewPCG(2, 3)), spec, n)
}

// BenchmarkGorgoniaForward measures eval-mode Forward on the presets at
// batch 1, 16 and 64: positions per second and achieved GFLOP/s (the
// convolution and dense multiply-adds, 2 FLOPs each, Spec.ForwardFLOPs).
func BenchmarkGorgoniaForward(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(benchGOGC))
	for _, name := range benchGames {
		spec := presetSpec(b, name)
		p, err := net.NewParams(spec, 1)
		if err != nil {
			b.Fatal(err)
		}
		m, err := train.NewModel(p, 0)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("%s/batch=%d", name, n), func(b *testing.B) {
				x := train.RandomPlanes(rand.New(rand.NewPCG(1, uint64(n))), spec, n)
				if _, _, err := m.Forward(x, n); err != nil { // builds the graph
					b.Fatal(err)
				}
				for b.Loop() {
					if _, _, err := m.Forward(x, n); err != nil {
						b.Fatal(err)
					}
				}
				pos := float64(b.N*n) / b.Elapsed().Seconds()
				b.ReportMetric(pos, "pos/s")
				b.ReportMetric(pos*float64(spec.ForwardFLOPs())/1e9, "GFLOP/s")
			})
			m.ReleaseInference()
		}
	}
}

// BenchmarkTrainPeak is the reference the training benchmarks are read
// against, measured in the same run: net/gemm's Sgemm (on every core) at
// large square sizes, in GFLOP/s. Run both with -bench Train.
func BenchmarkTrainPeak(b *testing.B) {
	for _, size := range []int{1024, 2048} {
		b.Run(fmt.Sprintf("sgemm=%d", size), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, uint64(size)))
			x, y, z := make([]float32, size*size), make([]float32, size*size), make([]float32, size*size)
			for i := range x {
				x[i], y[i] = rng.Float32(), rng.Float32()
			}
			for b.Loop() {
				gemm.Sgemm(false, false, size, size, size, 1, x, size, y, size, 0, z, size)
			}
			b.ReportMetric(2*float64(size*size*size)*float64(b.N)/1e9/b.Elapsed().Seconds(), "GFLOP/s")
		})
	}
}

// BenchmarkGorgoniaTrain measures training steps (forward, backward,
// momentum update) on the presets at batch 64, 128 (the presets') and 256, in samples per
// second and GFLOP/s (compare with BenchmarkTrainPeak), with the training
// graph on net/train/ops (ops=fast, the default) and on gorgonia's own ops
// (ops=reference), and on the fast ops with the 3x3 convolutions on
// AMX-BF16 tiles or AVX512_BF16 (ops=bf16; float32 where the CPU has neither); xiangqi-fromto is the Xiangqi preset with the from-to
// policy head (encoder 4, 32 features a square), fast ops only.
func BenchmarkGorgoniaTrain(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(benchGOGC))
	for _, name := range append(benchGames, "xiangqi-fromto", "xiangqi-fromto-mask") {
		spec := fromToSpec(b)
		if !strings.HasPrefix(name, "xiangqi-fromto") {
			spec = presetSpec(b, name)
		}
		for _, n := range []int{64, 128, 256} {
			for _, ops := range []string{"fast", "bf16", "reference"} {
				if spec.FromToHead() && ops == "reference" {
					continue
				}
				var opts []net.ModelOption
				switch ops {
				case "reference":
					opts = append(opts, net.ReferenceOps())
				case "bf16":
					opts = append(opts, net.BF16Convs())
				}
				b.Run(fmt.Sprintf("%s/batch=%d/ops=%s", name, n, ops), func(b *testing.B) {
					benchTrain(b, spec, n, strings.HasSuffix(name, "-mask"), opts...)
				})
			}
		}
	}
}

func benchTrain(b *testing.B, spec net.Spec, n int, masked bool, opts ...net.ModelOption) {
	tr, batch := newBenchTrainer(b, spec, n, opts...)
	if masked {
		train.MaskBatch(rand.New(rand.NewPCG(4, 5)), spec, &batch, 45) // a Xiangqi position has about 45 legal moves
	}
	if _, err := tr.Step(batch); err != nil { // first pass allocates
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := tr.Step(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "samples/s")
	// forward + backward is about three forward passes
	b.ReportMetric(float64(b.N*n)*3*float64(spec.ForwardFLOPs())/1e9/b.Elapsed().Seconds(), "GFLOP/s")
}
