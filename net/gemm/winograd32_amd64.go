//go:build amd64 && !noasm

package gemm

// winoAVX2: the float32 Winograd transforms on AVX2 vectors of eight
// channels, where the AVX-512 ones are not taken.
var winoAVX2 = hasAVX2FMA()

//go:noescape
func winogradInputF32AVX2(v *float32, xiStride int, r0, r1, r2, r3 *float32, tiles, ch int)

//go:noescape
func winogradDyF32AVX2(e *float32, xiStride int, dy0, dy1 *float32, tiles, ch int)

//go:noescape
func winogradOutputAVX2(y0, y1 *float32, m *float32, xiStride, tiles, half, ch int)

//go:noescape
func winogradGradInputAVX2(r0, r1, r2, r3 *float32, n *float32, xiStride, tiles, ch, fresh int)

func winogradInputF32(v []float32, xiStride int, rows [4][]float32, tiles, ch int) {
	if !winoAVX2 || ch%8 != 0 {
		winogradInputF32Go(v, xiStride, rows, tiles, ch)
		return
	}
	winogradInputF32AVX2(&v[0], xiStride, &rows[0][0], &rows[1][0], &rows[2][0], &rows[3][0], tiles, ch)
}

func winogradDyF32(e []float32, xiStride int, dy [2][]float32, tiles, ch int) {
	if !winoAVX2 || ch%8 != 0 {
		winogradDyF32Go(e, xiStride, dy, tiles, ch)
		return
	}
	winogradDyF32AVX2(&e[0], xiStride, &dy[0][0], &dy[1][0], tiles, ch)
}

//go:noescape
func dotF32AVX2(c *float32, ldc int, a *float32, ars, aks int, b *float32, ldb, groups, k, np, accumulate int)

func dotF32(c []float32, ldc int, a []float32, ars, aks, rows int, b []float32, ldb, k, np int, accumulate bool) {
	if !winoAVX2 || rows%6 != 0 {
		dotF32Go(c, ldc, a, ars, aks, rows, b, ldb, k, np, accumulate)
		return
	}
	acc := 0
	if accumulate {
		acc = 1
	}
	dotF32AVX2(&c[0], ldc, &a[0], ars, aks, &b[0], ldb, rows/6, k, np, acc)
}
