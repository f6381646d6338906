package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomTile builds a Tile with random geometry over fresh buffers, for
// panel width nr. With alias set the residual is the output buffer itself,
// as in the second convolution of a residual block.
func randomTile(rng *rand.Rand, nr int, alias bool) *Tile {
	nseg := 1 + rng.IntN(3)
	seglen := 1 + rng.IntN(70)
	segstride := rng.IntN(2 * seglen)
	span := (nseg-1)*segstride + seglen
	t := &Tile{NSeg: nseg, SegLen: seglen, SegStride: segstride, ReLU: rng.IntN(2) == 0,
		Aoff: make([]int, MR), Coff: make([]int, MR)}
	t.A = randSlice(rng, span+rng.IntN(100))
	t.W = randSlice(rng, nseg*seglen*nr)
	t.Bias = randSlice(rng, nr)
	t.C = randSlice(rng, MR*nr+rng.IntN(64))
	for r := 0; r < MR; r++ {
		t.Aoff[r] = rng.IntN(len(t.A) - span + 1)
	}
	// Distinct output rows (rows of one Tile never share outputs).
	for _, r := range rng.Perm(MR) {
		t.Coff[r] = r * nr
	}
	shift := rng.IntN(len(t.C) - MR*nr + 1)
	for r := range t.Coff {
		t.Coff[r] += shift
	}
	switch {
	case alias:
		t.Res = t.C
	case rng.IntN(2) == 0:
		t.Res = randSlice(rng, len(t.C))
	}
	return t
}

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

func cloneTile(t *Tile) *Tile {
	u := *t
	u.C = append([]float32(nil), t.C...)
	switch {
	case t.Res == nil:
	case &t.Res[0] == &t.C[0]:
		u.Res = u.C
	default:
		u.Res = append([]float32(nil), t.Res...)
	}
	return &u
}

// TestKernelsMatchTwin runs every kernel of this build against Ref,
// its plain-loop twin, on random tiles.
func TestKernelsMatchTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range Kernels {
		for i := 0; i < 500; i++ {
			want := randomTile(rng, k.NR, i%3 == 0)
			got := cloneTile(want)
			Ref(want, k.NR)
			k.Run(got)
			// Both sum up to 3*70 products of N(0,1) values; float32
			// rounding in a different order (and FMA) stays far below
			// this bound.
			for j := range want.C {
				if d := math.Abs(float64(got.C[j] - want.C[j])); d > 1e-4 {
					t.Fatalf("%s, Tile %d (nseg %d, seglen %d, segstride %d, relu %v, residual %v): c[%d] = %g, twin says %g",
						k.Name, i, want.NSeg, want.SegLen, want.SegStride, want.ReLU, want.Res != nil, j, got.C[j], want.C[j])
				}
			}
		}
	}
}

func TestCheckTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range Kernels {
		for _, spoil := range []func(*Tile){
			func(t *Tile) { t.Aoff[2] = len(t.A) },
			func(t *Tile) { t.Aoff[5] = -1 },
			func(t *Tile) { t.Coff[0] = len(t.C) - k.NR + 1 },
			func(t *Tile) { t.W = t.W[:len(t.W)-1] },
			func(t *Tile) { t.Bias = t.Bias[:k.NR-1] },
			func(t *Tile) { t.Aoff = t.Aoff[:MR-1] },
			func(t *Tile) { t.Res = t.Res[:0:0] },
		} {
			tl := randomTile(rng, k.NR, true)
			spoil(tl)
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: a Tile out of bounds did not panic", k.Name)
					}
				}()
				k.Run(tl)
			}()
		}
	}
}

// BenchmarkKernel measures one tile of a 3x3 convolution over 64 channels
// (the Xiangqi tower's shape) with each kernel: the peak Forward can reach.
func BenchmarkKernel(b *testing.B) {
	for _, k := range Kernels {
		b.Run(k.Name, func(b *testing.B) {
			const c, wp = 64, 11
			t := &Tile{NSeg: 3, SegLen: 3 * c, SegStride: wp * c, ReLU: true,
				Aoff: []int{0, c, 2 * c, 3 * c, 4 * c, 5 * c}, Coff: make([]int, MR)}
			t.A = make([]float32, 3*wp*c)
			t.W = make([]float32, 9*c*k.NR)
			t.Bias = make([]float32, k.NR)
			t.C = make([]float32, MR*k.NR)
			for r := range t.Coff {
				t.Coff[r] = r * k.NR
			}
			for i := range t.A {
				t.A[i] = float32(i%7) - 3
			}
			for b.Loop() {
				k.Run(t)
			}
			b.ReportMetric(float64(b.N)*2*MR*9*c*float64(k.NR)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// TestFor checks the kernel choice against every kernel of the build: For
// stays on the fastest ISA and no kernel of it pads the width less.
func TestFor(t *testing.T) {
	for n := 1; n <= 200; n++ {
		k := For(n)
		if k.ISA != Default.ISA {
			t.Fatalf("For(%d) = %s on %s, the fastest kernel runs on %s", n, k.Name, k.ISA, Default.ISA)
		}
		if p := RoundUp(n, k.NR); p < n || p%k.NR != 0 || p-n >= k.NR {
			t.Fatalf("RoundUp(%d, %d) = %d", n, k.NR, p)
		}
		for _, o := range Kernels {
			if o.ISA == k.ISA && RoundUp(n, o.NR) < RoundUp(n, k.NR) {
				t.Fatalf("For(%d) = %s pads to %d, %s to %d", n, k.Name, RoundUp(n, k.NR), o.Name, RoundUp(n, o.NR))
			}
		}
	}
}

// Every micro-kernel computes microRef's sums (up to rounding: the
// assembly fuses each multiply-add), with and without accumulation, on a
// padded C whose padding it leaves alone; calls out of bounds panic.
func TestMicroMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, mk := range Micros {
		for _, k := range []int{1, 2, 3, 7, 64, 257} {
			for _, acc := range []bool{false, true} {
				ldc := mk.NR + 3
				a, b := randSlice(rng, k*mk.MR), randSlice(rng, k*mk.NR)
				c := randSlice(rng, mk.MR*ldc)
				want := append([]float32(nil), c...)
				microRef(mk.MR, mk.NR, k, a, b, want, ldc, acc)
				mk.Run(k, a, b, c, ldc, acc)
				for i := range c {
					d := math.Abs(float64(c[i] - want[i]))
					if i%ldc >= mk.NR && d != 0 || !(d <= 1e-5*math.Sqrt(float64(k))*(1+math.Abs(float64(want[i])))) {
						t.Fatalf("%s k=%d accumulate=%v: c[%d] = %v, want %v", mk.Name, k, acc, i, c[i], want[i])
					}
				}
			}
		}
		a, b, c := make([]float32, 8*mk.MR), make([]float32, 8*mk.NR), make([]float32, mk.MR*mk.NR)
		for _, call := range []func(){
			func() { mk.Run(8, a[1:], b, c, mk.NR, false) },
			func() { mk.Run(8, a, b[1:], c, mk.NR, false) },
			func() { mk.Run(8, a, b, c[1:], mk.NR, false) },
			func() { mk.Run(8, a, b, c, mk.NR-1, false) },
			func() { mk.Run(0, a, b, c, mk.NR, false) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: a call out of bounds did not panic", mk.Name)
					}
				}()
				call()
			}()
		}
	}
}

// BenchmarkMicro measures each micro-kernel on operands in the first-level
// cache (one pass of kc): the peak Sgemm can reach.
func BenchmarkMicro(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mk := range Micros {
		b.Run(mk.Name, func(b *testing.B) {
			pa, pb, c := randSlice(rng, kc*mk.MR), randSlice(rng, kc*mk.NR), make([]float32, mk.MR*mk.NR)
			for b.Loop() {
				mk.Run(kc, pa, pb, c, mk.NR, true)
			}
			b.ReportMetric(float64(b.N)*2*float64(mk.MR*mk.NR*kc)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
