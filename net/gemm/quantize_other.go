//go:build !amd64 || noasm

package gemm

const quantizeAsm = false

func quantizeAVX512(dst *uint8, src *float32, n int, inv float32) {
	panic("gemm: no assembly in this build")
}
