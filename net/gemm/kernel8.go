package gemm

import "fmt"

// The 8-bit tile: Tile's product with unsigned 8-bit activations and
// signed 8-bit weights, accumulated exactly in 32-bit integers, then
// dequantized by a scale per output column in the fp32 epilogue,
//
//	c[coff[r]+o] = act(bias[o] + scale[o]*sum_k A(r,k)*W(k,o) (+ res[coff[r]+o]))
//
// A is laid out as Tile's (segments of a padded NHWC buffer, now of
// bytes) with every segment a whole number of 4-byte quads; W is one
// panel packed in quads: the four weights of rows 4q..4q+3 of column o
// are the bytes W[(q*nr+o)*4 : +4], the operand layout of AVX-512 VNNI's
// VPDPBUSD (four u8 x s8 products summed into each 32-bit lane). scale[o]
// is the activations' scale times column o's weight scale. Every sum of
// four products fits 32 bits (4 * 255 * 128), and a tile's whole sum does
// for any kdim below 16,000. A kernel sums exactly the activations up to
// its MaxA: 255, or 127 for the AVX2 kernel (no VNNI), whose pairs of
// products pass through saturating 16-bit lanes (2 * 127 * 128 fits,
// 2 * 255 * 128 does not); the quantizer of its activations clamps there.
type Tile8 struct {
	A                       []uint8
	Aoff                    []int // len >= MR
	NSeg, SegLen, SegStride int   // SegLen a multiple of 4
	W                       []int8
	Scale, Bias             []float32 // len >= nr
	C                       []float32
	Coff                    []int     // len >= MR
	Res                     []float32 // nil: no residual
	ReLU                    bool
}

// Kernel8 computes one Tile8; NR is its panel width, MaxA the largest
// activation byte it sums exactly (every byte of A must be at most MaxA).
type Kernel8 struct {
	Name string
	NR   int
	MaxA uint8
	Run  func(t *Tile8)
}

// Ref8 is the plain-loop twin of every Tile8 kernel.
func Ref8(t *Tile8, nr int) {
	for r := 0; r < MR; r++ {
		for o := 0; o < nr; o++ {
			var sum int32
			k := 0
			for s := 0; s < t.NSeg; s++ {
				base := t.Aoff[r] + s*t.SegStride
				for i := 0; i < t.SegLen; i++ {
					q, j := k/4, k%4
					sum += int32(t.A[base+i]) * int32(t.W[(q*nr+o)*4+j])
					k++
				}
			}
			v := t.Bias[o] + t.Scale[o]*float32(sum)
			if t.Res != nil {
				v += t.Res[t.Coff[r]+o]
			}
			if t.ReLU && v < 0 {
				v = 0
			}
			t.C[t.Coff[r]+o] = v
		}
	}
}

// Pack8 packs a kdim x nr block of 8-bit weights (w[k*nr+o], kdim a
// multiple of 4) into Tile8's quad layout.
func Pack8(w []int8, kdim, nr int) []int8 {
	if kdim%4 != 0 {
		panic(fmt.Sprintf("gemm: Pack8: kdim %d is not a multiple of 4", kdim))
	}
	out := make([]int8, kdim*nr)
	for k := range kdim {
		q, j := k/4, k%4
		for o := range nr {
			out[(q*nr+o)*4+j] = w[k*nr+o]
		}
	}
	return out
}

// checkTile8 panics unless every index an 8-bit kernel of width nr
// touches is in bounds: the assembly kernels index raw memory.
func checkTile8(t *Tile8, nr int) {
	if t.SegLen <= 0 || t.SegLen%4 != 0 || t.NSeg <= 0 || len(t.Aoff) < MR || len(t.Coff) < MR {
		panic(fmt.Sprintf("gemm: bad 8-bit tile: %d segments of %d bytes (want a multiple of 4), %d rows", t.NSeg, t.SegLen, min(len(t.Aoff), len(t.Coff))))
	}
	if len(t.W) < t.NSeg*t.SegLen*nr || len(t.Scale) < nr || len(t.Bias) < nr {
		panic(fmt.Sprintf("gemm: 8-bit tile weights %d, scales %d, biases %d for %d x %d", len(t.W), len(t.Scale), len(t.Bias), t.NSeg*t.SegLen, nr))
	}
	for r := range MR {
		if t.Aoff[r] < 0 || t.Aoff[r]+(t.NSeg-1)*t.SegStride+t.SegLen > len(t.A) {
			panic(fmt.Sprintf("gemm: 8-bit tile row %d reads past A", r))
		}
		if t.Coff[r] < 0 || t.Coff[r]+nr > len(t.C) || (t.Res != nil && t.Coff[r]+nr > len(t.Res)) {
			panic(fmt.Sprintf("gemm: 8-bit tile row %d writes past C", r))
		}
	}
}

// kernel8Go is the pure-Go 8-bit kernel (any width).
func kernel8Go(nr int) Kernel8 {
	return Kernel8{Name: fmt.Sprintf("go8x%d", nr), NR: nr, MaxA: 255, Run: func(t *Tile8) {
		checkTile8(t, nr)
		Ref8(t, nr)
	}}
}

// Kernel8For returns the fastest 8-bit kernel this build and CPU run for
// a layer of n output columns: assembly (AVX-512 VNNI, else AVX-VNNI) of
// the width that pads n least, the first listed of those that tie; on an
// AVX2 CPU without either, the AVX2 kernel (16 columns, 7-bit
// activations: MaxA 127); else pure Go (16 columns a panel).
func Kernel8For(n int) Kernel8 {
	var best Kernel8
	for _, k := range asmKernels8() {
		if best.Run == nil || RoundUp(n, k.NR) < RoundUp(n, best.NR) {
			best = k
		}
	}
	if best.Run == nil {
		return kernel8Go(16)
	}
	return best
}

// asmKernels8 lists the 8-bit assembly kernels Kernel8For chooses among
// on this CPU: the VNNI kernels where it has them, else the AVX2 kernel.
func asmKernels8() []Kernel8 {
	if ks := vnniKernels8(); len(ks) > 0 {
		return ks
	}
	return avx2Kernels8()
}

// HasVNNI reports whether an 8-bit VNNI kernel (AVX-512 VNNI or AVX-VNNI,
// 8-bit activations) runs on this CPU, within TABULA_ISA's cap.
func HasVNNI() bool { return len(vnniKernels8()) > 0 }

// Kernels8 lists every 8-bit assembly kernel this build runs on this CPU,
// the AVX2 one too where the VNNI kernels hide it from Kernel8For: what a
// test or a measurement of another CPU's path takes.
func Kernels8() []Kernel8 { return append(vnniKernels8(), avx2Kernels8()...) }

// Kernel8Go is the pure-Go 8-bit kernel of width nr (a multiple of 16),
// the twin the assembly is tested against.
func Kernel8Go(nr int) Kernel8 { return kernel8Go(nr) }
