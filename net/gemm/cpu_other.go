//go:build !amd64 || noasm

package gemm

func cpuFeatures() CPU { return CPU{} }
