package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randNormal fills n floats of spread about 1 with normal numbers only
// (VCVTNEPS2BF16 flushes subnormals, ToBF16 keeps them).
func randNormal(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// bt, g and at are F(2x2, 3x3)'s matrices as the literature writes them
// (Lavin and Gray 2015), the truth the kernels' additions are checked
// against.
var (
	bt = [4][4]float64{{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}}
	gm = [4][3]float64{{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}}
	at = [2][4]float64{{1, 1, 1, 0}, {0, 1, -1, -1}}
)

// The input transform is Bᵀ d B of every tile's patch, rounded to
// bfloat16, and the vector kernel gives the Go twin's bits.
func TestWinogradInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ tiles, ch int }{{1, 16}, {5, 48}, {4, 32}} {
		width := (2*tc.tiles + 2) * tc.ch
		var rows [4][]float32
		for r := range rows {
			rows[r] = randNormal(rng, width+7)
		}
		xi := tc.tiles*tc.ch + 16
		got := make([]BF16, 16*xi)
		twin := make([]BF16, 16*xi)
		WinogradInput(got, xi, rows, tc.tiles, tc.ch)
		winogradInputGo(twin, xi, rows, tc.tiles, tc.ch)
		for j := range tc.tiles {
			for c := range tc.ch {
				for i := range 4 {
					for k := range 4 {
						var s float64
						for r := range 4 {
							for q := range 4 {
								s += bt[i][r] * float64(rows[r][(2*j+q)*tc.ch+c]) * bt[k][q]
							}
						}
						at := (4*i+k)*xi + j*tc.ch + c
						if got[at] != twin[at] {
							t.Fatalf("%+v tile %d channel %d element %d: %#04x, the twin %#04x", tc, j, c, 4*i+k, got[at], twin[at])
						}
						// The float32 sums of four numbers may round before
						// bfloat16 does: within one of its steps.
						if d := math.Abs(float64(FromBF16(got[at])) - s); d > math.Abs(s)/128+1e-6 {
							t.Fatalf("%+v tile %d channel %d element %d: %v, want %v", tc, j, c, 4*i+k, FromBF16(got[at]), s)
						}
					}
				}
			}
		}
	}
}

// The output transform is Aᵀ M A of every tile's sums into the rows,
// without writing the columns and rows it is told to leave, and the
// vector kernel gives the Go twin's bits.
func TestWinogradOutput(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		tiles, ch  int
		half, row1 bool
	}{{1, 16, false, true}, {5, 48, true, true}, {4, 32, false, false}, {3, 16, true, false}} {
		xi := tc.tiles*tc.ch + 32
		m := randNormal(rng, 16*xi)
		width := 2*tc.tiles*tc.ch + tc.ch // one column more: never written
		var got, twin [2][]float32
		for a := range 2 {
			got[a], twin[a] = make([]float32, width), make([]float32, width)
			for i := range width {
				got[a][i], twin[a][i] = 7, 7
			}
		}
		g1, t1 := got[1], twin[1]
		if !tc.row1 {
			g1, t1 = nil, nil
		}
		WinogradOutput(got[0], g1, m, xi, tc.tiles, tc.half, tc.ch)
		winogradOutputGo(twin[0], t1, m, xi, tc.tiles, tc.half, tc.ch)
		for a := range 2 {
			for col := range 2*tc.tiles + 1 {
				j, b := col/2, col%2
				for c := range tc.ch {
					i := col*tc.ch + c
					if got[a][i] != twin[a][i] {
						t.Fatalf("%+v row %d column %d channel %d: %v, the twin %v", tc, a, col, c, got[a][i], twin[a][i])
					}
					written := (a == 0 || tc.row1) && j < tc.tiles && !(tc.half && j == tc.tiles-1 && b == 1)
					if !written {
						if got[a][i] != 7 {
							t.Fatalf("%+v row %d column %d channel %d written: %v", tc, a, col, c, got[a][i])
						}
						continue
					}
					var s float64
					for r := range 4 {
						for q := range 4 {
							s += at[a][r] * float64(m[(4*r+q)*xi+j*tc.ch+c]) * at[b][q]
						}
					}
					if d := math.Abs(float64(got[a][i]) - s); d > 1e-5*(1+math.Abs(s)) {
						t.Fatalf("%+v row %d column %d channel %d: %v, want %v", tc, a, col, c, got[a][i], s)
					}
				}
			}
		}
	}
}

// The pair product is the matrix product of its bfloat16 operands, for
// every panel count and for rows off the groups of eight.
func TestDotPairsBF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct{ rows, kp, np int }{{8, 24, 3}, {27, 24, 3}, {16, 16, 2}, {9, 3, 1}, {3, 1, 3}} {
		n := 16 * tc.np
		lda, ldc := 2*tc.kp+6, n+5
		a := make([]BF16, tc.rows*lda)
		for i := range a {
			a[i] = ToBF16(float32(rng.NormFloat64()))
		}
		b := make([]BF16, tc.kp*n*2)
		for i := range b {
			b[i] = ToBF16(float32(rng.NormFloat64()))
		}
		for _, impl := range []struct {
			name string
			f    func(c []float32, ldc int, a []BF16, lda, rows int, b []BF16, kp, np int, accumulate bool)
		}{{"dispatch", DotPairsBF16}, {"go", dotPairsBF16Go}} {
			c := make([]float32, tc.rows*ldc)
			start := make([]float32, len(c))
			for r := range tc.rows {
				for j := range n {
					start[r*ldc+j] = float32(rng.NormFloat64())
				}
			}
			impl.f(c, ldc, a, lda, tc.rows, b, tc.kp, tc.np, false)
			// Accumulated onto start, the sums differ from c by start.
			acc := append([]float32(nil), start...)
			impl.f(acc, ldc, a, lda, tc.rows, b, tc.kp, tc.np, true)
			for i := range c {
				if d := math.Abs(float64(acc[i] - start[i] - c[i])); d > 1e-4*(1+math.Abs(float64(c[i]))) {
					t.Fatalf("%s %+v: accumulated entry %d: %v from %v, the sums %v", impl.name, tc, i, acc[i], start[i], c[i])
				}
			}
			for r := range tc.rows {
				for j := range ldc {
					if j >= n {
						if c[r*ldc+j] != 0 {
							t.Fatalf("%s %+v: row %d column %d past the panels written", impl.name, tc, r, j)
						}
						continue
					}
					var s, abs float64
					for k := range 2 * tc.kp {
						p := float64(FromBF16(a[r*lda+k])) * float64(FromBF16(b[((k/2)*n+j)*2+k%2]))
						s, abs = s+p, abs+math.Abs(p)
					}
					if math.Abs(float64(c[r*ldc+j])-s) > 1e-5*(1+abs) {
						t.Fatalf("%s %+v: c[%d][%d] = %v, want %v", impl.name, tc, r, j, c[r*ldc+j], s)
					}
				}
			}
		}
	}
}

// The three parts together are the 3x3 correlation: transforms and pair
// products over two channels in, 16 out, on a 4-row strip of an odd
// width, against the definition on the rounded operands.
func TestWinogradCorrelation(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const tiles, cin, cout, w = 4, 32, 16, 7 // board width 7: the last tile half
	// A strip of four padded rows: board rows 0 and 1 with padding above
	// and below, every row padded left and right, one column of slack.
	x := make([][]float32, 4)
	for r := range x {
		x[r] = make([]float32, (2*tiles+2)*cin)
		if r == 0 || r == 3 {
			continue
		}
		for col := 1; col <= w; col++ {
			for c := range cin {
				x[r][col*cin+c] = FromBF16(ToBF16(float32(rng.NormFloat64())))
			}
		}
	}
	wt := make([]float64, cout*cin*9)
	for i := range wt {
		wt[i] = float64(rng.NormFloat64())
	}
	xi := tiles * cin
	v := make([]BF16, 16*xi)
	WinogradInput(v, xi, [4][]float32{x[0], x[1], x[2], x[3]}, tiles, cin)
	// U = G g Gᵀ in pairs of input channels: u[ξ][c/2][o][c%2].
	u := make([]BF16, 16*cin*cout)
	for o := range cout {
		for c := range cin {
			for i := range 4 {
				for k := range 4 {
					var s float64
					for r := range 3 {
						for q := range 3 {
							s += gm[i][r] * wt[(o*cin+c)*9+r*3+q] * gm[k][q]
						}
					}
					u[(4*i+k)*cin*cout+((c/2)*cout+o)*2+c%2] = ToBF16(float32(s))
				}
			}
		}
	}
	m := make([]float32, 16*tiles*cout)
	for e := range 16 {
		DotPairsBF16(m[e*tiles*cout:], cout, v[e*xi:], cin, tiles, u[e*cin*cout:], cin/2, cout/16, false)
	}
	y := [2][]float32{make([]float32, w*cout), make([]float32, w*cout)}
	WinogradOutput(y[0], y[1], m, tiles*cout, tiles, true, cout)
	for a := range 2 {
		for col := range w {
			for o := range cout {
				var s, abs float64
				for r := range 3 {
					for q := range 3 {
						for c := range cin {
							p := float64(x[a+r][(col+q)*cin+c]) * wt[(o*cin+c)*9+r*3+q]
							s, abs = s+p, abs+math.Abs(p)
						}
					}
				}
				// Each operand of the products rounds to bfloat16 once: a
				// relative error of 2^-8 on each of them.
				if d := math.Abs(float64(y[a][col*cout+o]) - s); d > abs/64 {
					t.Fatalf("row %d column %d channel %d: %v, want %v (sum of magnitudes %v)", a, col, o, y[a][col*cout+o], s, abs)
				}
			}
		}
	}
}

// The gradient's transform is A dY Aᵀ of every tile's 2x2 block, rounded
// to bfloat16, and the vector kernel gives the Go twin's bits.
func TestWinogradDy(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	a := [4][2]float64{{1, 0}, {1, 1}, {1, -1}, {0, -1}}
	for _, tc := range []struct{ tiles, ch int }{{1, 16}, {5, 48}, {4, 32}} {
		dy := [2][]float32{randNormal(rng, 2*tc.tiles*tc.ch+5), randNormal(rng, 2*tc.tiles*tc.ch)}
		dy[1][3] = 0 // a zero: its negation keeps the sign bit as Go's
		xi := tc.tiles*tc.ch + 16
		got, twin := make([]BF16, 16*xi), make([]BF16, 16*xi)
		WinogradDy(got, xi, dy, tc.tiles, tc.ch)
		winogradDyGo(twin, xi, dy, tc.tiles, tc.ch)
		for j := range tc.tiles {
			for c := range tc.ch {
				for i := range 4 {
					for k := range 4 {
						var s float64
						for r := range 2 {
							for q := range 2 {
								s += a[i][r] * float64(dy[r][(2*j+q)*tc.ch+c]) * a[k][q]
							}
						}
						at := (4*i+k)*xi + j*tc.ch + c
						if got[at] != twin[at] {
							t.Fatalf("%+v tile %d channel %d element %d: %#04x, the twin %#04x", tc, j, c, 4*i+k, got[at], twin[at])
						}
						if d := math.Abs(float64(FromBF16(got[at])) - s); d > math.Abs(s)/128+1e-6 {
							t.Fatalf("%+v tile %d channel %d element %d: %v, want %v", tc, j, c, 4*i+k, FromBF16(got[at]), s)
						}
					}
				}
			}
		}
	}
}

// The input gradient's transform adds B N Bᵀ of every tile into the
// rows, overlapping tiles each adding their share (with fresh, rows 2 and
// 3 from nothing), and the vector kernel gives the Go twin's bits.
func TestWinogradGradInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, tc := range []struct {
		tiles, ch int
		fresh     bool
	}{{1, 16, false}, {5, 48, false}, {3, 32, false}, {1, 16, true}, {5, 48, true}, {4, 32, true}} {
		xi := tc.tiles*tc.ch + 16
		n := randNormal(rng, 16*xi)
		width := (2*tc.tiles + 3) * tc.ch // a column past the last patch
		var start, got, twin [4][]float32
		for r := range 4 {
			start[r] = randNormal(rng, width)
			got[r] = append([]float32(nil), start[r]...)
			twin[r] = append([]float32(nil), start[r]...)
		}
		WinogradGradInput(got, n, xi, tc.tiles, tc.ch, tc.fresh)
		winogradGradInputGo(twin, n, xi, tc.tiles, tc.ch, tc.fresh)
		for r := range 4 {
			for col := range 2*tc.tiles + 3 {
				for c := range tc.ch {
					i := col*tc.ch + c
					if got[r][i] != twin[r][i] {
						t.Fatalf("%+v row %d column %d channel %d: %v, the twin %v", tc, r, col, c, got[r][i], twin[r][i])
					}
					s := float64(start[r][i])
					if tc.fresh && r >= 2 && col <= 2*tc.tiles+1 {
						s = 0 // stored by the first tile to reach it
					}
					for j := range tc.tiles {
						q := col - 2*j
						if q < 0 || q > 3 {
							continue
						}
						for i2 := range 4 {
							for k := range 4 {
								s += bt[i2][r] * float64(n[(4*i2+k)*xi+j*tc.ch+c]) * bt[k][q]
							}
						}
					}
					if d := math.Abs(float64(got[r][i]) - s); d > 1e-5*(1+math.Abs(s)) {
						t.Fatalf("%+v row %d column %d channel %d: %v, want %v", tc, r, col, c, got[r][i], s)
					}
				}
			}
		}
	}
}

// Pairing rows interleaves them as DotPairsBF16 reads its b.
func TestPairRowsBF16(t *testing.T) {
	for _, tc := range []struct{ n, ch int }{{2, 16}, {8, 48}, {6, 32}} {
		rows := make([]BF16, tc.n*tc.ch)
		for i := range rows {
			rows[i] = BF16(i*7 + 1)
		}
		got := make([]BF16, len(rows))
		PairRowsBF16(got, rows, tc.n, tc.ch)
		for p := range tc.n {
			for c := range tc.ch {
				if g := got[(p/2)*2*tc.ch+2*c+p%2]; g != rows[p*tc.ch+c] {
					t.Fatalf("%+v row %d channel %d: %d, want %d", tc, p, c, g, rows[p*tc.ch+c])
				}
			}
		}
	}
}

// The filters' transform is G g Gᵀ rounded to bfloat16, in both
// layouts, for the output channels asked only, and the vector kernel
// gives the Go twin's bits.
func TestWinogradFilters(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, tc := range []struct{ in, out, o0, o1 int }{{16, 16, 0, 16}, {48, 32, 6, 20}, {32, 48, 0, 48}} {
		w := randNormal(rng, tc.out*tc.in*9)
		n := 16 * tc.in * tc.out
		u, ut := make([]BF16, n), make([]BF16, n)
		twin, twinT := make([]BF16, n), make([]BF16, n)
		for i := range u {
			u[i], ut[i], twin[i], twinT[i] = 0xABCD, 0xABCD, 0xABCD, 0xABCD
		}
		WinogradFilters(u, ut, w, tc.in, tc.out, tc.o0, tc.o1)
		winogradFiltersGo(twin, twinT, w, tc.in, tc.out, tc.o0, tc.o1)
		for o := range tc.out {
			for c := range tc.in {
				for i := range 4 {
					for k := range 4 {
						e := 4*i + k
						at, atT := e*tc.in*tc.out+((c/2)*tc.out+o)*2+c%2, e*tc.in*tc.out+((o/2)*tc.in+c)*2+o%2
						if u[at] != twin[at] || ut[atT] != twinT[atT] {
							t.Fatalf("%+v filter %d/%d element %d: %#04x %#04x, the twin %#04x %#04x", tc, o, c, e, u[at], ut[atT], twin[at], twinT[atT])
						}
						if o < tc.o0 || o >= tc.o1 {
							if u[at] != 0xABCD || ut[atT] != 0xABCD {
								t.Fatalf("%+v filter %d/%d written", tc, o, c)
							}
							continue
						}
						var s float64
						for r := range 3 {
							for q := range 3 {
								s += gm[i][r] * float64(w[(o*tc.in+c)*9+r*3+q]) * gm[k][q]
							}
						}
						if u[at] != ut[atT] || math.Abs(float64(FromBF16(u[at]))-s) > math.Abs(s)/128+1e-6 {
							t.Fatalf("%+v filter %d/%d element %d: %v and %v, want %v", tc, o, c, e, FromBF16(u[at]), FromBF16(ut[atT]), s)
						}
					}
				}
			}
		}
	}
}

// The filters' gradient is Gᵀ dU G of the parts' sums, for the input
// channels asked only, with one, two and three parts, and the vector
// kernel gives the Go twin's bits.
func TestWinogradFilterGrads(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, tc := range []struct{ in, out, c0, c1, parts int }{{16, 16, 0, 16, 1}, {48, 32, 5, 30, 2}, {32, 48, 0, 32, 3}} {
		du := make([][]float32, tc.parts)
		for p := range du {
			du[p] = randNormal(rng, 16*tc.in*tc.out)
		}
		copies := func() [][]float32 {
			c := make([][]float32, len(du))
			for p := range du {
				c[p] = append([]float32(nil), du[p]...)
			}
			return c
		}
		dw, twin := make([]float32, tc.out*tc.in*9), make([]float32, tc.out*tc.in*9)
		for i := range dw {
			dw[i], twin[i] = 7, 7
		}
		WinogradFilterGrads(dw, copies(), tc.in, tc.out, tc.c0, tc.c1)
		winogradFilterGradsGo(twin, copies(), tc.in, tc.out, tc.c0, tc.c1)
		for o := range tc.out {
			for c := range tc.in {
				for r := range 3 {
					for q := range 3 {
						i := (o*tc.in+c)*9 + r*3 + q
						if dw[i] != twin[i] {
							t.Fatalf("%+v filter %d/%d tap %d: %v, the twin %v", tc, o, c, r*3+q, dw[i], twin[i])
						}
						if c < tc.c0 || c >= tc.c1 {
							if dw[i] != 7 {
								t.Fatalf("%+v filter %d/%d written", tc, o, c)
							}
							continue
						}
						var s float64
						for a := range 4 {
							for k := range 4 {
								var m float64
								for p := range du {
									m += float64(du[p][((4*a+k)*tc.in+c)*tc.out+o])
								}
								s += gm[a][r] * m * gm[k][q]
							}
						}
						if math.Abs(float64(dw[i])-s) > 1e-5*(1+math.Abs(s)) {
							t.Fatalf("%+v filter %d/%d tap %d: %v, want %v", tc, o, c, r*3+q, dw[i], s)
						}
					}
				}
			}
		}
	}
}
