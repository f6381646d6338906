//go:build !amd64 || noasm

package gemm

// asmKernels8 lists the 8-bit assembly kernels: none in this build.
func asmKernels8() []Kernel8 { return nil }

// HasVNNI reports whether the 8-bit assembly kernels run: not in this build.
func HasVNNI() bool { return false }
