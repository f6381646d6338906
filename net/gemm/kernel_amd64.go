//go:build amd64 && !noasm

package gemm

// Kernels lists the Kernels this build can run on this CPU, fastest first.
var Kernels = amd64Kernels()

func amd64Kernels() []Kernel {
	var ks []Kernel
	if hasAVX512() {
		ks = append(ks, Kernel{Name: "avx512", ISA: "avx512", NR: 32, Run: func(t *Tile) {
			checkTile(t, 32)
			kern6x32AVX512(t)
		}}, Kernel{Name: "avx512x48", ISA: "avx512", NR: 48, Run: func(t *Tile) {
			checkTile(t, 48)
			kern6x48AVX512(t)
		}})
	}
	if hasAVX2FMA() {
		ks = append(ks, Kernel{Name: "avx2", ISA: "avx2", NR: 16, Run: func(t *Tile) {
			checkTile(t, 16)
			kern6x16AVX2(t)
		}})
	}
	return append(ks, goKernel)
}

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// hasAVX2FMA reports AVX2 and FMA with the YMM state enabled by the OS
// (and allowed by TABULA_ISA).
func hasAVX2FMA() bool {
	if isaCap < isaAVX2 {
		return false
	}
	max, _, _, _ := cpuid(0, 0)
	if max < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if c1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}

// hasAVX512 reports AVX-512F (with AVX2 and FMA) and the ZMM state enabled
// by the OS (and allowed by TABULA_ISA).
func hasAVX512() bool {
	if isaCap < isaAVX512 || !hasAVX2FMA() {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&0xe6 != 0xe6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<16) != 0
}

// kern6x16AVX2 is Ref with nr = 16 in AVX2+FMA assembly.
//
//go:noescape
func kern6x16AVX2(t *Tile)

// kern6x32AVX512 is Ref with nr = 32 in AVX-512 assembly.
//
//go:noescape
func kern6x32AVX512(t *Tile)

// kern6x48AVX512 is Ref with nr = 48 in AVX-512 assembly.
//
//go:noescape
func kern6x48AVX512(t *Tile)
