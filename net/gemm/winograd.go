package gemm

import "fmt"

// Winograd's F(2x2, 3x3) (Lavin and Gray, 2015) computes a 2x2 block of
// a 3x3 convolution's outputs from a 4x4 patch of its input with 16
// products a channel pair instead of 36: the patch d and the filter g
// are transformed (V = Bᵀ d B, U = G g Gᵀ), multiplied element by element
// and summed over the input channels (16 matrix products, one for each
// of the 16 elements ξ, over all tiles), and transformed back
// (y = Aᵀ M A). With
//
//	Bᵀ = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
//	G  = [1 0 0; ½ ½ ½; ½ -½ ½; 0 0 1]
//	Aᵀ = [1 1 1 0; 0 1 -1 -1]
//
// the transforms are additions only, so they run as memory passes over
// channel vectors; the products run on DotPairsBF16.

// WinogradInput writes the input transforms of tiles 4x4 patches, tile
// j's patch taking columns 2j..2j+3 of the four rows (each ch floats a
// column, ch a multiple of 16), rounded to bfloat16: element ξ of tile
// j, channel c at v[ξ*xiStride + j*ch + c].
func WinogradInput(v []BF16, xiStride int, rows [4][]float32, tiles, ch int) {
	if tiles == 0 {
		return
	}
	if ch <= 0 || ch%16 != 0 || xiStride < tiles*ch || len(v) < 15*xiStride+tiles*ch {
		panic(fmt.Sprintf("gemm: Winograd input of %d tiles of %d channels (element stride %d) into %d", tiles, ch, xiStride, len(v)))
	}
	for r, row := range rows {
		if len(row) < (2*tiles+2)*ch {
			panic(fmt.Sprintf("gemm: Winograd input row %d of %d floats for %d tiles of %d channels", r, len(row), tiles, ch))
		}
	}
	winogradInput(v, xiStride, rows, tiles, ch)
}

func winogradInputGo(v []BF16, xiStride int, rows [4][]float32, tiles, ch int) {
	var d, t [4][4]float32
	for j := range tiles {
		for c := range ch {
			for r := range 4 {
				for q := range 4 {
					d[r][q] = rows[r][(2*j+q)*ch+c]
				}
			}
			for q := range 4 {
				t[0][q] = d[0][q] - d[2][q]
				t[1][q] = d[1][q] + d[2][q]
				t[2][q] = d[2][q] - d[1][q]
				t[3][q] = d[1][q] - d[3][q]
			}
			for i := range 4 {
				out := v[4*i*xiStride+j*ch+c:]
				out[0] = ToBF16(t[i][0] - t[i][2])
				out[xiStride] = ToBF16(t[i][1] + t[i][2])
				out[2*xiStride] = ToBF16(t[i][2] - t[i][1])
				out[3*xiStride] = ToBF16(t[i][1] - t[i][3])
			}
		}
	}
}

// WinogradOutput writes the output transforms of tiles 2x2 blocks from
// their 16 sums (element ξ of tile j, channel c at m[ξ*xiStride + j*ch +
// c]) into two output rows, tile j's block at columns 2j and 2j+1 (ch
// floats a column, a multiple of 16); y1 nil writes the first row only,
// and half writes the last tile's first column only (a board of odd
// height or width).
func WinogradOutput(y0, y1 []float32, m []float32, xiStride, tiles int, half bool, ch int) {
	if tiles == 0 {
		return
	}
	cols := 2 * tiles
	if half {
		cols--
	}
	if ch <= 0 || ch%16 != 0 || xiStride < tiles*ch || len(m) < 15*xiStride+tiles*ch || len(y0) < cols*ch || (y1 != nil && len(y1) < cols*ch) {
		panic(fmt.Sprintf("gemm: Winograd output of %d tiles of %d channels (element stride %d) from %d into %d and %d", tiles, ch, xiStride, len(m), len(y0), len(y1)))
	}
	winogradOutput(y0, y1, m, xiStride, tiles, half, ch)
}

func winogradOutputGo(y0, y1 []float32, m []float32, xiStride, tiles int, half bool, ch int) {
	var s [2][4]float32
	for j := range tiles {
		for c := range ch {
			at := func(r, q int) float32 { return m[(4*r+q)*xiStride+j*ch+c] }
			for q := range 4 {
				s[0][q] = at(0, q) + at(1, q) + at(2, q)
				s[1][q] = at(1, q) - at(2, q) - at(3, q)
			}
			last := half && j == tiles-1
			for a, y := range [2][]float32{y0, y1} {
				if y == nil {
					continue
				}
				y[2*j*ch+c] = s[a][0] + s[a][1] + s[a][2]
				if !last {
					y[(2*j+1)*ch+c] = s[a][1] - s[a][2] - s[a][3]
				}
			}
		}
	}
}

// DotPairsBF16 is c = a b for rows of a holding 2*kp bfloat16s (lda
// apart) and b in pairs of k, 16*np columns a pair ([kp][16*np][2], np 1
// to 3): c[r*ldc+n] = sum over p of a[r*lda+2p]*b[(p*16*np+n)*2] +
// a[r*lda+2p+1]*b[(p*16*np+n)*2+1], sums in float32, as VDPBF16PS adds
// them; with accumulate the sums are added to what c holds.
func DotPairsBF16(c []float32, ldc int, a []BF16, lda, rows int, b []BF16, kp, np int, accumulate bool) {
	if rows == 0 {
		return
	}
	n := 16 * np
	if np < 1 || np > 3 || kp < 1 || lda < 2*kp || ldc < n || len(a) < (rows-1)*lda+2*kp || len(b) < kp*n*2 || len(c) < (rows-1)*ldc+n {
		panic(fmt.Sprintf("gemm: bf16 pair product of %d rows (a %d apart in %d), %d pairs of k, %d panels (b %d), into %d (%d apart)", rows, lda, len(a), kp, np, len(b), len(c), ldc))
	}
	dotPairsBF16(c, ldc, a, lda, rows, b, kp, np, accumulate)
}

func dotPairsBF16Go(c []float32, ldc int, a []BF16, lda, rows int, b []BF16, kp, np int, accumulate bool) {
	n := 16 * np
	for r := range rows {
		ar := a[r*lda:][:2*kp]
		cr := c[r*ldc:][:n]
		for j := range cr {
			var s float32
			if accumulate {
				s = cr[j]
			}
			for p := range kp {
				bp := b[(p*n+j)*2:][:2]
				s += FromBF16(ar[2*p+1]) * FromBF16(bp[1])
				s += FromBF16(ar[2*p]) * FromBF16(bp[0])
			}
			cr[j] = s
		}
	}
}

// WinogradDy writes the transforms E = A dY Aᵀ of tiles 2x2 blocks of a
// gradient (tile j's block at columns 2j and 2j+1 of the two rows, ch
// floats a column, a multiple of 16), rounded to bfloat16: element ξ of
// tile j, channel c at e[ξ*xiStride + j*ch + c]. They are what both
// gradients of Winograd's convolution take: dV = U ⊙ E summed over the
// output channels for the input's, E ⊙ V summed over the tiles for the
// weights'.
func WinogradDy(e []BF16, xiStride int, dy [2][]float32, tiles, ch int) {
	if tiles == 0 {
		return
	}
	if ch <= 0 || ch%16 != 0 || xiStride < tiles*ch || len(e) < 15*xiStride+tiles*ch || len(dy[0]) < 2*tiles*ch || len(dy[1]) < 2*tiles*ch {
		panic(fmt.Sprintf("gemm: Winograd gradient transform of %d tiles of %d channels (element stride %d, rows %d and %d) into %d", tiles, ch, xiStride, len(dy[0]), len(dy[1]), len(e)))
	}
	winogradDy(e, xiStride, dy, tiles, ch)
}

func winogradDyGo(e []BF16, xiStride int, dy [2][]float32, tiles, ch int) {
	var r [4][2]float32
	for j := range tiles {
		for c := range ch {
			a, b := dy[0][2*j*ch+c], dy[0][(2*j+1)*ch+c]
			d, f := dy[1][2*j*ch+c], dy[1][(2*j+1)*ch+c]
			r[0] = [2]float32{a, b}
			r[1] = [2]float32{a + d, b + f}
			r[2] = [2]float32{a - d, b - f}
			r[3] = [2]float32{-d, -f}
			for i := range 4 {
				out := e[4*i*xiStride+j*ch+c:]
				out[0] = ToBF16(r[i][0])
				out[xiStride] = ToBF16(r[i][0] + r[i][1])
				out[2*xiStride] = ToBF16(r[i][0] - r[i][1])
				out[3*xiStride] = ToBF16(-r[i][1])
			}
		}
	}
}

// WinogradGradInput adds the input gradients B N Bᵀ of tiles 4x4 patches
// (element ξ of tile j, channel c of their sums at n[ξ*xiStride + j*ch +
// c]) into four rows, tile j's patch at columns 2j..2j+3 (ch floats a
// column, a multiple of 16): neighbouring patches overlap by two
// columns, each adding its share, in tile order. With fresh, rows 2 and
// 3 hold nothing yet: the first tile stores its four columns there and
// every other tile its last two, so that they need not be cleared first.
func WinogradGradInput(rows [4][]float32, n []float32, xiStride, tiles, ch int, fresh bool) {
	if tiles == 0 {
		return
	}
	if ch <= 0 || ch%16 != 0 || xiStride < tiles*ch || len(n) < 15*xiStride+tiles*ch {
		panic(fmt.Sprintf("gemm: Winograd input gradient of %d tiles of %d channels (element stride %d) from %d", tiles, ch, xiStride, len(n)))
	}
	for r, row := range rows {
		if len(row) < (2*tiles+2)*ch {
			panic(fmt.Sprintf("gemm: Winograd input gradient row %d of %d floats for %d tiles of %d channels", r, len(row), tiles, ch))
		}
	}
	winogradGradInput(rows, n, xiStride, tiles, ch, fresh)
}

func winogradGradInputGo(rows [4][]float32, n []float32, xiStride, tiles, ch int, fresh bool) {
	var q [4][4]float32
	for j := range tiles {
		for c := range ch {
			at := func(r, k int) float32 { return n[(4*r+k)*xiStride+j*ch+c] }
			for k := range 4 {
				q[0][k] = at(0, k)
				q[1][k] = at(1, k) - at(2, k) + at(3, k)
				q[2][k] = at(1, k) + at(2, k) - at(0, k)
				q[3][k] = -at(3, k)
			}
			for r, row := range rows {
				at := row[2*j*ch+c:]
				v := [4]float32{q[r][0], q[r][1] - q[r][2] + q[r][3], q[r][1] + q[r][2] - q[r][0], -q[r][3]}
				for k, x := range v {
					if fresh && r >= 2 && (j == 0 || k >= 2) {
						at[k*ch] = x
					} else {
						at[k*ch] += x
					}
				}
			}
		}
	}
}

// PairRowsBF16 interleaves n rows of ch bfloat16s (n even, ch a multiple
// of 16) into pairs of rows: pairs[(p/2)*2*ch + 2c + p%2] = rows[p*ch +
// c], the layout DotPairsBF16 takes its b in, with the rows as its k.
func PairRowsBF16(pairs, rows []BF16, n, ch int) {
	if n%2 != 0 || ch <= 0 || ch%16 != 0 || len(rows) < n*ch || len(pairs) < n*ch {
		panic(fmt.Sprintf("gemm: pairing %d rows of %d bfloat16s (%d) into %d", n, ch, len(rows), len(pairs)))
	}
	pairRowsBF16(pairs, rows, n, ch)
}

func pairRowsBF16Go(pairs, rows []BF16, n, ch int) {
	for p := range n {
		for c, v := range rows[p*ch : (p+1)*ch] {
			pairs[(p/2)*2*ch+2*c+p%2] = v
		}
	}
}

// WinogradFilters writes U = G g Gᵀ of the filters of output channels
// [o0, o1) (even bounds) of w (out, in, 3, 3), rounded to bfloat16, in
// the two layouts the products take: u[ξ*in*out + ((c/2)*out+o)*2 + c%2]
// (pairs of input channels, the forward pass's) and ut[ξ*in*out +
// ((o/2)*in+c)*2 + o%2] (pairs of output channels, the input
// gradient's). in and out are multiples of 16.
func WinogradFilters(u, ut []BF16, w []float32, in, out, o0, o1 int) {
	if in <= 0 || in%16 != 0 || out <= 0 || out%16 != 0 || o0 < 0 || o0 > o1 || o1 > out || o0%2 != 0 || o1%2 != 0 ||
		len(w) < out*in*9 || len(u) < 16*in*out || len(ut) < 16*in*out {
		panic(fmt.Sprintf("gemm: Winograd filters [%d, %d) of %d x %d from %d into %d and %d", o0, o1, out, in, len(w), len(u), len(ut)))
	}
	winogradFilters(u, ut, w, in, out, o0, o1)
}

func winogradFiltersGo(u, ut []BF16, w []float32, in, out, o0, o1 int) {
	for o := o0; o < o1; o++ {
		for ci := range in {
			t := winogradFilterTile(w[(o*in+ci)*9:][:9])
			for j, v := range t {
				x := ToBF16(v)
				u[j*in*out+((ci/2)*out+o)*2+ci%2] = x
				ut[j*in*out+((o/2)*in+ci)*2+o%2] = x
			}
		}
	}
}

// WinogradFilterGrads writes the weight gradients dw = Gᵀ dU G (dw as
// w, (out, in, 3, 3)) of input channels [c0, c1) from the sums dU of
// several parts (each [ξ][in][out], added in part order). in and out
// are multiples of 16.
func WinogradFilterGrads(dw []float32, du [][]float32, in, out, c0, c1 int) {
	if in <= 0 || in%16 != 0 || out <= 0 || out%16 != 0 || c0 < 0 || c0 > c1 || c1 > in || len(dw) < out*in*9 || len(du) == 0 {
		panic(fmt.Sprintf("gemm: Winograd filter gradients [%d, %d) of %d x %d into %d from %d parts", c0, c1, out, in, len(dw), len(du)))
	}
	for _, p := range du {
		if len(p) < 16*in*out {
			panic(fmt.Sprintf("gemm: Winograd filter gradients from a part of %d sums, want %d", len(p), 16*in*out))
		}
	}
	winogradFilterGrads(dw, du, in, out, c0, c1)
}

func winogradFilterGradsGo(dw []float32, du [][]float32, in, out, c0, c1 int) {
	for ci := c0; ci < c1; ci++ {
		for o := range out {
			var m [4][4]float32
			for e := range 16 {
				i := (e*in+ci)*out + o
				s := du[0][i]
				for _, p := range du[1:] {
					s += p[i]
				}
				m[e/4][e%4] = s
			}
			var h [3][4]float32 // Gᵀ dU
			for k := range 4 {
				h[0][k] = m[0][k] + 0.5*(m[1][k]+m[2][k])
				h[1][k] = 0.5 * (m[1][k] - m[2][k])
				h[2][k] = 0.5*(m[1][k]+m[2][k]) + m[3][k]
			}
			g := dw[(o*in+ci)*9:][:9]
			for r := range 3 {
				g[3*r] = h[r][0] + 0.5*(h[r][1]+h[r][2])
				g[3*r+1] = 0.5 * (h[r][1] - h[r][2])
				g[3*r+2] = 0.5*(h[r][1]+h[r][2]) + h[r][3]
			}
		}
	}
}

// winogradFilterTile is F(2x2, 3x3)'s transform G g G^T of one 3x3 filter
// g (row-major): the 4x4 tile, element 4*i+k at row i, column k.
func winogradFilterTile(g []float32) [16]float32 {
	var h [4][3]float32 // G g
	for q := range 3 {
		h[0][q] = g[q]
		h[1][q] = 0.5 * (g[q] + g[3+q] + g[6+q])
		h[2][q] = 0.5 * (g[q] - g[3+q] + g[6+q])
		h[3][q] = g[6+q]
	}
	var t [16]float32
	for i := range 4 {
		t[4*i], t[4*i+1], t[4*i+2], t[4*i+3] = h[i][0], 0.5*(h[i][0]+h[i][1]+h[i][2]), 0.5*(h[i][0]-h[i][1]+h[i][2]), h[i][2]
	}
	return t
}
