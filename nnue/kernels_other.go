//go:build !amd64 || noasm

package nnue

// asmBuild: this build has the assembly kernels.
const asmBuild = false

// asmKernelSets lists the assembly sets: none in this build.
func asmKernelSets() []kernels { return nil }
