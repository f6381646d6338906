//go:build amd64 && !noasm

package gemm

// vnniKernels8 lists the VPDPBUSD kernels this CPU runs (8-bit
// activations), in the order Kernel8For prefers them on a tie.
func vnniKernels8() []Kernel8 {
	var ks []Kernel8
	if hasAVX512VNNI() {
		ks = append(ks,
			Kernel8{Name: "vnni8x32", NR: 32, MaxA: 255, Run: func(t *Tile8) { checkTile8(t, 32); kern8x32VNNI(t) }},
			Kernel8{Name: "vnni8x48", NR: 48, MaxA: 255, Run: func(t *Tile8) { checkTile8(t, 48); kern8x48VNNI(t) }})
	}
	if hasAVXVNNI() {
		ks = append(ks, Kernel8{Name: "avxvnni8x16", NR: 16, MaxA: 255, Run: func(t *Tile8) { checkTile8(t, 16); kern8x16AVXVNNI(t) }})
	}
	return ks
}

// avx2Kernels8 lists the AVX2 kernel (VPMADDUBSW, VPMADDWD, VPADDD: 7-bit
// activations) where the CPU has AVX2, whether or not it has VNNI too.
func avx2Kernels8() []Kernel8 {
	if !hasAVX2FMA() {
		return nil
	}
	return []Kernel8{{Name: "avx2x8x16", NR: 16, MaxA: 127, Run: func(t *Tile8) { checkTile8(t, 16); kern8x16AVX2(t) }}}
}

// hasAVX512VNNI reports AVX-512 (F) with its VNNI extension: VPDPBUSD on
// ZMM.
func hasAVX512VNNI() bool {
	if !hasAVX512() {
		return false
	}
	_, _, c7, _ := cpuid(7, 0)
	return c7&(1<<11) != 0
}

// hasAVXVNNI reports AVX-VNNI: VPDPBUSD on YMM in its VEX encoding (CPUID
// leaf 7, subleaf 1, EAX bit 4).
func hasAVXVNNI() bool {
	if !hasAVX2FMA() {
		return false
	}
	return leaf7Sub1EAX()&(1<<4) != 0
}

// leaf7Sub1EAX is CPUID leaf 7 subleaf 1's EAX (AVX-VNNI, AVX512_BF16,
// ...), or 0 where the CPU has no such subleaf.
func leaf7Sub1EAX() uint32 {
	if sub, _, _, _ := cpuid(7, 0); sub < 1 {
		return 0
	}
	a71, _, _, _ := cpuid(7, 1)
	return a71
}

// kern8x32VNNI is Ref8 with nr = 32 in AVX-512 VNNI assembly.
//
//go:noescape
func kern8x32VNNI(t *Tile8)

// kern8x48VNNI is Ref8 with nr = 48 in AVX-512 VNNI assembly.
//
//go:noescape
func kern8x48VNNI(t *Tile8)

// kern8x16AVXVNNI is Ref8 with nr = 16 in AVX2 with AVX-VNNI assembly.
//
//go:noescape
func kern8x16AVXVNNI(t *Tile8)

// kern8x16AVX2 is Ref8 with nr = 16 in AVX2 assembly, for activations of
// at most 127.
//
//go:noescape
func kern8x16AVX2(t *Tile8)
