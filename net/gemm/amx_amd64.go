//go:build amd64 && !noasm

package gemm

import "sync"

// amxArgs is what the assembly reads: one call runs every tile with one
// tile configuration, so the tile registers never outlive the call (a
// goroutine may move to another thread between calls).
type amxArgs struct {
	cfg                   *byte
	a                     *uint8
	tiles                 *amxTile
	ntiles                int
	taps                  *int
	w                     *int8
	wstep, tapstep        int
	cs, np, sumRS         int
	sum                   *int32
	out, res, scale, bias *float32
}

func (c *Conv3AMX) runAsm(a []uint8, tiles []amxTile, sum []int32, out, res []float32) {
	args := amxArgs{cfg: &c.cfg[0], a: &a[0], tiles: &tiles[0], ntiles: len(tiles), taps: &c.taps[0],
		w: &c.w[0], wstep: c.wstep, tapstep: c.np * c.wstep, cs: c.cs, np: c.np, sumRS: c.sumRS,
		sum: &sum[0], out: &out[0], scale: &c.scale[0], bias: &c.bias[0]}
	if res != nil {
		args.res = &res[0]
	}
	amxConv3(&args)
}

// amxConv3 runs Conv3AMX.runGo's loops on the tile registers.
//
//go:noescape
func amxConv3(args *amxArgs)

var amxOnce struct {
	sync.Once
	ok bool
}

// hasAMX reports AMX-TILE and AMX-INT8 granted to this process
// (amxGranted).
func hasAMX() bool {
	amxOnce.Do(func() { amxOnce.ok = amxGranted(1 << 25) })
	return amxOnce.ok
}

// amxGranted reports AMX-TILE and the AMX feature of CPUID.7.0 EDX bit
// feature, with their state enabled by the OS and granted to this
// process (Linux hands the 8 KiB of tile data to a process only when it
// asks: requestAMX), and allowed by TABULA_ISA.
func amxGranted(feature uint32) bool {
	if isaCap < isaAMX || !hasAVX512() {
		return false
	}
	_, _, _, d7 := cpuid(7, 0)
	const tile = 1 << 24
	if d7&(tile|feature) != tile|feature {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&(3<<17) != 3<<17 {
		return false
	}
	return requestAMX()
}
