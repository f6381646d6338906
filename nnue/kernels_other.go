//go:build !amd64 || noasm

package nnue

// asmKernelSets lists the assembly sets: none in this build.
func asmKernelSets() []kernels { return nil }
