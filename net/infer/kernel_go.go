//go:build !amd64 || noasm

package infer

// kernels lists the kernels this build can run, fastest first.
var kernels = []kernel{goKernel}
