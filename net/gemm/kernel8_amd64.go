//go:build amd64 && !noasm

package gemm

// asmKernels8 lists the 8-bit assembly kernels this CPU runs.
func asmKernels8() []Kernel8 {
	if !HasVNNI() {
		return nil
	}
	return []Kernel8{
		{Name: "vnni8x32", NR: 32, Run: func(t *Tile8) { checkTile8(t, 32); kern8x32VNNI(t) }},
		{Name: "vnni8x48", NR: 48, Run: func(t *Tile8) { checkTile8(t, 48); kern8x48VNNI(t) }},
	}
}

// HasVNNI reports AVX-512 (F) with its VNNI extension: VPDPBUSD on ZMM.
func HasVNNI() bool {
	if !hasAVX512() {
		return false
	}
	_, _, c7, _ := cpuid(7, 0)
	return c7&(1<<11) != 0
}

// kern8x32VNNI is Ref8 with nr = 32 in AVX-512 VNNI assembly.
//
//go:noescape
func kern8x32VNNI(t *Tile8)

// kern8x48VNNI is Ref8 with nr = 48 in AVX-512 VNNI assembly.
//
//go:noescape
func kern8x48VNNI(t *Tile8)
