package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The float32 input transform is Bᵀ d B of every tile's patch (against
// the literature's matrices), and the Go twin gives the same bits; the
// AVX2 kernel takes channels in vectors of eight (12 runs the twin).
func TestWinogradInputF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 32))
	for _, tc := range []struct{ tiles, ch int }{{1, 8}, {5, 48}, {4, 32}, {3, 16}, {2, 12}} {
		xi := tc.tiles*tc.ch + 16
		var rows [4][]float32
		for r := range rows {
			rows[r] = randNormal(rng, (2*tc.tiles+2)*tc.ch)
		}
		got, twin := make([]float32, 16*xi), make([]float32, 16*xi)
		WinogradInputF32(got, xi, rows, tc.tiles, tc.ch)
		winogradInputF32Go(twin, xi, rows, tc.tiles, tc.ch)
		for j := range tc.tiles {
			for c := range tc.ch {
				for e := range 16 {
					i := e*xi + j*tc.ch + c
					if math.Float32bits(got[i]) != math.Float32bits(twin[i]) {
						t.Fatalf("%+v tile %d channel %d element %d: %v, the twin %v", tc, j, c, e, got[i], twin[i])
					}
					var s float64
					for r := range 4 {
						for q := range 4 {
							s += bt[e/4][r] * float64(rows[r][(2*j+q)*tc.ch+c]) * bt[e%4][q]
						}
					}
					if d := math.Abs(float64(got[i]) - s); d > 1e-5*(1+math.Abs(s)) {
						t.Fatalf("%+v tile %d channel %d element %d: %v, want %v", tc, j, c, e, got[i], s)
					}
				}
			}
		}
	}
}

// The float32 gradient transform is A dY Aᵀ of every tile's 2x2 block,
// and the Go twin gives the same bits.
func TestWinogradDyF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 32))
	for _, tc := range []struct{ tiles, ch int }{{1, 8}, {5, 48}, {4, 32}, {2, 12}} {
		xi := tc.tiles*tc.ch + 16
		dy := [2][]float32{randNormal(rng, 2*tc.tiles*tc.ch), randNormal(rng, 2*tc.tiles*tc.ch)}
		got, twin := make([]float32, 16*xi), make([]float32, 16*xi)
		WinogradDyF32(got, xi, dy, tc.tiles, tc.ch)
		winogradDyF32Go(twin, xi, dy, tc.tiles, tc.ch)
		for j := range tc.tiles {
			for c := range tc.ch {
				for e := range 16 {
					i := e*xi + j*tc.ch + c
					if math.Float32bits(got[i]) != math.Float32bits(twin[i]) {
						t.Fatalf("%+v tile %d channel %d element %d: %v, the twin %v", tc, j, c, e, got[i], twin[i])
					}
					var s float64 // E = A dY Aᵀ, A being (Aᵀ)ᵀ
					for a := range 2 {
						for b := range 2 {
							s += at[a][e/4] * float64(dy[a][(2*j+b)*tc.ch+c]) * at[b][e%4]
						}
					}
					if d := math.Abs(float64(got[i]) - s); d > 1e-6*(1+math.Abs(s)) {
						t.Fatalf("%+v tile %d channel %d element %d: %v, want %v", tc, j, c, e, got[i], s)
					}
				}
			}
		}
	}
}

// The float32 filter transform is G g Gᵀ, in [ξ][in][out].
func TestWinogradFiltersF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 32))
	in, out := 16, 32
	w := randNormal(rng, out*in*9)
	u := make([]float32, 16*in*out)
	WinogradFiltersF32(u, w, in, out, 0, out)
	for o := range out {
		for c := range in {
			for e := range 16 {
				var s float64
				for r := range 3 {
					for q := range 3 {
						s += gm[e/4][r] * float64(w[(o*in+c)*9+3*r+q]) * gm[e%4][q]
					}
				}
				if got := u[e*in*out+c*out+o]; math.Abs(float64(got)-s) > 1e-5*(1+math.Abs(s)) {
					t.Fatalf("filter %d channel %d element %d: %v, want %v", o, c, e, got, s)
				}
			}
		}
	}
}

// DotF32 is the matrix product, with a read in rows or transposed, for
// row counts on and off the kernel's groups of six, from zero or added.
func TestDotF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 32))
	for _, tc := range []struct {
		rows, k, np int
		trans, acc  bool
	}{{6, 1, 1, false, false}, {126, 48, 3, false, false}, {48, 125, 2, true, true}, {7, 9, 1, false, true}, {12, 32, 2, true, false}} {
		n := 16 * tc.np
		ars, aks := tc.k+3, 1
		if tc.trans {
			ars, aks = 1, tc.rows+2
		}
		a := randNormal(rng, (tc.rows-1)*ars+(tc.k-1)*aks+1)
		ldb, ldc := n+5, n+7
		b := randNormal(rng, (tc.k-1)*ldb+n)
		c0 := randNormal(rng, (tc.rows-1)*ldc+n)
		got, twin := append([]float32(nil), c0...), append([]float32(nil), c0...)
		DotF32(got, ldc, a, ars, aks, tc.rows, b, ldb, tc.k, tc.np, tc.acc)
		dotF32Go(twin, ldc, a, ars, aks, tc.rows, b, ldb, tc.k, tc.np, tc.acc)
		for r := range tc.rows {
			for j := range n {
				var s float64
				if tc.acc {
					s = float64(c0[r*ldc+j])
				}
				for kk := range tc.k {
					s += float64(a[r*ars+kk*aks]) * float64(b[kk*ldb+j])
				}
				for _, g := range []float32{got[r*ldc+j], twin[r*ldc+j]} {
					if math.Abs(float64(g)-s) > 1e-5*(1+math.Abs(s))*math.Sqrt(float64(tc.k)) {
						t.Fatalf("%+v row %d column %d: %v (kernel) / %v (twin), want %v", tc, r, j, got[r*ldc+j], twin[r*ldc+j], s)
					}
				}
			}
		}
		for i := range c0 { // past the columns: untouched
			if r, j := i/ldc, i%ldc; j >= n && got[i] != c0[i] {
				t.Fatalf("%+v row %d column %d written", tc, r, j)
			}
		}
	}
}
