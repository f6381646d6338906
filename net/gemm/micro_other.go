//go:build !amd64 || noasm

package gemm

// Micros lists the micro-kernels this build can run, fastest first.
var Micros = []Micro{goMicro}
