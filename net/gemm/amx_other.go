//go:build !amd64 || noasm

package gemm

func hasAMX() bool { return false }

func (c *Conv3AMX) runAsm(a []uint8, tiles []amxTile, sum []int32, out, res []float32) {
	panic("gemm: no AMX in this build")
}
