//go:build !amd64 || noasm

package gemm

func hasAMXBF16() bool { return false }

func hasAVX512BF16() bool { return false }

func (t *TileBF16) runAVX512(a []BF16, tiles []amxTile, b []BF16, out []float32, accumulate bool) {
	panic("gemm: no AVX512_BF16 in this build")
}

func (t *TileBF16) runAsm(a []BF16, tiles []amxTile, b []BF16, sum, out []float32, ldc int, accumulate bool) {
	panic("gemm: no AMX in this build")
}

func convertBF16(dst []BF16, src []float32) { convertBF16Go(dst, src) }

func transposeBF16(dst []BF16, dstStride int, src []BF16, srcStride, pixels, chans int) {
	transposeBF16Go(dst, dstStride, src, srcStride, pixels, chans)
}

func convertPixelPairsBF16(pairs, rows []BF16, src []float32, n, ch int) {
	convertPixelPairsBF16Go(pairs, rows, src, n, ch)
}

func winogradInput(v []BF16, xiStride int, rows [4][]float32, tiles, ch int) {
	winogradInputGo(v, xiStride, rows, tiles, ch)
}

func winogradOutput(y0, y1 []float32, m []float32, xiStride, tiles int, half bool, ch int) {
	winogradOutputGo(y0, y1, m, xiStride, tiles, half, ch)
}

func dotPairsBF16(c []float32, ldc int, a []BF16, lda, rows int, b []BF16, kp, np int, accumulate bool) {
	dotPairsBF16Go(c, ldc, a, lda, rows, b, kp, np, accumulate)
}

func winogradDy(e []BF16, xiStride int, dy [2][]float32, tiles, ch int) {
	winogradDyGo(e, xiStride, dy, tiles, ch)
}

func winogradGradInput(rows [4][]float32, n []float32, xiStride, tiles, ch int, fresh bool) {
	winogradGradInputGo(rows, n, xiStride, tiles, ch, fresh)
}

func pairRowsBF16(pairs, rows []BF16, n, ch int) { pairRowsBF16Go(pairs, rows, n, ch) }

func winogradFilters(u, ut []BF16, w []float32, in, out, o0, o1 int) {
	winogradFiltersGo(u, ut, w, in, out, o0, o1)
}

func winogradFilterGrads(dw []float32, du [][]float32, in, out, c0, c1 int) {
	winogradFilterGradsGo(dw, du, in, out, c0, c1)
}
