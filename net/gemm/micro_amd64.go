//go:build amd64 && !noasm

package gemm

// Micros lists the micro-kernels this build can run on this CPU, fastest
// first.
var Micros = amd64Micros()

func amd64Micros() []Micro {
	var ms []Micro
	if hasAVX512() {
		ms = append(ms, Micro{Name: "avx512", MR: 12, NR: 32, Run: func(k int, a, b, c []float32, ldc int, accumulate bool) {
			checkMicro(12, 32, k, a, b, c, ldc)
			micro12x32AVX512(k, &a[0], &b[0], &c[0], ldc, accumulate)
		}})
	}
	if hasAVX2FMA() {
		ms = append(ms, Micro{Name: "avx2", MR: 6, NR: 16, Run: func(k int, a, b, c []float32, ldc int, accumulate bool) {
			checkMicro(6, 16, k, a, b, c, ldc)
			micro6x16AVX2(k, &a[0], &b[0], &c[0], ldc, accumulate)
		}})
	}
	return append(ms, goMicro)
}

// micro12x32AVX512 is microRef with MR = 12, NR = 32 in AVX-512 assembly:
// 24 accumulators, two loads of b and twelve broadcasts of a for every 24
// multiply-adds.
//
//go:noescape
func micro12x32AVX512(k int, a, b, c *float32, ldc int, accumulate bool)

// micro6x16AVX2 is microRef with MR = 6, NR = 16 in AVX2+FMA assembly.
//
//go:noescape
func micro6x16AVX2(k int, a, b, c *float32, ldc int, accumulate bool)
