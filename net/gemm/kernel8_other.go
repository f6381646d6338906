//go:build !amd64 || noasm

package gemm

// asmKernels8 lists the 8-bit assembly kernels: none in this build.
func asmKernels8() []Kernel8 { return nil }

// vnniKernels8 lists the VNNI kernels: none in this build.
func vnniKernels8() []Kernel8 { return nil }

// avx2Kernels8 lists the AVX2 kernel: none in this build.
func avx2Kernels8() []Kernel8 { return nil }

// Has8Bit reports whether an 8-bit assembly kernel runs: not in this build.
func Has8Bit() bool { return false }

// HasVNNI reports whether an 8-bit VNNI kernel runs: not in this build.
func HasVNNI() bool { return false }
