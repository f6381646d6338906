package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// naiveSgemm is the definition, in float64.
func naiveSgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for kk := 0; kk < k; kk++ {
				var av, bv float32
				if tA {
					av = a[kk*lda+i]
				} else {
					av = a[i*lda+kk]
				}
				if tB {
					bv = b[j*ldb+kk]
				} else {
					bv = b[kk*ldb+j]
				}
				s += float64(av) * float64(bv)
			}
			v := float64(alpha) * s
			if beta != 0 {
				v += float64(beta) * float64(c[i*ldc+j])
			}
			c[i*ldc+j] = float32(v)
		}
	}
}

// TestSgemmMatchesDefinition checks every transposition, odd shapes
// (tiles and panels cut short, products deeper than one pass), padded
// leading dimensions and the alpha/beta cases against the definition.
func TestSgemmMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	shapes := [][3]int{{1, 1, 1}, {8, 1, 6}, {7, 33, 40}, {64, 32, 288}, {5, 70, 300}, {130, 9, 600}, {13, 100, 31}, {200, 64, 64}, {32, 288, 700}}
	for _, sh := range shapes {
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, ab := range [][2]float32{{1, 0}, {0.5, 0}, {1, 1}, {-2, 0.25}} {
					m, n, k := sh[0], sh[1], sh[2]
					name := fmt.Sprintf("m=%d n=%d k=%d tA=%v tB=%v alpha=%g beta=%g", m, n, k, tA, tB, ab[0], ab[1])
					rowsA, colsA, rowsB, colsB := storedShapes(tA, tB, m, n, k)
					lda, ldb, ldc := colsA+rng.IntN(3), colsB+rng.IntN(3), n+rng.IntN(3)
					a, b := randSlice(rng, rowsA*lda), randSlice(rng, rowsB*ldb)
					c := randSlice(rng, m*ldc)
					if ab[1] == 0 {
						// beta = 0: C's old contents must not be read.
						for i := range c {
							c[i] = float32(math.NaN())
						}
					}
					want := append([]float32(nil), c...)
					naiveSgemm(tA, tB, m, n, k, ab[0], a, lda, b, ldb, ab[1], want, ldc)
					Sgemm(tA, tB, m, n, k, ab[0], a, lda, b, ldb, ab[1], c, ldc)
					for i := 0; i < m; i++ {
						for j := 0; j < ldc; j++ {
							got, w := c[i*ldc+j], want[i*ldc+j]
							if j >= n {
								// Padding between rows is left alone.
								if !(got == w || math.IsNaN(float64(got)) && math.IsNaN(float64(w))) {
									t.Fatalf("%s: padding c[%d][%d] changed to %g", name, i, j, got)
								}
								continue
							}
							if d := math.Abs(float64(got - w)); !(d <= 1e-4*math.Sqrt(float64(k))*(1+math.Abs(float64(w)))) {
								t.Fatalf("%s: c[%d][%d] = %g, want %g", name, i, j, got, w)
							}
						}
					}
				}
			}
		}
	}
}

// A product's result does not depend on where its operands lie in
// memory (gonum's assembly dot products, which start at an alignment
// boundary, do): training steps stay reproducible from run to run.
func TestSgemmIndependentOfAlignment(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, sh := range [][3]int{{8, 1, 6}, {8, 6, 40}, {64, 7, 13}, {64, 64, 64}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, b := randSlice(rng, m*k+4), randSlice(rng, k*n+4)
		var first []float32
		for shift := 0; shift < 4; shift++ {
			c := make([]float32, m*n)
			Sgemm(false, true, m, n, k, 1, a[shift:shift+m*k], k, b[shift:shift+k*n], k, 0, c, n)
			if shift == 0 {
				first = c
				// The shifted copies below hold the same operands.
				copy(a[1:], append([]float32(nil), a[:m*k]...))
				copy(b[1:], append([]float32(nil), b[:k*n]...))
				continue
			}
			for i := range c {
				if math.Float32bits(c[i]) != math.Float32bits(first[i]) {
					t.Fatalf("m=%d n=%d k=%d: operands shifted by %d floats change c[%d] from %v to %v", m, n, k, shift, i, first[i], c[i])
				}
			}
			copy(a[shift+1:], append([]float32(nil), a[shift:shift+m*k]...))
			copy(b[shift+1:], append([]float32(nil), b[shift:shift+k*n]...))
		}
	}
}

// With alpha 1 and beta 0 the micro-kernels write into C directly, the
// blocks C's edges cut short through scratch; the result is the same with
// every micro-kernel, over one pass and several, whole blocks or not.
func TestSgemmDirectIntoC(t *testing.T) {
	defer func(d Micro) { DefaultMicro = d }(DefaultMicro)
	for _, mk := range Micros {
		DefaultMicro = mk
		t.Run(mk.Name, testSgemmDirectIntoC)
	}
}

func testSgemmDirectIntoC(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range [][3]int{{12 * 20, 64, 64}, {12 * 7, 64, kc + 37}, {12 * 50, 128, 2*kc + 5}, {12*mcTiles + 7, 45, kc + 1}, {37, 100, 70}} {
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				m, n, k := sh[0], sh[1], sh[2]
				rowsA, colsA, rowsB, colsB := storedShapes(tA, tB, m, n, k)
				a, b := randSlice(rng, rowsA*colsA), randSlice(rng, rowsB*colsB)
				c, want := make([]float32, m*n), make([]float32, m*n)
				for i := range c {
					c[i] = float32(math.NaN()) // beta = 0: never read
				}
				naiveSgemm(tA, tB, m, n, k, 1, a, colsA, b, colsB, 0, want, n)
				Sgemm(tA, tB, m, n, k, 1, a, colsA, b, colsB, 0, c, n)
				for i := range c {
					if d := math.Abs(float64(c[i] - want[i])); !(d <= 1e-4*math.Sqrt(float64(k))*(1+math.Abs(float64(want[i])))) {
						t.Fatalf("m=%d n=%d k=%d tA=%v tB=%v: c[%d] = %g, want %g", m, n, k, tA, tB, i, c[i], want[i])
					}
				}
			}
		}
	}
}

// BenchmarkSgemm compares the kernel product with gonum's on the shapes
// of a Connect Four training step (batch 128, 4x32 tower): the forward
// convolution, the input gradient and the weight gradient.
func BenchmarkSgemm(b *testing.B) {
	const pix, c = 128 * 42, 32
	cases := []struct {
		name    string
		tA, tB  bool
		m, n, k int
	}{
		{"forward", false, true, pix, c, 9 * c},
		{"dinput", false, false, pix, 9 * c, c},
		{"dweight", true, false, c, 9 * c, pix},
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, cs := range cases {
		rowsA, colsA := cs.m, cs.k
		if cs.tA {
			rowsA, colsA = cs.k, cs.m
		}
		rowsB, colsB := cs.k, cs.n
		if cs.tB {
			rowsB, colsB = cs.n, cs.k
		}
		a, bm := randSlice(rng, rowsA*colsA), randSlice(rng, rowsB*colsB)
		out := make([]float32, cs.m*cs.n)
		tr := map[bool]blas.Transpose{false: blas.NoTrans, true: blas.Trans}
		for _, impl := range []struct {
			name string
			run  func()
		}{
			{"kernel", func() { Sgemm(cs.tA, cs.tB, cs.m, cs.n, cs.k, 1, a, colsA, bm, colsB, 0, out, cs.n) }},
			{"gonum", func() {
				gonum.Implementation{}.Sgemm(tr[cs.tA], tr[cs.tB], cs.m, cs.n, cs.k, 1, a, colsA, bm, colsB, 0, out, cs.n)
			}},
		} {
			b.Run(cs.name+"/"+impl.name, func(b *testing.B) {
				for b.Loop() {
					impl.run()
				}
				b.ReportMetric(2*float64(cs.m*cs.n*cs.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkSgemmSquare measures Sgemm on N x N x N with each micro-kernel
// on every core: the figure docs/repro/sgemm-vs.sh sets beside OpenBLAS's.
func BenchmarkSgemmSquare(b *testing.B) {
	defer func(d Micro) { DefaultMicro = d }(DefaultMicro)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1024, 2048} {
		a, bm, c := randSlice(rng, n*n), randSlice(rng, n*n), make([]float32, n*n)
		for _, mk := range Micros {
			if mk.Name == "go" && n > 1024 {
				continue // seconds a call
			}
			b.Run(fmt.Sprintf("%s/%d", mk.Name, n), func(b *testing.B) {
				DefaultMicro = mk
				// One call before the timed ones grows the scratch space,
				// as the OpenBLAS reference calls once before its own.
				Sgemm(false, false, n, n, n, 1, a, n, bm, n, 0, c, n)
				for b.Loop() {
					Sgemm(false, false, n, n, n, 1, a, n, bm, n, 0, c, n)
				}
				b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// Adding a one-pass product to C (alpha 1, beta 1) writes into C
// directly and rounds as the product computed alone and then added:
// sum first, C's old value last, bit for bit.
func TestSgemmAddsToC(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, sh := range [][3]int{{90, 90, 32}, {32, 90, 32}, {12 * 9, 64, kc}, {7, 33, 100}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, b := randSlice(rng, m*k), randSlice(rng, k*n)
		ldc := n + 2
		c := randSlice(rng, m*ldc)
		want, prod := append([]float32(nil), c...), make([]float32, m*n)
		Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, prod, n)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				want[i*ldc+j] = prod[i*n+j] + want[i*ldc+j]
			}
		}
		Sgemm(false, false, m, n, k, 1, a, k, b, n, 1, c, ldc)
		for i := range c {
			if math.Float32bits(c[i]) != math.Float32bits(want[i]) {
				t.Fatalf("m=%d n=%d k=%d: c[%d] = %v, want %v", m, n, k, i, c[i], want[i])
			}
		}
	}
}

// A workspace on one core gives the product of one on every core, bit for
// bit: the cores split the tiles of C, not the sums.
func TestSgemmWorkspaceOnOneCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rng := rand.New(rand.NewPCG(9, 10))
	one, all := NewWorkspaceOn(1), NewWorkspace()
	for _, sh := range [][3]int{{12 * 50, 128, 2*kc + 5}, {1440, 48, 48}, {12*mcTiles + 7, 45, kc + 1}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, b := randSlice(rng, m*k), randSlice(rng, n*k)
		c1, c2, want := make([]float32, m*n), make([]float32, m*n), make([]float32, m*n)
		one.Sgemm(false, true, m, n, k, 1, a, k, b, k, 0, c1, n)
		all.Sgemm(false, true, m, n, k, 1, a, k, b, k, 0, c2, n)
		naiveSgemm(false, true, m, n, k, 1, a, k, b, k, 0, want, n)
		tiles := (m + DefaultMicro.MR - 1) / DefaultMicro.MR
		if w1, w := one.workers(m, n, k, tiles), all.workers(m, n, k, tiles); w1 != 1 || w < 2 {
			t.Fatalf("m=%d n=%d k=%d: the products run on %d and %d cores, want 1 and more", m, n, k, w1, w)
		}
		for i := range c1 {
			if math.Float32bits(c1[i]) != math.Float32bits(c2[i]) {
				t.Fatalf("m=%d n=%d k=%d: c[%d] = %g on one core, %g on every core", m, n, k, i, c1[i], c2[i])
			}
			if d := math.Abs(float64(c1[i] - want[i])); !(d <= 1e-4*math.Sqrt(float64(k))*(1+math.Abs(float64(want[i])))) {
				t.Fatalf("m=%d n=%d k=%d: c[%d] = %g, want %g", m, n, k, i, c1[i], want[i])
			}
		}
	}
}
