package ops

import (
	"os"
	"runtime"

	"github.com/tabula-zero/tabula/internal/parallel"
	"github.com/tabula-zero/tabula/net/gemm"
)

// winoConv runs a 3x3 convolution's three products as Winograd's F(2x2,
// 3x3) in bfloat16 (net/gemm's WinogradInput, WinogradDy, DotPairsBF16,
// WinogradOutput, WinogradGradInput): 16 products a tile of 2x2 outputs
// and channel pair where the direct tiles take 36 and compute the
// compact layout's padding pixels besides. With the forward pass's
// transforms V = Bᵀ x B and U = G w Gᵀ, and E = A dy Aᵀ:
//
//	y  = Aᵀ (Σ_in U ⊙ V) A             (forward)
//	dx = B (Σ_out U ⊙ E) Bᵀ, overlapping (input gradient)
//	dw = Gᵀ (Σ_tiles E ⊙ V) G          (weight gradient)
//
// Chunks of whole images (about 100-128 tiles, a multiple of 32 for the
// transposition) go through the steps while their operands stay in the
// second-level cache, each core its own chunks. The forward pass keeps
// every chunk's V for the weight gradient (16 bf16 values a tile and
// input channel: Xiangqi's batch 256 at 48 channels 9.8 MB a
// convolution); both gradients are made in one pass over the chunks,
// which computes E once.
type winoConv struct {
	s       *convState
	f32     bool // float32 throughout, the products on Sgemm (winogradF32Fits)
	th, tw  int  // tile rows and columns of a board
	imgs    int  // images a chunk
	rows    int  // tiles a chunk, rounded up to a multiple of 32
	chunks  int
	u, ut   []gemm.BF16 // U in pairs of input channels, Uᵀ in pairs of output channels
	v       []gemm.BF16 // every chunk's V: [chunk][ξ][rows][in]
	u32     []float32   // f32: U as [ξ][in][out]
	ut32    []float32   // f32: Uᵀ as [ξ][out][in]
	in6     int         // f32: in rounded up to DotF32's groups of six rows
	v32     []float32   // f32: every chunk's V, as v
	zero    []float32   // a padded row of zeros, the patches' rows past an image
	parts   []winoScratch
	du      [][]float32 // the parts' sums of E ⊙ V
	bwdStep uint64      // the forward pass whose gradients were made
	fwdStep uint64
	dx, dw  []float32
	// The loop bodies handed to parallel.For, made once, and their
	// arguments.
	fwdPart, bwdPart    func(part int)
	weightsPart, dwPart func(part int)
	cur                 struct {
		x, y, dy, w []float32
		parts       int
	}
}

// winoScratch is one part's buffers.
type winoScratch struct {
	m     []float32   // the products' sums: [ξ][rows][max(in, out)]
	e, ep []gemm.BF16 // E: rows [ξ][rows][out] and in pairs of tiles
	vt    []gemm.BF16 // V transposed: [ξ][in][rows]
	du    []float32   // Σ E ⊙ V over the part's tiles: [ξ][in][out]
	sink  []float32   // the input gradient's rows past the board
	e32   []float32   // f32: E, as e
	du6   []float32   // f32: Σ E ⊙ V as du, in rows of in6 (rows past in discarded)
}

// winogradOn: the bf16 convolutions take Winograd's products where they
// fit (winogradFits). TABULA_WINOGRAD=off keeps the direct tiles, to
// measure one against the other.
var winogradOn = os.Getenv("TABULA_WINOGRAD") != "off"

// winogradAnyCPU has the bf16 convolutions take Winograd's products on any
// CPU (their Go twins where it lacks AVX512_BF16), so that tests of what
// rides on them (batch norm's passes in their chunks, the residual's
// gradient) run on every machine.
var winogradAnyCPU = false

// winoImages is the images a chunk: the count up to 128 tiles that pads
// the fewest tiles to a multiple of 32 (the larger of equals).
func winoImages(b Board) int {
	per := (b.H + 1) / 2 * ((b.W + 1) / 2)
	best, waste := 1, 1.0
	for k := 1; k <= b.N && (k == 1 || k*per <= 128); k++ {
		if w := float64(gemm.RoundUp(k*per, 32)-k*per) / float64(gemm.RoundUp(k*per, 32)); w <= waste {
			best, waste = k, w
		}
	}
	return best
}

// winogradFits reports whether a convolution takes Winograd's products:
// on VDPBF16PS (the AMX tiles' direct products are faster than these on
// vectors), 3x3, channels in whole vectors of 16 and, as the products'
// columns, in at most three panels of them.
func winogradFits(s *convState) bool {
	fit := func(c int) bool { return c%16 == 0 && c >= 16 && c <= 48 }
	return winogradOn && (winogradAnyCPU || gemm.BF16Kernel() == "avx512bf16") && s.k == 3 && fit(s.in) && fit(s.out)
}

// winogradF32 has the float32 convolutions take Winograd's products in
// float32 where they fit (winogradF32Fits); TABULA_WINOGRAD32=off keeps
// the direct products, to measure one against the other.
var winogradF32 = os.Getenv("TABULA_WINOGRAD32") != "off"

// SetWinogradF32 turns the float32 Winograd products on or off for the
// convolutions built after it (TABULA_WINOGRAD32's switch, for tests that
// train both ways in one process) and returns the previous setting. It is
// not safe to call while a graph is being built.
func SetWinogradF32(on bool) bool {
	was := winogradF32
	winogradF32 = on
	return was
}

// winogradF32Fits reports whether a float32 convolution takes Winograd's
// products in float32: 3x3, channels in whole vectors of 16 from 16 to 48
// (the transforms' kernels take ch in vectors of 16), and the input
// gradient written with the input's channel stride.
func winogradF32Fits(s *convState) bool {
	fit := func(c int) bool { return c%16 == 0 && c >= 16 && c <= 48 }
	return winogradF32 && s.k == 3 && fit(s.in) && fit(s.out) && (!s.inputGrad || s.bwd.cs == s.in)
}

func newWinoConv(s *convState, f32 bool) *winoConv {
	b := s.b
	c := &winoConv{s: s, f32: f32, th: (b.H + 1) / 2, tw: (b.W + 1) / 2, imgs: winoImages(b)}
	c.rows = gemm.RoundUp(c.imgs*c.th*c.tw, 32)
	c.chunks = (b.N + c.imgs - 1) / c.imgs
	if f32 {
		// DotF32 takes rows in groups of six: a chunk's products run on
		// its tiles rounded up to six (the rows past them whatever V or E
		// hold there, their sums never read), and the weight gradient's
		// on the input channels rounded up to six, reading the next
		// tile's channels (or the slack past the last) into rows it
		// discards.
		c.rows = gemm.RoundUp(c.imgs*c.th*c.tw, 6)
		c.in6 = gemm.RoundUp(s.in, 6)
		c.u32 = make([]float32, 16*s.in*s.out)
		c.ut32 = make([]float32, 16*s.in*s.out)
		c.v32 = make([]float32, c.chunks*16*c.rows*s.in+c.in6)
	} else {
		c.u = make([]gemm.BF16, 16*s.in*s.out)
		c.ut = make([]gemm.BF16, 16*s.in*s.out)
		c.v = make([]gemm.BF16, c.chunks*16*c.rows*s.in)
	}
	c.zero = make([]float32, (2*c.tw+2)*s.in)
	c.parts = make([]winoScratch, min(c.chunks, runtime.GOMAXPROCS(0)))
	for i := range c.parts {
		c.parts[i] = winoScratch{
			m:    make([]float32, 16*c.rows*max(s.in, s.out)),
			du:   make([]float32, 16*s.in*s.out),
			sink: make([]float32, (2*c.tw+2)*s.in),
		}
		if f32 {
			c.parts[i].e32 = make([]float32, 16*c.rows*s.out)
			c.parts[i].du6 = make([]float32, 16*c.in6*s.out)
		} else {
			c.parts[i].e = make([]gemm.BF16, 16*c.rows*s.out)
			c.parts[i].ep = make([]gemm.BF16, 16*c.rows*s.out)
			c.parts[i].vt = make([]gemm.BF16, 16*s.in*c.rows)
		}
	}
	for i := range c.parts {
		c.du = append(c.du, c.parts[i].du)
	}
	c.fwdPart, c.bwdPart = c.forwardChunks, c.backwardChunks
	c.weightsPart, c.dwPart = c.transformFilters, c.filterGradients
	return c
}

// transformWeights writes U = G g Gᵀ of every filter, in pairs of input
// channels (u[ξ][c/2][o][c%2], the forward pass's b) and of output
// channels (ut[ξ][o/2][c][o%2], the input gradient's), over the cores.
func (c *winoConv) transformWeights(w []float32) {
	c.cur.w = w
	c.cur.parts = min(c.s.out/2, runtime.GOMAXPROCS(0))
	parallel.For(c.cur.parts, c.weightsPart)
}

// transformFilters is part of transformWeights: a range of pairs of
// output channels.
func (c *winoConv) transformFilters(part int) {
	pairs, parts := c.s.out/2, c.cur.parts
	if c.f32 {
		o0, o1 := 2*(pairs*part/parts), 2*(pairs*(part+1)/parts)
		gemm.WinogradFiltersF32(c.u32, c.cur.w, c.s.in, c.s.out, o0, o1)
		// Uᵀ of the same filters, for the input gradient's b.
		in, out := c.s.in, c.s.out
		for e := range 16 {
			u, ut := c.u32[e*in*out:][:in*out], c.ut32[e*in*out:][:in*out]
			for o := o0; o < o1; o++ {
				row := ut[o*in:][:in]
				for ci := range row {
					row[ci] = u[ci*out+o]
				}
			}
		}
		return
	}
	gemm.WinogradFilters(c.u, c.ut, c.cur.w, c.s.in, c.s.out, 2*(pairs*part/parts), 2*(pairs*(part+1)/parts))
}

// partChunks is the chunks part of parts takes.
func (c *winoConv) partChunks(part, parts int) (int, int) {
	return c.chunks * part / parts, c.chunks * (part + 1) / parts
}

// chunkImages is the images of chunk ch.
func (c *winoConv) chunkImages(ch int) (int, int) {
	return ch * c.imgs, min(c.s.b.N, (ch+1)*c.imgs)
}

// forward: y = conv(x, w); y's padding is never written.
func (c *winoConv) forward(x, w, y []float32) {
	c.fwdStep++
	c.transformWeights(w)
	c.cur.x, c.cur.y = x, y
	c.cur.parts = len(c.parts)
	parallel.For(c.cur.parts, c.fwdPart)
}

// forwardChunks is part of forward.
func (c *winoConv) forwardChunks(part int) {
	b, in, out := c.s.b, c.s.in, c.s.out
	hp, wp := b.hp(), b.wp()
	sc := &c.parts[part]
	ch0, ch1 := c.partChunks(part, c.cur.parts)
	for ch := ch0; ch < ch1; ch++ {
		n0, n1 := c.chunkImages(ch)
		if c.f32 {
			c.forwardChunkF32(sc, ch, n0, n1)
			continue
		}
		v := c.v[ch*16*c.rows*in:][:16*c.rows*in]
		t := 0
		for n := n0; n < n1; n++ {
			for i := range c.th {
				var rows [4][]float32
				for r := range rows {
					// The bottom padding row, and a row past it (an odd
					// height), read as zeros; a row's last patch column
					// past its padding is the next row's left padding.
					if pr := 2*i + r; pr < hp-1 {
						rows[r] = c.cur.x[(n*hp+pr)*wp*in:]
					} else {
						rows[r] = c.zero
					}
				}
				gemm.WinogradInput(v[t*in:], c.rows*in, rows, c.tw, in)
				t += c.tw
			}
		}
		padded := gemm.RoundUp(t, 8)
		for e := range 16 {
			gemm.DotPairsBF16(sc.m[e*c.rows*out:], out, v[e*c.rows*in:], in, padded, c.u[e*in*out:], in/2, out/16, false)
		}
		c.outputChunk(sc, n0, n1)
	}
}

// forwardChunkF32 is forwardChunks' work on chunk ch (images [n0, n1))
// in float32: V, the 16 products on Sgemm, the output transforms.
func (c *winoConv) forwardChunkF32(sc *winoScratch, ch, n0, n1 int) {
	in, out := c.s.in, c.s.out
	hp, wp := c.s.b.hp(), c.s.b.wp()
	v := c.v32[ch*16*c.rows*in:][:16*c.rows*in]
	t := 0
	for n := n0; n < n1; n++ {
		for i := range c.th {
			gemm.WinogradInputF32(v[t*in:], c.rows*in, c.patchRows(n, i, hp, wp, in), c.tw, in)
			t += c.tw
		}
	}
	rows := gemm.RoundUp(t, 6)
	for e := range 16 {
		gemm.DotF32(sc.m[e*c.rows*out:], out, v[e*c.rows*in:], in, 1, rows, c.u32[e*in*out:], out, in, out/16, false)
	}
	c.outputChunk(sc, n0, n1)
}

// patchRows is the four input rows of tile row i of image n.
func (c *winoConv) patchRows(n, i, hp, wp, in int) [4][]float32 {
	var rows [4][]float32
	for r := range rows {
		// The bottom padding row, and a row past it (an odd height), read
		// as zeros; a row's last patch column past its padding is the
		// next row's left padding.
		if pr := 2*i + r; pr < hp-1 {
			rows[r] = c.cur.x[(n*hp+pr)*wp*in:]
		} else {
			rows[r] = c.zero
		}
	}
	return rows
}

// outputChunk writes y of images [n0, n1) from their products' sums in
// sc.m, and the batch norm's sums of them.
func (c *winoConv) outputChunk(sc *winoScratch, n0, n1 int) {
	b, out := c.s.b, c.s.out
	hp, wp := b.hp(), b.wp()
	t := 0
	for n := n0; n < n1; n++ {
		for i := range c.th {
			y0 := c.cur.y[((n*hp+2*i+1)*wp+1)*out:]
			var y1 []float32
			if 2*i+1 < b.H {
				y1 = c.cur.y[((n*hp+2*i+2)*wp+1)*out:]
			}
			gemm.WinogradOutput(y0, y1, sc.m[t*out:], c.rows*out, c.tw, b.W%2 == 1, out)
			t += c.tw
		}
	}
	if bn := c.s.stats; bn != nil {
		// The batch norm's sums of the chunk's images, in cache.
		for n := n0; n < n1; n++ {
			bn.imageStats(c.cur.y, n)
		}
	}
}

// backward makes both gradients of the last forward pass from dy, once:
// dx (when the input takes a gradient) into dx, dw (out, in, 3, 3) into dw.
func (c *winoConv) backward(dy, dx, dw []float32) {
	if c.bwdStep == c.fwdStep {
		return
	}
	c.bwdStep = c.fwdStep
	if bn := c.s.stats; bn != nil && bn.gradPending && (len(dy) == 0 || &dy[0] != &bn.dy.buf[0]) {
		// dy is not the batch norm's: it cannot be written chunk by chunk.
		parallel.For(bn.b.N, bn.gradPart)
		bn.gradPending = false
	}
	c.cur.dy, c.dx, c.dw = dy, dx, dw
	c.cur.parts = len(c.parts)
	parallel.For(c.cur.parts, c.bwdPart)
	if bn := c.s.stats; bn != nil {
		bn.gradPending = false
	}
	c.cur.parts = min(c.s.in, runtime.GOMAXPROCS(0))
	parallel.For(c.cur.parts, c.dwPart)
}

// filterGradients is part of backward: for a range of input channels,
// the parts' sums added in part order and transformed back, dw = Gᵀ dU G.
func (c *winoConv) filterGradients(part int) {
	in := c.s.in
	gemm.WinogradFilterGrads(c.dw, c.du, in, c.s.out, in*part/c.cur.parts, in*(part+1)/c.cur.parts)
}

// backwardChunks is part of backward.
func (c *winoConv) backwardChunks(part int) {
	b, in, out := c.s.b, c.s.in, c.s.out
	hp, wp := b.hp(), b.wp()
	sc := &c.parts[part]
	ch0, ch1 := c.partChunks(part, c.cur.parts)
	for ch := ch0; ch < ch1; ch++ {
		n0, n1 := c.chunkImages(ch)
		if bn := c.s.stats; bn != nil && bn.gradPending {
			// The batch norm's dy of the chunk's images, read next in cache.
			for n := n0; n < n1; n++ {
				bn.gradImage(n)
			}
		}
		if c.f32 {
			c.backwardChunkF32(sc, ch, n0, n1, ch > ch0)
			if ch == ch1-1 {
				c.compactF32(sc)
			}
			continue
		}
		t := 0
		for n := n0; n < n1; n++ {
			for i := range c.th {
				// dy's tile rows; past the board they are its zero padding.
				dy := [2][]float32{c.cur.dy[((n*hp+2*i+1)*wp+1)*out:], c.cur.dy[((n*hp+2*i+2)*wp+1)*out:]}
				gemm.WinogradDy(sc.e[t*out:], c.rows*out, dy, c.tw, out)
				t += c.tw
			}
		}
		// A chunk short of the others leaves the tiles past its own zero
		// (V's padding tiles are never written).
		for e := range 16 {
			clear(sc.e[(e*c.rows+t)*out : (e+1)*c.rows*out])
		}
		if c.s.inputGrad {
			c.inputGradient(sc, n0, n1, t)
		}
		v := c.v[ch*16*c.rows*in:]
		for e := range 16 {
			ep, vt := sc.ep[e*c.rows*out:][:c.rows*out], sc.vt[e*in*c.rows:][:in*c.rows]
			gemm.PairRowsBF16(ep, sc.e[e*c.rows*out:], c.rows, out)
			gemm.TransposeBF16(vt, c.rows, v[e*c.rows*in:], in, c.rows, in)
			gemm.DotPairsBF16(sc.du[e*in*out:], out, vt, c.rows, in, ep, c.rows/2, out/16, ch > ch0)
		}
	}
}

// backwardChunkF32 is backwardChunks' work on chunk ch (images [n0,
// n1)) in float32: E, the input gradient, and the chunk's E ⊙ V summed
// into the part's (added to them unless first).
func (c *winoConv) backwardChunkF32(sc *winoScratch, ch, n0, n1 int, add bool) {
	in, out := c.s.in, c.s.out
	hp, wp := c.s.b.hp(), c.s.b.wp()
	t := 0
	for n := n0; n < n1; n++ {
		for i := range c.th {
			dy := [2][]float32{c.cur.dy[((n*hp+2*i+1)*wp+1)*out:], c.cur.dy[((n*hp+2*i+2)*wp+1)*out:]}
			gemm.WinogradDyF32(sc.e32[t*out:], c.rows*out, dy, c.tw, out)
			t += c.tw
		}
	}
	if c.s.inputGrad {
		rows := gemm.RoundUp(t, 6)
		for e := range 16 {
			gemm.DotF32(sc.m[e*c.rows*in:], in, sc.e32[e*c.rows*out:], out, 1, rows, c.ut32[e*in*out:], in, out, in/16, false)
		}
		c.inputGradientRows(sc, n0, n1)
	}
	v := c.v32[ch*16*c.rows*in:]
	for e := range 16 {
		// Vᵀ E: a's row is an input channel, read down the tiles.
		gemm.DotF32(sc.du6[e*c.in6*out:], out, v[e*c.rows*in:], 1, in, c.in6, sc.e32[e*c.rows*out:], out, t, out/16, add)
	}
}

// compactF32 copies a part's sums of E ⊙ V from du6's rows of in6 into
// du's of in, which WinogradFilterGrads reads.
func (c *winoConv) compactF32(sc *winoScratch) {
	in, out := c.s.in, c.s.out
	for e := range 16 {
		copy(sc.du[e*in*out:][:in*out], sc.du6[e*c.in6*out:][:in*out])
	}
}

// inputGradient is part of backwardChunks: dx of images [n0, n1), whose
// t tiles' E is in sc.e.
func (c *winoConv) inputGradient(sc *winoScratch, n0, n1, t int) {
	in, out := c.s.in, c.s.out
	padded := gemm.RoundUp(t, 8)
	for e := range 16 {
		gemm.DotPairsBF16(sc.m[e*c.rows*in:], in, sc.e[e*c.rows*out:], out, padded, c.ut[e*in*out:], out/2, in/16, false)
	}
	c.inputGradientRows(sc, n0, n1)
}

// inputGradientRows adds (or stores) dx of images [n0, n1) from the sums
// B N Bᵀ in sc.m.
func (c *winoConv) inputGradientRows(sc *winoScratch, n0, n1 int) {
	b, in := c.s.b, c.s.in
	hp, wp := b.hp(), b.wp()
	fresh := c.s.res == nil
	t := 0
	for n := n0; n < n1; n++ {
		// Each tile row stores into its last two rows, untouched before it
		// (WinogradGradInput's fresh), and adds into its first two; the
		// first tile row's first board row starts from zero, and the
		// padding rows are cleared (whatever else wrote there). With a
		// residual, dx is the residual's gradient (its padding zero) and
		// every tile row adds to it.
		img := c.dx[n*hp*wp*in:][:hp*wp*in]
		if fresh {
			clear(img[:2*wp*in])
			clear(img[(hp-1)*wp*in:])
		}
		for i := range c.th {
			var rows [4][]float32
			for r := range rows {
				// Padding rows take their share into the sink; a row's last
				// patch column past its padding lands in the next row's left
				// padding, cleared below.
				if pr := 2*i + r; pr >= 1 && pr < hp-1 {
					rows[r] = c.dx[(n*hp+pr)*wp*in:]
				} else {
					rows[r] = sc.sink
				}
			}
			gemm.WinogradGradInput(rows, sc.m[t*in:], c.rows*in, c.tw, in, fresh)
			t += c.tw
		}
		for y := 1; y < hp; y++ {
			row := c.dx[(n*hp+y)*wp*in:][:wp*in]
			clear(row[:in])
			clear(row[(wp-1)*in:])
		}
	}
}
