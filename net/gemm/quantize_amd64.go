//go:build amd64 && !noasm

package gemm

// quantizeAsms lists the assembly Quantize loops this CPU runs, fastest
// first: each takes n a multiple of its width.
func quantizeAsms() []quantizeAsm {
	var qs []quantizeAsm
	if hasAVX512() {
		qs = append(qs, quantizeAsm{"avx512", 16, quantizeAVX512})
	}
	if hasAVX2FMA() {
		qs = append(qs, quantizeAsm{"avx2", 8, quantizeAVX2})
	}
	return qs
}

// quantizeAVX512 is quantizeGo on n values, n a multiple of 16.
//
//go:noescape
func quantizeAVX512(dst *uint8, src *float32, n int, inv, top float32)

// quantizeAVX2 is quantizeGo on n values, n a multiple of 8.
//
//go:noescape
func quantizeAVX2(dst *uint8, src *float32, n int, inv, top float32)
