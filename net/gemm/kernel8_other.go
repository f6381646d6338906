//go:build !amd64 || noasm

package gemm

// vnniKernels8 lists the VNNI kernels: none in this build.
func vnniKernels8() []Kernel8 { return nil }

// avx2Kernels8 lists the AVX2 kernel: none in this build.
func avx2Kernels8() []Kernel8 { return nil }
