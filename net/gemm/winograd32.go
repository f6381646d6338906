package gemm

import "fmt"

// The float32 twins of WinogradInput, WinogradDy and WinogradFilters, for
// Winograd's products in float32 on Sgemm (the transforms keep float32;
// WinogradOutput, WinogradGradInput and WinogradFilterGrads already read
// float32 sums). Go loops over the channels of a column, innermost, so
// that the compiler drops the bounds checks.

// WinogradInputF32 is WinogradInput in float32: element ξ of tile j,
// channel c at v[ξ*xiStride + j*ch + c].
func WinogradInputF32(v []float32, xiStride int, rows [4][]float32, tiles, ch int) {
	if tiles == 0 {
		return
	}
	if ch <= 0 || xiStride < tiles*ch || len(v) < 15*xiStride+tiles*ch {
		panic(fmt.Sprintf("gemm: float32 Winograd input of %d tiles of %d channels (element stride %d) into %d", tiles, ch, xiStride, len(v)))
	}
	for r, row := range rows {
		if len(row) < (2*tiles+2)*ch {
			panic(fmt.Sprintf("gemm: float32 Winograd input row %d of %d floats for %d tiles of %d channels", r, len(row), tiles, ch))
		}
	}
	winogradInputF32(v, xiStride, rows, tiles, ch)
}

func winogradInputF32Go(v []float32, xiStride int, rows [4][]float32, tiles, ch int) {
	for j := range tiles {
		var d [4][4][]float32
		for r := range 4 {
			for q := range 4 {
				d[r][q] = rows[r][(2*j+q)*ch:][:ch]
			}
		}
		var o [16][]float32
		for e := range o {
			o[e] = v[e*xiStride+j*ch:][:ch]
		}
		// Row i of Bᵀ d is rows a and b combined (a-b, a+b, b-a, a-b);
		// its four columns are then combined by B.
		inputRow(o[0:4], d[0], d[2], false)
		inputRow(o[4:8], d[1], d[2], true)
		inputRow(o[8:12], d[2], d[1], false)
		inputRow(o[12:16], d[1], d[3], false)
	}
}

// inputRow writes the four elements of one row of Bᵀ d B, the row's
// columns being a + b (sum) or a - b: t0 - t2, t1 + t2, t2 - t1, t1 - t3.
func inputRow(o [][]float32, a, b [4][]float32, sum bool) {
	n := len(o[0])
	o0, o1, o2, o3 := o[0][:n], o[1][:n], o[2][:n], o[3][:n]
	a0, a1, a2, a3 := a[0][:n], a[1][:n], a[2][:n], a[3][:n]
	b0, b1, b2, b3 := b[0][:n], b[1][:n], b[2][:n], b[3][:n]
	if sum {
		for c := range o0 {
			t0, t1, t2, t3 := a0[c]+b0[c], a1[c]+b1[c], a2[c]+b2[c], a3[c]+b3[c]
			o0[c], o1[c], o2[c], o3[c] = t0-t2, t1+t2, t2-t1, t1-t3
		}
		return
	}
	for c := range o0 {
		t0, t1, t2, t3 := a0[c]-b0[c], a1[c]-b1[c], a2[c]-b2[c], a3[c]-b3[c]
		o0[c], o1[c], o2[c], o3[c] = t0-t2, t1+t2, t2-t1, t1-t3
	}
}

// WinogradDyF32 is WinogradDy in float32.
func WinogradDyF32(e []float32, xiStride int, dy [2][]float32, tiles, ch int) {
	if tiles == 0 {
		return
	}
	if ch <= 0 || xiStride < tiles*ch || len(e) < 15*xiStride+tiles*ch || len(dy[0]) < 2*tiles*ch || len(dy[1]) < 2*tiles*ch {
		panic(fmt.Sprintf("gemm: float32 Winograd gradient transform of %d tiles of %d channels (element stride %d, rows %d and %d) into %d", tiles, ch, xiStride, len(dy[0]), len(dy[1]), len(e)))
	}
	winogradDyF32(e, xiStride, dy, tiles, ch)
}

func winogradDyF32Go(e []float32, xiStride int, dy [2][]float32, tiles, ch int) {
	for j := range tiles {
		a, b := dy[0][2*j*ch:][:ch], dy[0][(2*j+1)*ch:][:ch]
		d, f := dy[1][2*j*ch:][:ch], dy[1][(2*j+1)*ch:][:ch]
		var o [16][]float32
		for x := range o {
			o[x] = e[x*xiStride+j*ch:][:ch]
		}
		dyRow(o[0:4], a, b)
		dyRow(o[4:8], a, b, d, f)
		dyRowMinus(o[8:12], a, b, d, f)
		dyRowNeg(o[12:16], d, f)
	}
}

// dyRow writes one row of A dY Aᵀ whose two columns are (a, b), or (a +
// d, b + f) given d and f: r0, r0 + r1, r0 - r1, -r1.
func dyRow(o [][]float32, ab ...[]float32) {
	n := len(o[0])
	o0, o1, o2, o3 := o[0][:n], o[1][:n], o[2][:n], o[3][:n]
	a, b := ab[0][:n], ab[1][:n]
	if len(ab) == 4 {
		d, f := ab[2][:n], ab[3][:n]
		for c := range o0 {
			r0, r1 := a[c]+d[c], b[c]+f[c]
			o0[c], o1[c], o2[c], o3[c] = r0, r0+r1, r0-r1, -r1
		}
		return
	}
	for c := range o0 {
		r0, r1 := a[c], b[c]
		o0[c], o1[c], o2[c], o3[c] = r0, r0+r1, r0-r1, -r1
	}
}

// dyRowMinus is dyRow of the columns (a - d, b - f).
func dyRowMinus(o [][]float32, a, b, d, f []float32) {
	n := len(o[0])
	o0, o1, o2, o3 := o[0][:n], o[1][:n], o[2][:n], o[3][:n]
	a, b, d, f = a[:n], b[:n], d[:n], f[:n]
	for c := range o0 {
		r0, r1 := a[c]-d[c], b[c]-f[c]
		o0[c], o1[c], o2[c], o3[c] = r0, r0+r1, r0-r1, -r1
	}
}

// dyRowNeg is dyRow of the columns (-d, -f).
func dyRowNeg(o [][]float32, d, f []float32) {
	n := len(o[0])
	o0, o1, o2, o3 := o[0][:n], o[1][:n], o[2][:n], o[3][:n]
	d, f = d[:n], f[:n]
	for c := range o0 {
		r0, r1 := -d[c], -f[c]
		o0[c], o1[c], o2[c], o3[c] = r0, r0+r1, r0-r1, -r1
	}
}

// WinogradFiltersF32 writes U = G g Gᵀ of the filters of output channels
// [o0, o1) of w (out, in, 3, 3) in float32: u[ξ*in*out + c*out + o], for
// products of V (tiles x in) by U.
func WinogradFiltersF32(u []float32, w []float32, in, out, o0, o1 int) {
	if in <= 0 || out <= 0 || o0 < 0 || o0 > o1 || o1 > out || len(w) < out*in*9 || len(u) < 16*in*out {
		panic(fmt.Sprintf("gemm: float32 Winograd filters [%d, %d) of %d x %d from %d into %d", o0, o1, out, in, len(w), len(u)))
	}
	for o := o0; o < o1; o++ {
		for ci := range in {
			for j, x := range winogradFilterTile(w[(o*in+ci)*9:][:9]) {
				u[j*in*out+ci*out+o] = x
			}
		}
	}
}

// DotF32 is c = a b on operands read where they lie, for Winograd's
// float32 products, whose inner dimensions (the channels, or a chunk's
// tiles) are too short for Sgemm's packing to pay: rows of c (a multiple
// of 6 for the AVX2 kernel) by 16*np columns, row r's element kk of a at
// a[r*ars + kk*aks] (so a may be read transposed), b's row kk at
// b[kk*ldb:]; with accumulate the sums are added to what c holds. The
// AVX2 kernel adds with fused multiply-adds, its Go twin without, so the
// two agree to float32's rounding, not bit for bit.
func DotF32(c []float32, ldc int, a []float32, ars, aks, rows int, b []float32, ldb, k, np int, accumulate bool) {
	if rows == 0 {
		return
	}
	n := 16 * np
	if np < 1 || k < 1 || ars < 0 || aks < 0 || ldb < n || ldc < n || len(a) <= (rows-1)*ars+(k-1)*aks || len(b) < (k-1)*ldb+n || len(c) < (rows-1)*ldc+n {
		panic(fmt.Sprintf("gemm: float32 product of %d rows (a %d and %d apart in %d) by %d panels (b %d apart in %d), depth %d, into %d (%d apart)", rows, ars, aks, len(a), np, ldb, len(b), k, len(c), ldc))
	}
	dotF32(c, ldc, a, ars, aks, rows, b, ldb, k, np, accumulate)
}

func dotF32Go(c []float32, ldc int, a []float32, ars, aks, rows int, b []float32, ldb, k, np int, accumulate bool) {
	n := 16 * np
	for r := range rows {
		cr := c[r*ldc:][:n]
		if !accumulate {
			clear(cr)
		}
		for kk := range k {
			x := a[r*ars+kk*aks]
			br := b[kk*ldb:][:n]
			for j := range cr {
				cr[j] += x * br[j]
			}
		}
	}
}
