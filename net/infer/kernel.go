package infer

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
type tile struct {
	a                       []float32
	aoff                    []int // len >= mr
	nseg, seglen, segstride int
	w                       []float32 // len >= nseg*seglen*nr
	bias                    []float32 // len >= nr
	c                       []float32
	coff                    []int     // len >= mr
	res                     []float32 // nil: no residual
	relu                    bool
}

// mr is the number of rows of every tile.
const mr = 6

// kernel computes one tile; nr is the kernel's panel width.
type kernel struct {
	name string
	nr   int
	run  func(t *tile)
}

// kernelRef is the plain-loop twin of every tile kernel: the obviously
// correct version the fast ones are tested against.
func kernelRef(t *tile, nr int) {
	for r := 0; r < mr; r++ {
		for o := 0; o < nr; o++ {
			var sum float32
			k := 0
			for s := 0; s < t.nseg; s++ {
				base := t.aoff[r] + s*t.segstride
				for j := 0; j < t.seglen; j++ {
					sum += t.a[base+j] * t.w[k*nr+o]
					k++
				}
			}
			v := sum + t.bias[o]
			if t.res != nil {
				v += t.res[t.coff[r]+o]
			}
			if t.relu && v < 0 {
				v = 0
			}
			t.c[t.coff[r]+o] = v
		}
	}
}

// goNR is the panel width of the pure-Go kernel: one panel is [kdim][4],
// so the inner loop reads weights sequentially.
const goNR = 4

// kernelGo is the portable fast kernel. It walks the tile two rows at a
// time with a 2x4 block of sums, which fits the amd64 register file (Go
// spills with more): each loaded weight serves two rows and each loaded
// input four columns.
func kernelGo(t *tile) {
	kdim := t.nseg * t.seglen
	w := t.w[:kdim*goNR]
	var acc [mr][goNR]float32
	for r := 0; r < mr; r += 2 {
		var s00, s01, s02, s03, s10, s11, s12, s13 float32
		for s := 0; s < t.nseg; s++ {
			off := s * t.segstride
			a0 := t.a[t.aoff[r]+off:][:t.seglen]
			a1 := t.a[t.aoff[r+1]+off:][:len(a0)]
			ws := w[s*t.seglen*goNR:][:len(a0)*goNR]
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

// epilogue adds bias and residual, applies ReLU and stores a tile of sums.
func epilogue(t *tile, acc *[mr][goNR]float32) {
	bias := t.bias[:goNR]
	for r := range acc {
		c := t.c[t.coff[r]:][:goNR]
		row := &acc[r]
		if t.res != nil {
			res := t.res[t.coff[r]:][:goNR]
			for o := range row {
				row[o] += res[o]
			}
		}
		for o, v := range row {
			v += bias[o]
			if t.relu && v < 0 {
				v = 0
			}
			c[o] = v
		}
	}
}

// checkTile panics unless every access of t is in bounds: the assembly
// kernels index raw memory, and a tile out of bounds is a bug in the
// layout code, not a user error.
func checkTile(t *tile, nr int) {
	kdim := t.nseg * t.seglen
	ok := t.nseg >= 1 && t.seglen >= 1 && t.segstride >= 0 && len(t.aoff) >= mr && len(t.coff) >= mr &&
		len(t.w) >= kdim*nr && len(t.bias) >= nr
	last := (t.nseg-1)*t.segstride + t.seglen
	for r := 0; ok && r < mr; r++ {
		a, c := t.aoff[r], t.coff[r]
		ok = a >= 0 && a+last <= len(t.a) && c >= 0 && c+nr <= len(t.c) && (t.res == nil || c+nr <= len(t.res))
	}
	if !ok {
		panic("infer: tile out of bounds")
	}
}

var goKernel = kernel{name: "go", nr: goNR, run: func(t *tile) {
	checkTile(t, goNR)
	kernelGo(t)
}}

// defaultKernel is the fastest kernel this build and CPU can run.
var defaultKernel = kernels[0]
