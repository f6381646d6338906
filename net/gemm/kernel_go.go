//go:build !amd64 || noasm

package gemm

// Kernels lists the Kernels this build can run, fastest first.
var Kernels = []Kernel{goKernel}
