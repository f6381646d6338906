package infer

import (
	"fmt"
	"testing"

	"github.com/tabula-zero/tabula/net/gemm"
)

// BenchmarkForward measures Forward on the presets at batch 1, 16 and 64
// with every kernel this build and CPU can run (New takes gemm.For the filters):
// positions per second and achieved GFLOP/s (multiply-adds of the
// convolutions and dense layers, 2 FLOPs each: net.Spec.ForwardFLOPs).
func BenchmarkForward(b *testing.B) {
	for _, k := range gemm.Kernels {
		for _, name := range presets {
			s := presetSpec(b, name)
			p := randomParams(b, s, 1)
			n := newNet(p, 64, k)
			for _, batch := range []int{1, 16, 64} {
				b.Run(fmt.Sprintf("%s/%s/batch=%d", k.Name, name, batch), func(b *testing.B) {
					planes := randomPlanes(s, batch, 1)
					pol := make([]float32, batch*s.Actions)
					val := make([]float32, batch)
					for b.Loop() {
						if err := n.Forward(planes, batch, pol, val); err != nil {
							b.Fatal(err)
						}
					}
					pos := float64(b.N*batch) / b.Elapsed().Seconds()
					b.ReportMetric(pos, "pos/s")
					b.ReportMetric(pos*float64(s.ForwardFLOPs())/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// BenchmarkReference measures (*net.Params).Reference, the plain-loop
// pass, at batch 1: the floor the fast path is compared with.
func BenchmarkReference(b *testing.B) {
	for _, name := range presets {
		s := presetSpec(b, name)
		p := randomParams(b, s, 1)
		b.Run(name+"/batch=1", func(b *testing.B) {
			planes := randomPlanes(s, 1, 1)
			for b.Loop() {
				p.Reference(planes, 1)
			}
			pos := float64(b.N) / b.Elapsed().Seconds()
			b.ReportMetric(pos, "pos/s")
			b.ReportMetric(pos*float64(s.ForwardFLOPs())/1e9, "GFLOP/s")
		})
	}
}
