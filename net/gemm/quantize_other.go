//go:build !amd64 || noasm

package gemm

// quantizeAsms lists the assembly Quantize loops: none in this build.
func quantizeAsms() []quantizeAsm { return nil }
