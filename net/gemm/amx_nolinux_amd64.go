//go:build amd64 && !linux && !noasm

package gemm

// requestAMX: the tile state is only asked for on Linux here.
func requestAMX() bool { return false }
