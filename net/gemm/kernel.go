// Package gemm holds the register-blocked matrix kernels the network runs
// on: the tile kernel behind every layer of the inference fast path
// (net/infer) and the training convolutions (net/train/ops), and a general
// single-precision matrix product on packed operands with micro-kernels of
// its own, which the trainer uses in place of gonum's (see Sgemm).
package gemm

// The one kernel every layer runs on: a 6-row tile of a matrix product
// with a fused epilogue,
//
//	c[coff[r]+o] = act(bias[o] + sum_k A(r,k)*w[k*nr+o] (+ res[coff[r]+o]))
//
// for rows r < 6 and output columns o < nr, where act is ReLU or the
// identity. Row r of A is not stored as one run: it is nseg segments of
// seglen contiguous floats, segment s starting at a[aoff[r]+s*segstride].
// That one shape covers
//   - a 3x3 convolution over a zero-padded NHWC buffer: a row is an output
//     pixel, its segments are the three rows of its 3x3 patch (each
//     3*channels floats long, contiguous in NHWC), so no im2col copy is made;
//   - a 1x1 convolution (one segment: the pixel's channels);
//   - a dense layer (a row is a batch entry, one segment: its inputs).
//
// w is one panel of packed weights: kdim = nseg*seglen rows of nr floats,
// with BN already folded into weights and bias. res may alias c (the
// residual add reads each element before writing it).
type Tile struct {
	A                       []float32
	Aoff                    []int // len >= MR
	NSeg, SegLen, SegStride int
	W                       []float32 // len >= NSeg*SegLen*nr
	Bias                    []float32 // len >= nr
	C                       []float32
	Coff                    []int     // len >= MR
	Res                     []float32 // nil: no residual
	ReLU                    bool
}

// MR is the number of rows of every tile.
const MR = 6

// Kernel computes one Tile; NR is the kernel's panel width. Run checks
// the tile's bounds first (the assembly kernels index raw memory).
type Kernel struct {
	Name string
	// ISA is the instruction set the kernel runs on. Kernels of one ISA
	// multiply-add at about the same rate, so a layer takes the one that
	// pads its width least (For).
	ISA string
	NR  int
	Run func(t *Tile)
}

// Ref is the plain-loop twin of every Tile kernel: the obviously
// correct version the fast ones are tested against.
func Ref(t *Tile, nr int) {
	for r := 0; r < MR; r++ {
		for o := 0; o < nr; o++ {
			var sum float32
			k := 0
			for s := 0; s < t.NSeg; s++ {
				base := t.Aoff[r] + s*t.SegStride
				for j := 0; j < t.SegLen; j++ {
					sum += t.A[base+j] * t.W[k*nr+o]
					k++
				}
			}
			v := sum + t.Bias[o]
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

// goNR is the panel width of the pure-Go kernel: one panel is [kdim][4],
// so the inner loop reads weights sequentially.
const goNR = 4

// kernelGo is the portable fast kernel. It walks the Tile two rows at a
// time with a 2x4 block of sums, which fits the amd64 register file (Go
// spills with more): each loaded weight serves two rows and each loaded
// input four columns.
func kernelGo(t *Tile) {
	kdim := t.NSeg * t.SegLen
	w := t.W[:kdim*goNR]
	var acc [MR][goNR]float32
	for r := 0; r < MR; r += 2 {
		var s00, s01, s02, s03, s10, s11, s12, s13 float32
		for s := 0; s < t.NSeg; s++ {
			off := s * t.SegStride
			a0 := t.A[t.Aoff[r]+off:][:t.SegLen]
			a1 := t.A[t.Aoff[r+1]+off:][:len(a0)]
			ws := w[s*t.SegLen*goNR:][:len(a0)*goNR]
			for j, x0 := range a0 {
				x1 := a1[j]
				wr := ws[j*goNR:][:goNR]
				w0, w1, w2, w3 := wr[0], wr[1], wr[2], wr[3]
				s00 += x0 * w0
				s01 += x0 * w1
				s02 += x0 * w2
				s03 += x0 * w3
				s10 += x1 * w0
				s11 += x1 * w1
				s12 += x1 * w2
				s13 += x1 * w3
			}
		}
		acc[r] = [goNR]float32{s00, s01, s02, s03}
		acc[r+1] = [goNR]float32{s10, s11, s12, s13}
	}
	epilogue(t, &acc)
}

// epilogue adds bias and residual, applies ReLU and stores a Tile of sums.
func epilogue(t *Tile, acc *[MR][goNR]float32) {
	bias := t.Bias[:goNR]
	for r := range acc {
		c := t.C[t.Coff[r]:][:goNR]
		row := &acc[r]
		if t.Res != nil {
			res := t.Res[t.Coff[r]:][:goNR]
			for o := range row {
				row[o] += res[o]
			}
		}
		for o, v := range row {
			v += bias[o]
			if t.ReLU && v < 0 {
				v = 0
			}
			c[o] = v
		}
	}
}

// checkTile panics unless every access of t is in bounds: the assembly
// Kernels index raw memory, and a Tile out of bounds is a bug in the
// layout code, not a user error.
func checkTile(t *Tile, nr int) {
	kdim := t.NSeg * t.SegLen
	ok := t.NSeg >= 1 && t.SegLen >= 1 && t.SegStride >= 0 && len(t.Aoff) >= MR && len(t.Coff) >= MR &&
		len(t.W) >= kdim*nr && len(t.Bias) >= nr
	last := (t.NSeg-1)*t.SegStride + t.SegLen
	for r := 0; ok && r < MR; r++ {
		a, c := t.Aoff[r], t.Coff[r]
		ok = a >= 0 && a+last <= len(t.A) && c >= 0 && c+nr <= len(t.C) && (t.Res == nil || c+nr <= len(t.Res))
	}
	if !ok {
		panic("infer: Tile out of bounds")
	}
}

var goKernel = Kernel{Name: "go", ISA: "go", NR: goNR, Run: func(t *Tile) {
	checkTile(t, goNR)
	kernelGo(t)
}}

// Default is the fastest kernel this build and CPU can run.
var Default = Kernels[0]

// For returns the kernel for a layer of n output columns: of the kernels
// of Default's ISA, the one that pads n to the fewest columns (the first
// listed on a tie). With AVX-512, 48 channels take the 48-wide kernel,
// where the 32-wide one computes 64 and discards 16.
func For(n int) Kernel {
	return Cheapest(func(nr int) int { return RoundUp(n, nr) })
}

// Cheapest returns the kernel of Default's ISA whose panel width gives
// the least work by cost (the first listed on a tie), for layers that run
// several products of different widths on one kernel.
func Cheapest(cost func(nr int) int) Kernel {
	best, least := Default, cost(Default.NR)
	for _, k := range Kernels {
		if c := cost(k.NR); k.ISA == Default.ISA && c < least {
			best, least = k, c
		}
	}
	return best
}

// RoundUp is n rounded up to a multiple of m (a panel width, MR).
func RoundUp(n, m int) int { return (n + m - 1) / m * m }
