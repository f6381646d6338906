package bnkern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// rowData is a row of n pixels of c channels with the values a batch
// norm meets: ordinary ones, zeros of both signs (a ReLU's +0 output,
// sums that come to -0) and, with nan, a NaN.
func rowData(rng *rand.Rand, n, c int, nan bool) []float32 {
	r := make([]float32, n*c)
	for i := range r {
		switch k := rng.IntN(10); {
		case k == 0:
			r[i] = 0
		case k == 1:
			r[i] = float32(math.Copysign(0, -1))
		default:
			r[i] = float32(rng.NormFloat64() * 3)
		}
	}
	if nan && len(r) > 0 {
		r[rng.IntN(len(r))] = float32(math.NaN())
	}
	return r
}

func vec64(rng *rand.Rand, c int) []float64 {
	v := make([]float64, c)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func same32(a, b []float32) bool {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

func same64(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

var shapes = []struct{ n, c int }{{1, 8}, {9, 8}, {9, 32}, {10, 48}, {9, 64}, {3, 4}, {9, 12}, {7, 2}}

// The dispatched kernels (AVX2 where c is a multiple of 8) give the Go
// twins' bits.
func TestKernelsMatchTheirTwins(t *testing.T) {
	if !useAVX2 {
		t.Skip("this CPU or build has no AVX2 kernels: the Go twins run everywhere")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range shapes {
		for trial := range 20 {
			n, c := sh.n, sh.c
			y, dz := rowData(rng, n, c, trial == 3), rowData(rng, n, c, trial == 5)
			mask := make([]byte, n*MaskBytes(c))
			for i := range mask {
				mask[i] = byte(rng.IntN(256))
			}
			mean, s0, s1 := vec64(rng, c), vec64(rng, c), vec64(rng, c)

			a0, b0 := append([]float64(nil), s0...), append([]float64(nil), s0...)
			Sum(y, a0)
			GoSum(y, b0)
			if !same64(a0, b0) {
				t.Fatalf("Sum n=%d c=%d: %v, Go %v", n, c, a0, b0)
			}
			a1, b1 := append([]float64(nil), s1...), append([]float64(nil), s1...)
			SqDev(y, mean, a1)
			GoSqDev(y, mean, b1)
			if !same64(a1, b1) {
				t.Fatalf("SqDev n=%d c=%d: %v, Go %v", n, c, a1, b1)
			}
			scale, shift := rowData(rng, 1, c, false), rowData(rng, 1, c, false)
			for _, res := range [][]float32{nil, rowData(rng, n, c, false)} {
				ao, bo := make([]float32, n*c), make([]float32, n*c)
				am, bm := append([]byte(nil), mask...), append([]byte(nil), mask...) // stale bits to overwrite
				Norm(y, res, ao, am, scale, shift)
				GoNorm(y, res, bo, bm, scale, shift)
				if !same32(ao, bo) || string(am) != string(bm) {
					t.Fatalf("Norm n=%d c=%d residual %t: %v mask %x, Go %v mask %x", n, c, res != nil, ao, am, bo, bm)
				}
			}
			as0, bs0 := append([]float64(nil), s0...), append([]float64(nil), s0...)
			as1, bs1 := append([]float64(nil), s1...), append([]float64(nil), s1...)
			GradSum(y, dz, mask, mean, as0, as1)
			GoGradSum(y, dz, mask, mean, bs0, bs1)
			if !same64(as0, bs0) || !same64(as1, bs1) {
				t.Fatalf("GradSum n=%d c=%d: s0 %v / %v, s1 %v / %v", n, c, as0, bs0, as1, bs1)
			}
			a, by, d0 := rowData(rng, 1, c, false), rowData(rng, 1, c, false), rowData(rng, 1, c, false)
			for _, withRes := range []bool{false, true} {
				ad, bd := make([]float32, n*c), make([]float32, n*c)
				var ar, br []float32
				if withRes {
					ar, br = make([]float32, n*c), make([]float32, n*c)
				}
				Grad(dz, mask, y, ad, ar, a, by, d0)
				GoGrad(dz, mask, y, bd, br, a, by, d0)
				if !same32(ad, bd) || !same32(ar, br) {
					t.Fatalf("Grad n=%d c=%d residual %t: %v / %v, Go %v / %v", n, c, withRes, ad, ar, bd, br)
				}
			}
		}
	}
}

// The kernels against the formulas, element by element in float64.
func TestKernelsCompute(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-5*(1+math.Abs(b)) }
	for _, sh := range shapes {
		n, c := sh.n, sh.c
		y, dz := rowData(rng, n, c, false), rowData(rng, n, c, false)
		mean := vec64(rng, c)
		s0, s1 := make([]float64, c), make([]float64, c)
		Sum(y, s0)
		SqDev(y, mean, s1)
		for ch := range c {
			var w0, w1 float64
			for p := range n {
				v := float64(y[p*c+ch])
				w0 += v
				w1 += (v - mean[ch]) * (v - mean[ch])
			}
			if !near(s0[ch], w0) || !near(s1[ch], w1) {
				t.Fatalf("n=%d c=%d channel %d: sum %v want %v, squares %v want %v", n, c, ch, s0[ch], w0, s1[ch], w1)
			}
		}
		scale, shift, res := rowData(rng, 1, c, false), rowData(rng, 1, c, false), rowData(rng, n, c, false)
		out, mask := make([]float32, n*c), make([]byte, n*MaskBytes(c))
		for i := range mask {
			mask[i] = 0xff // Norm clears the bits of the outputs that are +0
		}
		Norm(y, res, out, mask, scale, shift)
		for i, v := range out {
			p, ch := i/c, i%c
			want := max(float64(y[i])*float64(scale[ch])+float64(shift[ch])+float64(res[i]), 0)
			if !near(float64(v), want) || math.Signbit(float64(v)) {
				t.Fatalf("Norm n=%d c=%d element %d: %v want %v", n, c, i, v, want)
			}
			if on := mask[p*MaskBytes(c)+ch/8]>>(ch%8)&1 == 1; on != (v != 0) {
				t.Fatalf("Norm n=%d c=%d element %d: output %v, mask bit %t", n, c, i, v, on)
			}
		}
		// The ReLU's gradient: dz where the output is not zero.
		g := make([]float32, n*c)
		for i := range g {
			if out[i] != 0 {
				g[i] = dz[i]
			}
		}
		clear(s0)
		clear(s1)
		GradSum(y, dz, mask, mean, s0, s1)
		for ch := range c {
			var w0, w1 float64
			for p := range n {
				v := float64(g[p*c+ch])
				w0 += v
				w1 += v * (float64(y[p*c+ch]) - mean[ch])
			}
			if !near(s0[ch], w0) || !near(s1[ch], w1) {
				t.Fatalf("GradSum n=%d c=%d channel %d: %v, %v want %v, %v", n, c, ch, s0[ch], s1[ch], w0, w1)
			}
		}
		a, by, d0 := rowData(rng, 1, c, false), rowData(rng, 1, c, false), rowData(rng, 1, c, false)
		dy, dres := make([]float32, n*c), make([]float32, n*c)
		Grad(dz, mask, y, dy, dres, a, by, d0)
		for i, v := range dy {
			ch := i % c
			want := float64(a[ch])*float64(g[i]) + float64(by[ch])*float64(y[i]) + float64(d0[ch])
			if !near(float64(v), want) {
				t.Fatalf("Grad n=%d c=%d element %d: %v want %v", n, c, i, v, want)
			}
			if dres[i] != g[i] {
				t.Fatalf("Grad n=%d c=%d element %d: residual gradient %v want %v", n, c, i, dres[i], g[i])
			}
		}
	}
}

// Norm's ReLU makes -0 +0 (a zero gradient mask reads it as "off") and
// keeps a NaN, as Go's max does.
func TestNormZerosAndNaN(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for _, c := range []int{8, 4} {
		y := make([]float32, c)
		res := make([]float32, c)
		scale, shift := make([]float32, c), make([]float32, c)
		for i := range y {
			y[i], res[i], scale[i], shift[i] = negZero, negZero, 1, negZero
		}
		y[1] = float32(math.NaN())
		out, mask := make([]float32, c), make([]byte, MaskBytes(c))
		Norm(y, res, out, mask, scale, shift)
		for i, v := range out {
			if i == 1 {
				if !math.IsNaN(float64(v)) || mask[0]&2 == 0 {
					t.Errorf("c=%d: NaN in, %v out (mask %08b): a NaN's gradient must pass", c, v, mask[0])
				}
				continue
			}
			if math.Float32bits(v) != 0 {
				t.Errorf("c=%d element %d: -0 in, %v (bits %#x) out, want +0", c, i, v, math.Float32bits(v))
			}
			if mask[i/8]>>(i%8)&1 != 0 {
				t.Errorf("c=%d element %d: a zero output's mask bit is set", c, i)
			}
		}
	}
}

func TestPartialPixelsPanic(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a row of 9 floats of 8 channels was taken")
		}
	}()
	Sum(make([]float32, 9), make([]float64, 8))
}

func BenchmarkKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, c = 9, 48
	y, z, dz := rowData(rng, n, c, false), rowData(rng, n, c, false), rowData(rng, n, c, false)
	mean, s0, s1 := vec64(rng, c), make([]float64, c), make([]float64, c)
	out, g, mask := make([]float32, n*c), make([]float32, n*c), make([]byte, n*MaskBytes(c))
	sc := rowData(rng, 1, c, false)
	for _, k := range []struct {
		name      string
		fast, go_ func()
	}{
		{"sum", func() { Sum(y, s0) }, func() { GoSum(y, s0) }},
		{"sqdev", func() { SqDev(y, mean, s1) }, func() { GoSqDev(y, mean, s1) }},
		{"norm", func() { Norm(y, z, out, mask, sc, sc) }, func() { GoNorm(y, z, out, mask, sc, sc) }},
		{"gradsum", func() { GradSum(y, dz, mask, mean, s0, s1) }, func() { GoGradSum(y, dz, mask, mean, s0, s1) }},
		{"grad", func() { Grad(dz, mask, y, out, g, sc, sc, sc) }, func() { GoGrad(dz, mask, y, out, g, sc, sc, sc) }},
	} {
		for _, v := range []struct {
			name string
			f    func()
		}{{"dispatch", k.fast}, {"go", k.go_}} {
			b.Run(k.name+"/"+v.name, func(b *testing.B) {
				for b.Loop() {
					v.f()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*c), "ns/elem")
			})
		}
	}
}
