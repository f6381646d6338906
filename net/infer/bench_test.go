package infer

import (
	"fmt"
	"testing"
)

// BenchmarkForward measures Forward on the presets at batch 1, 16 and 64
// with every kernel this build and CPU can run (the first is the default):
// positions per second and achieved GFLOP/s (multiply-adds of the
// convolutions and dense layers, 2 FLOPs each: net.Spec.ForwardFLOPs).
func BenchmarkForward(b *testing.B) {
	for _, k := range kernels {
		for _, name := range presets {
			s := presetSpec(b, name)
			p := randomParams(b, s, 1)
			n := newNet(p, 64, k)
			for _, batch := range []int{1, 16, 64} {
				b.Run(fmt.Sprintf("%s/%s/batch=%d", k.name, name, batch), func(b *testing.B) {
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

// BenchmarkKernel measures one tile of a 3x3 convolution over 64 channels
// (the Xiangqi tower's shape) with each kernel: the peak Forward can reach.
func BenchmarkKernel(b *testing.B) {
	for _, k := range kernels {
		b.Run(k.name, func(b *testing.B) {
			const c, wp = 64, 11
			t := &tile{nseg: 3, seglen: 3 * c, segstride: wp * c, relu: true,
				aoff: []int{0, c, 2 * c, 3 * c, 4 * c, 5 * c}, coff: make([]int, mr)}
			t.a = make([]float32, 3*wp*c)
			t.w = make([]float32, 9*c*k.nr)
			t.bias = make([]float32, k.nr)
			t.c = make([]float32, mr*k.nr)
			for r := range t.coff {
				t.coff[r] = r * k.nr
			}
			for i := range t.a {
				t.a[i] = float32(i%7) - 3
			}
			for b.Loop() {
				k.run(t)
			}
			b.ReportMetric(float64(b.N)*2*mr*9*c*float64(k.nr)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
