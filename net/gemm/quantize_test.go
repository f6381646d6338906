package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Quantize and every assembly loop this CPU runs give the twin's bytes
// exactly, on every length around the vector widths, for values below
// zero, past the top, on the rounding boundaries and in between; and the
// twin rounds as documented.
func TestQuantizeMatchesTwin(t *testing.T) {
	impls := map[string]func(dst []uint8, src []float32, inv float32, top uint8){"Quantize": Quantize}
	for _, q := range quantizeAsms() {
		impls[q.name] = func(dst []uint8, src []float32, inv float32, top uint8) { quantizeWith(&q, dst, src, inv, top) }
	}
	if len(impls) == 1 {
		t.Log("no assembly here (or -tags noasm): Quantize is the twin itself")
	}
	for name, quantize := range impls {
		for _, top := range []uint8{255, 127} {
			t.Run(fmt.Sprintf("%s/top%d", name, top), func(t *testing.T) { checkQuantize(t, quantize, top) })
		}
	}
	for _, c := range []struct {
		v         float32
		top, want uint8
	}{{-3, 255, 0}, {0, 255, 0}, {0.49, 255, 0}, {0.5, 255, 1}, {1.49, 255, 1}, {254.49, 255, 254}, {254.5, 255, 255}, {300, 255, 255}, {float32(math.Inf(1)), 255, 255},
		{126.49, 127, 126}, {126.5, 127, 127}, {127.5, 127, 127}, {200, 127, 127}, {float32(math.Inf(1)), 127, 127}} {
		var b [1]uint8
		quantizeGo(b[:], []float32{c.v}, 1, c.top)
		if b[0] != c.want {
			t.Errorf("quantizeGo(%v, top %d) = %d, want %d", c.v, c.top, b[0], c.want)
		}
	}
}

func checkQuantize(t *testing.T, quantize func(dst []uint8, src []float32, inv float32, top uint8), top uint8) {
	rng := rand.New(rand.NewPCG(13, 14))
	const inv = 1 / float32(0.037)
	special := []float32{0, -0, -1, 1e-40, 0.5 / inv, 1.5 / inv, 126.5 / inv, 127 / inv, 128 / inv, 254.5 / inv, 255 / inv, 256 / inv, 1e30, -1e30, float32(math.Inf(1)), float32(math.Inf(-1))}
	for n := 0; n <= 70; n++ {
		src := make([]float32, n)
		for i := range src {
			if rng.IntN(4) == 0 {
				src[i] = special[rng.IntN(len(special))]
			} else {
				src[i] = float32(rng.NormFloat64() * 5)
			}
		}
		got, want := make([]uint8, n+1), make([]uint8, n+1)
		got[n], want[n] = 7, 7 // the byte past the end stays
		quantize(got, src, inv, top)
		quantizeGo(want[:n], src, inv, top)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("n=%d: byte %d of %v is %d, the twin says %d", n, i, src[i%max(n, 1)], got[i], want[i])
			}
		}
	}
}

func BenchmarkQuantize(b *testing.B) {
	src, dst := randSlice(rand.New(rand.NewPCG(1, 2)), 90*48), make([]uint8, 90*48)
	var avx2 *quantizeAsm // nil (Go only) where the CPU lacks AVX2
	for _, q := range quantizeAsms() {
		if q.name == "avx2" {
			avx2 = &q
		}
	}
	for _, impl := range []struct {
		name string
		run  func()
	}{{"Quantize", func() { Quantize(dst, src, 3, 255) }}, {"avx2", func() { quantizeWith(avx2, dst, src, 3, 255) }}, {"go", func() { quantizeGo(dst, src, 3, 255) }}} {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				impl.run()
			}
			b.ReportMetric(float64(b.N*len(src))/b.Elapsed().Seconds()/1e9, "Gvalues/s")
		})
	}
}
