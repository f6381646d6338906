//go:build !amd64 || noasm

package gemm

func winogradInputF32(v []float32, xiStride int, rows [4][]float32, tiles, ch int) {
	winogradInputF32Go(v, xiStride, rows, tiles, ch)
}

func winogradDyF32(e []float32, xiStride int, dy [2][]float32, tiles, ch int) {
	winogradDyF32Go(e, xiStride, dy, tiles, ch)
}

func dotF32(c []float32, ldc int, a []float32, ars, aks, rows int, b []float32, ldb, k, np int, accumulate bool) {
	dotF32Go(c, ldc, a, ars, aks, rows, b, ldb, k, np, accumulate)
}
