//go:build amd64 && !noasm

package gemm

var quantizeAsm = hasAVX512()

// quantizeAVX512 is quantizeGo on n values, n a multiple of 16.
//
//go:noescape
func quantizeAVX512(dst *uint8, src *float32, n int, inv float32)
