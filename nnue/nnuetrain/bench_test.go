package nnuetrain

import (
	"runtime"
	"testing"

	"github.com/tabula-zero/tabula/internal/cputime"
	"github.com/tabula-zero/tabula/nnue"
)

// benchSamples is the positions of the benchmarks: random games' first
// 80 plies, about as many pieces as the generator's positions.
func benchSamples(b testing.TB, n int) []Sample {
	var out []Sample
	for seed := uint64(1); len(out) < n; seed++ {
		for _, g := range testGames(b, 20, seed) {
			for _, r := range g[:min(len(g), 80)] {
				out = append(out, Sample{Squares: r.Squares, Score: r.Score, Result: r.Result, Side: r.Side})
			}
		}
	}
	return out[:n]
}

// BenchmarkStep is one training step at the default sizes on every core:
// samples/s is the trainer's speed.
func BenchmarkStep(b *testing.B) {
	for _, batch := range []int{4096, 16384} {
		b.Run(itoa(batch), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Batch = batch
			cfg.Threads = runtime.GOMAXPROCS(0)
			tr, err := New(cfg, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer tr.Close()
			samples := benchSamples(b, batch)
			idx := make([]uint32, batch)
			for i := range idx {
				idx[i] = uint32(i)
			}
			tr.trainStep(samples, idx)
			b.ReportAllocs()
			cpu0, _ := cputime.Process()
			b.ResetTimer()
			for range b.N {
				tr.trainStep(samples, idx)
			}
			b.StopTimer()
			cpu1, _ := cputime.Process()
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "samples/s")
			// The machine may be shared: samples a CPU-second is the speed
			// a core gives, whatever else runs.
			b.ReportMetric(float64(b.N*batch)/(cpu1-cpu0).Seconds(), "samples/cpu-s")
		})
	}
}

func itoa(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return string(rune('0'+n/1024/10%10)) + string(rune('0'+n/1024%10)) + "k"
	}
	return "n"
}

var _ = nnue.DefaultSizes
