package ops

import (
	"runtime"

	"github.com/tabula-zero/tabula/internal/parallel"
	"github.com/tabula-zero/tabula/net/gemm"
)

// Precision is what a convolution's products are computed in.
type Precision int

const (
	FP32 Precision = iota
	BF16           // operands rounded to bfloat16, sums in float32
)

// bf16Conv runs a 3x3 convolution's three products (forward, input
// gradient, weight gradient) on gemm.TileBF16 (AMX-BF16 tiles or
// AVX512_BF16's VDPBF16PS): operands rounded to
// bfloat16, sums in float32, the weights' master copy and every other
// op in float32. The activations are read in place from compact bf16
// copies (a row of three taps is an offset, its 3*channels entries
// consecutive, as in gemm.Conv3AMX's taps); the weight gradient
// takes dy's compact pixels as its k dimension, 32 at a time, against the
// input transposed to channel rows, so that a tap is again an offset.
//
// The copies' layout (compact) keeps only the padding a 3x3 patch needs:
// one padding column at the right of each row (the next row's left
// neighbour) and one padding row between images (below one, above the
// next), where the graph's tensors pad every side of every image. For
// Xiangqi's 10x9 board an image takes 110 pixels instead of 132 and the
// tiles' span over it 99 rows instead of 108; Connect Four's 6x7, 56
// instead of 72 and 47 instead of 52. Fewer padded pixels are fewer
// products: the tiles compute every pixel of a span, and the weight
// gradient sums over all of them.
type bf16Conv struct {
	s                     *convState
	cw, total             int // compact row width, pixels
	fwd, bwd, dw          *gemm.TileBF16
	fwdTiles, bwdTiles    *gemm.AMXTiles
	dwTiles               *gemm.AMXTiles
	xb, dyb, wf, wb       []gemm.BF16
	xT, dyV               []gemm.BF16
	fperm, bperm          []int32     // the weight each packed entry takes, or -1
	rowLen, margin        int         // xT's rows: margin, nblk*dwBlk pixels, margin
	dwAcc                 [][]float32 // per part: [tap][in rounded to 16][out]
	nblk, dwPerBlock      int         // blocks of the weight gradient, tiles a block
	dwBlk                 int         // pixels a block
	fwdStep, dyStep       uint64      // forward passes run; the one whose dy is rounded
	sums                  [][]float32
	runPart, convertPart  func(part int)
	transposePart, dyPart func(part int)
	dwBlocksPart          func(part int)
	cur                   struct {
		t          *gemm.TileBF16
		tiles      *gemm.AMXTiles
		a, b       []gemm.BF16
		out        []float32
		src        []float32
		dst        []gemm.BF16
		parts, pix int
	}
}

// dwBlock is the most pixels of one block of the weight gradient's k
// dimension: 96 KiB of dy's pairs and of the input's rows at 48 channels.
// The pixels are cut into equal blocks of whole chunks of 32.
const dwBlock = 1024

// kSteps is the 32-wide k-steps of a row of taps: the three pixels of
// a patch's row lie next to each other, ch channels each, so one row of
// taps is 3*ch consecutive entries; the last step's entries past them
// (the next pixel's) meet zero weights.
func kSteps(ch int) int { return (3*ch + 31) / 32 }

// bf16Fits reports whether a convolution takes the bf16 tiles: 3x3,
// output channels (and input channels where their gradient is wanted)
// in whole panels of 16, at most three of them.
func bf16Fits(k, in, out int, inputGrad bool) bool {
	fit := func(c int) bool { return c%16 == 0 && c >= 16 && c <= 48 }
	return k == 3 && fit(out) && (!inputGrad || fit(in))
}

// bf16Pays reports whether the bf16 products beat float32's on boards of
// b's size on this CPU. The tiles compute every compact pixel of an
// image's span in whole groups (16 rows on AMX; 8 with VDPBF16PS, which
// skips a group of padding only), so a small board computes many rows
// for its pixels. VDPBF16PS does twice the fp32 FMA's work and loses
// beyond about 1.6 rows a pixel (Catch the Lion's 4x3 in the graph's
// padded layout: 24 rows for 12 pixels, 0.92x fp32 in the step; 16 in
// the compact one, even with it); AMX does about eight times as much
// and is taken whatever the board.
func bf16Pays(b Board) bool {
	if gemm.BF16Kernel() == "amx" {
		return true
	}
	rows := (compactSpan(b) + 7) / 8 * 8
	return 5*rows <= 8*b.H*b.W
}

// convTiles is the tile product of a convolution's pass reading ch
// channels a pixel (a row of three taps one run of kSteps(ch) k-steps,
// wp pixels a row) into panels of 16 output channels; its weights are
// packed [row of taps][k-step][panel] tiles of 16 pairs x 16 columns.
func convTiles(ch, wp, panels int) *gemm.TileBF16 {
	ks := kSteps(ch)
	t, err := gemm.NewTileBF16(gemm.TileBF16{AStride: ch * 2, Taps: []int{0, wp * ch * 2, 2 * wp * ch * 2},
		KSteps: ks, BStride: 64, BTap: ks * panels * 1024, BK: panels * 1024, BPanel: 1024, Panels: panels})
	if err != nil {
		panic(err) // bf16Fits admitted the shape
	}
	return t
}

// convPacking lists, for each entry of convTiles' packed weights, the
// weight of w (out, in, 3, 3) it takes, or -1 (a zero): k runs over kch
// channels and the columns over cols; weight(k, col, t) is the index in
// w of tap t (ky*3+kx) of channel k's row for output column col.
func convPacking(kch, cols int, weight func(k, col, t int) int) []int32 {
	ks, np := kSteps(kch), cols/16
	perm := make([]int32, 3*ks*np*512)
	for i := range perm {
		perm[i] = -1
	}
	for col := range cols {
		for k := range kch {
			for t := range 9 {
				kidx := (t%3)*kch + k
				tile := ((t/3)*ks+kidx/32)*np + col/16
				kk := kidx % 32
				perm[tile*512+(kk/2)*32+(col%16)*2+kk%2] = int32(weight(k, col, t))
			}
		}
	}
	return perm
}

// compactBase is the compact layout's first row's offset: the top-left
// tap of the first image's first pixel lies one pixel before its top
// padding row, and an even base keeps the rows' starts as even as the
// row width.
const compactBase = 2

// at is the compact index of board pixel (n, y, x).
func (c *bf16Conv) at(n, y, x int) int {
	return compactBase + (n*(c.s.b.H+1)+y+1)*c.cw + x
}

// compactSpan is the compact pixels of an image from its first board
// pixel to its last: the rows a pass's tiles compute for it.
func compactSpan(b Board) int { return (b.H-1)*(b.W+1) + b.W }

// compactTiles lists the tiles of a pass over the compact images, rows
// of rowBytes, each kept row written to its pixel of the graph's padded
// output (outStride floats a pixel).
func (c *bf16Conv) compactTiles(rowBytes, outStride int) *gemm.AMXTiles {
	b, wp := c.s.b, c.s.b.wp()
	span := compactSpan(b)
	var rows []int
	var coff [][gemm.AMXRows]int
	for n := range b.N {
		corner := c.at(n, 0, 0) - c.cw - 1 // the first pixel's top-left tap
		for p0 := 0; p0 < span; p0 += gemm.AMXRows {
			var co [gemm.AMXRows]int
			for r := range co {
				y, x := (p0+r)/c.cw, (p0+r)%c.cw
				co[r] = -1
				if x < b.W && y < b.H {
					co[r] = ((n*b.hp()+y+1)*wp + x + 1) * outStride
				}
			}
			rows, coff = append(rows, (corner+p0)*rowBytes), append(coff, co)
		}
	}
	t, err := gemm.NewAMXTiles(rows, coff)
	if err != nil {
		panic(err) // offsets from non-negative sizes are never negative
	}
	return t
}

func newBF16Conv(s *convState) *bf16Conv {
	b := s.b
	c := &bf16Conv{s: s, cw: b.W + 1}
	c.total = c.at(b.N, 0, 0) // through the padding row below the last image
	// The last tile's dropped rows and taps read past the last pixel, and
	// a row's last k-step up to 31 entries past its third pixel.
	slack := (gemm.AMXRows+2*c.cw+2)*max(s.in, s.out) + 32
	c.fwd = convTiles(s.in, c.cw, s.out/16)
	c.fwdTiles = c.compactTiles(s.in*2, s.out)
	c.xb = make([]gemm.BF16, c.total*s.in+slack)
	c.fperm = convPacking(s.in, s.out, func(ci, o, t int) int { return (o*s.in+ci)*9 + t })
	c.wf = make([]gemm.BF16, len(c.fperm))
	scratch := c.fwd.ScratchLen()
	if s.inputGrad {
		// The transposed convolution: w flipped in space, in and out exchanged.
		c.bwd = convTiles(s.out, c.cw, s.in/16)
		c.bwdTiles = c.compactTiles(s.out*2, s.in)
		c.dyb = make([]gemm.BF16, c.total*s.out+slack)
		c.bperm = convPacking(s.out, s.in, func(o, ci, t int) int { return (o*s.in+ci)*9 + 8 - t })
		c.wb = make([]gemm.BF16, len(c.bperm))
		scratch = max(scratch, c.bwd.ScratchLen())
	}
	c.sums = make([][]float32, splits(c.fwdTiles.Len())) // the backward pass has as many tiles
	for i := range c.sums {
		c.sums[i] = make([]float32, scratch)
	}
	// The weight gradient: rows of 16 input channels of the transposed
	// input, read from margin+tap offset, k = dy's compact pixels, in
	// blocks of at most dwBlock whose operands stay in the second-level
	// cache while the 27 tiles of a block (9 taps, up to 3 blocks of 16
	// channels) pass over them.
	c.margin = c.cw + 1
	c.nblk = (c.total + dwBlock - 1) / dwBlock
	c.dwBlk = gemm.RoundUp((c.total+c.nblk-1)/c.nblk, 32)
	kpix := c.nblk * c.dwBlk
	c.rowLen = gemm.RoundUp(2*c.margin+kpix, 32)
	inR := gemm.RoundUp(s.in, 16)
	c.xT = make([]gemm.BF16, (inR+gemm.AMXRows)*c.rowLen)
	c.dyV = make([]gemm.BF16, kpix*s.out)
	chunks := make([]int, c.dwBlk/32)
	for i := range chunks {
		chunks[i] = i * 64
	}
	var err error
	c.dw, err = gemm.NewTileBF16(gemm.TileBF16{AStride: c.rowLen * 2, Taps: chunks, KSteps: 1,
		BStride: s.out * 4, BTap: 16 * s.out * 4, BPanel: 64, Panels: s.out / 16})
	if err != nil {
		panic(err)
	}
	var rows []int
	var coff [][gemm.AMXRows]int
	for blk := range c.nblk {
		for t := range 9 {
			off := (t/3-1)*c.cw + t%3 - 1
			for c0 := 0; c0 < s.in; c0 += 16 {
				var co [gemm.AMXRows]int
				for r := range co {
					co[r] = (t*inR + c0 + r) * s.out // rows past in land in the padding rows
				}
				rows, coff = append(rows, (c0*c.rowLen+c.margin+off+blk*c.dwBlk)*2), append(coff, co)
			}
		}
	}
	if c.dwTiles, err = gemm.NewAMXTiles(rows, coff); err != nil {
		panic(err)
	}
	c.dwPerBlock = len(rows) / c.nblk
	c.dwAcc = make([][]float32, min(c.nblk, 2*runtime.GOMAXPROCS(0)))
	for i := range c.dwAcc {
		c.dwAcc[i] = make([]float32, 9*inR*s.out)
	}
	c.runPart, c.convertPart = c.runTiles, c.convertRows
	c.transposePart, c.dyPart, c.dwBlocksPart = c.transposeInput, c.pairDy, c.dwBlocks
	return c
}

// pack rounds the weights into their packed places.
func pack(dst []gemm.BF16, w []float32, perm []int32) {
	for i, j := range perm {
		if j >= 0 {
			dst[i] = gemm.ToBF16(w[j])
		}
	}
}

// run computes tiles over the cores.
func (c *bf16Conv) run(t *gemm.TileBF16, tiles *gemm.AMXTiles, a, b []gemm.BF16, out []float32) {
	c.cur.t, c.cur.tiles, c.cur.a, c.cur.b, c.cur.out = t, tiles, a, b, out
	c.cur.parts = splits(tiles.Len())
	parallel.For(c.cur.parts, c.runPart)
}

func (c *bf16Conv) runTiles(part int) {
	n, parts := c.cur.tiles.Len(), c.cur.parts
	c.cur.t.Run(c.cur.a, c.cur.tiles, n*part/parts, n*(part+1)/parts, c.cur.b, c.sums[part], c.cur.out)
}

// convert rounds the board pixels of src (padded, ch channels) into
// their compact places in dst over the cores, a board row at a time;
// dst's padding is never written, so it stays zero.
func (c *bf16Conv) convert(dst []gemm.BF16, src []float32) {
	c.cur.dst, c.cur.src = dst, src
	c.cur.parts = splits(c.s.b.N * c.s.b.H)
	parallel.For(c.cur.parts, c.convertPart)
}

func (c *bf16Conv) convertRows(part int) {
	b, ch := c.s.b, c.s.in
	rows := b.N * b.H
	for r := rows * part / c.cur.parts; r < rows*(part+1)/c.cur.parts; r++ {
		n, y := r/b.H, r%b.H
		src := c.cur.src[((n*b.hp()+y+1)*b.wp()+1)*ch:][:b.W*ch]
		gemm.ConvertBF16(c.cur.dst[c.at(n, y, 0)*ch:], src)
	}
}

// forward: y = conv(x, w) on the tiles.
func (c *bf16Conv) forward(x, w, y []float32) {
	c.fwdStep++
	pack(c.wf, w, c.fperm)
	c.convert(c.xb, x)
	c.run(c.fwd, c.fwdTiles, c.xb, c.wf, y)
}

// inputGradient: dx = conv^T(dy, w), the weights flipped in space with
// in and out exchanged; dy's border is zero, as every padded tensor's.
func (c *bf16Conv) inputGradient(w, dy, dx []float32) {
	pack(c.wb, w, c.bperm)
	c.prepareDy(dy)
	c.run(c.bwd, c.bwdTiles, c.dyb, c.wb, dx)
}

// weightGradient: dw[o][c][tap] = sum over compact pixels p of
// dy[p][o] * x[p + tap offset][c] (dy's padding is zero, so only board
// pixels count). x is the forward pass's input, already in xb.
func (c *bf16Conv) weightGradient(x, dy, dw []float32) {
	s := c.s
	c.cur.pix = c.total
	c.cur.parts = splits(c.cur.pix / transposeBlock)
	parallel.For(c.cur.parts, c.transposePart)
	c.prepareDy(dy)
	inR := gemm.RoundUp(s.in, 16)
	c.cur.parts = len(c.dwAcc)
	parallel.For(c.cur.parts, c.dwBlocksPart)
	// The parts' sums, added in part order (deterministic for a given
	// number of threads), reordered [tap][c][o] -> [o][c][tap].
	acc := c.dwAcc[0]
	for _, p := range c.dwAcc[1:] {
		for i, v := range p {
			acc[i] += v
		}
	}
	for t := range 9 {
		for ci := range s.in {
			row := acc[(t*inR+ci)*s.out:][:s.out]
			for o, v := range row {
				dw[(o*s.in+ci)*9+t] = v
			}
		}
	}
}

// dwBlocks is part of weightGradient: a range of blocks of pixels into
// the part's own sums.
func (c *bf16Conv) dwBlocks(part int) {
	parts, out := c.cur.parts, c.s.out
	b0, b1 := c.nblk*part/parts, c.nblk*(part+1)/parts
	for blk := b0; blk < b1; blk++ {
		c.dw.RunDirect(c.xT, c.dwTiles, blk*c.dwPerBlock, (blk+1)*c.dwPerBlock, c.dyV[blk*c.dwBlk*out:],
			c.dwAcc[part], out, blk > b0)
	}
}

// transposeInput is part of weightGradient: a range of xb's pixels
// written into the channel rows of xT.
func (c *bf16Conv) transposeInput(part int) {
	parts, pix := c.cur.parts, c.cur.pix
	p0, p1 := pix*part/parts, pix*(part+1)/parts
	gemm.TransposeBF16(c.xT[c.margin+p0:], c.rowLen, c.xb[p0*c.s.in:], c.s.in, p1-p0, c.s.in)
}

// prepareDy rounds dy once a step for both gradients: into dyV, its
// compact pixels in pairs ([p/2][o][p%2]) for the weight gradient, and
// where the input gradient is wanted into dyb, the compact copy in NHWC,
// from the same pair of rows while they are in the first-level cache.
// Both gradients of a step take the dy of that step's forward pass.
func (c *bf16Conv) prepareDy(dy []float32) {
	if c.dyStep == c.fwdStep {
		return
	}
	c.dyStep = c.fwdStep
	c.cur.src = dy
	c.cur.parts = splits(c.s.b.N * c.s.b.H)
	parallel.For(c.cur.parts, c.dyPart)
}

// pairDy is part of prepareDy: a range of board rows. A row's pixels
// from an even compact index go to gemm.ConvertPixelPairsBF16, an odd
// count with the padding pixel after them (zero in dy, zero in the
// copies) so that the vector loop takes every pair; a row starting at an
// odd index (an even board width) takes its first pixel here.
func (c *bf16Conv) pairDy(part int) {
	b, out := c.s.b, c.s.out
	rows := b.N * b.H
	for r := rows * part / c.cur.parts; r < rows*(part+1)/c.cur.parts; r++ {
		n, y := r/b.H, r%b.H
		src := c.cur.src[((n*b.hp()+y+1)*b.wp()+1)*out:][:(b.W+1)*out]
		q, w := c.at(n, y, 0), b.W
		if q%2 == 1 {
			pair := c.dyV[(q/2)*2*out:][:2*out]
			for o, v := range src[:out] {
				pair[2*o+1] = gemm.ToBF16(v)
				if c.s.inputGrad {
					c.dyb[q*out+o] = pair[2*o+1]
				}
			}
			q, w, src = q+1, w-1, src[out:]
		}
		if w == 0 {
			continue
		}
		w += w % 2
		var rowsOut []gemm.BF16
		if c.s.inputGrad {
			rowsOut = c.dyb[q*out:]
		}
		gemm.ConvertPixelPairsBF16(c.dyV[(q/2)*2*out:], rowsOut, src, w, out)
	}
}
