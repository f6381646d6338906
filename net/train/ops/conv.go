package ops

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/internal/parallel"
	"github.com/tabula-zero/tabula/net/gemm"
)

// dwChunk is the number of pixels one pass of the weight gradient packs:
// a chunk of one panel (dwChunk x nr floats, 32 KiB at nr = 32) stays in
// the first-level cache while the output-channel tiles stream past it.
const dwChunk = 256

// Conv is a k x k convolution (k = 1 or 3, stride 1, same padding, no
// bias) from padded NHWC x (n, h+2, w+2, in) with weights w (out, in, k, k),
// gorgonia's and the checkpoints' layout, to padded NHWC (n, h+2, w+2,
// out). inputGrad false leaves x without a gradient (the network's input
// planes), which saves the transposed convolution there. BF16 runs the
// products in bfloat16 (AMX-BF16 tiles or AVX512_BF16) where the CPU has
// them, the shape fits (bf16Fits) and the board is large enough for them
// to pay (bf16Pays), float32 otherwise; in float32 the 3x3 convolutions of
// 16 to 48 channels take Winograd's products (winogradF32Fits).
func Conv(x, w *G.Node, b Board, k int, inputGrad bool, p Precision) (*G.Node, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	ws := w.Shape()
	if len(ws) != 4 || ws[2] != k || ws[3] != k || (k != 1 && k != 3) {
		return nil, fmt.Errorf("ops: convolution weights of shape %v for k = %d", ws, k)
	}
	out, in := ws[0], ws[1]
	if xs := x.Shape(); !xs.Eq(b.padded(in)) {
		return nil, fmt.Errorf("ops: convolution input of shape %v, want %v", xs, b.padded(in))
	}
	s := newConvState(b, k, in, out, convKernel(k, in, out, inputGrad))
	s.inputGrad, s.xNode = inputGrad, x
	if p == BF16 && bf16Fits(k, in, out, inputGrad) && (winogradAnyCPU || gemm.HasBF16() && bf16Pays(b)) {
		if winogradFits(s) {
			s.useWinograd(false)
		} else {
			s.bf = newBF16Conv(s)
		}
	} else if winogradF32Fits(s) {
		// float32, also where bf16 was asked for and the CPU lacks it
		s.useWinograd(true)
	}
	return G.ApplyOp(&convOp{base("conv", s.id), s}, x, w)
}

// useWinograd has the convolution run its products as Winograd's, in
// float32 or bfloat16.
func (s *convState) useWinograd(f32 bool) {
	s.wino = newWinoConv(s, f32)
	// One pass makes both gradients, whichever op asks first.
	s.dw = newOutput(s.wshape, 0)
	if s.inputGrad {
		s.dx = newOutput(s.b.padded(s.in), s.bwd.cs)
	}
}

// convKernel picks the kernel that pads the convolution's products least:
// the forward pass (out columns), the weight gradient (k*k*in columns) and
// the input gradient (in columns), each weighted by its inner dimension.
func convKernel(k, in, out int, inputGrad bool) gemm.Kernel {
	kk := k * k
	return gemm.Cheapest(func(nr int) int {
		work := kk*in*gemm.RoundUp(out, nr) + out*gemm.RoundUp(kk*in, nr)
		if inputGrad {
			work += kk * out * gemm.RoundUp(in, nr)
		}
		return work
	})
}

// convState is what the three ops of one convolution (forward, input
// gradient, weight gradient) share: geometry, packed weights, offset
// tables and the reused buffers.
type convState struct {
	id             uint64
	b              Board
	k, in, out     int
	kern           gemm.Kernel
	inputGrad      bool
	xNode          *G.Node   // the input's node
	res            *BN       // a batch norm whose residual is x: its gradient is added to dx, or nil
	stats          *BN       // the batch norm of y, whose per-image sums the Winograd products make, or nil
	bf             *bf16Conv // the products on bf16 tiles, or nil
	wino           *winoConv // the products in bf16 by Winograd's algorithm, or nil
	pp             []int     // padded pixel of each board pixel
	rows           int       // pixels rounded up to whole tiles
	fwd, bwd       pass
	y, dx, dw      output
	dyT            []float32 // dy transposed: [mpad][pixels]
	dwParts        []dwPart
	accRows, kpad  int
	wshape, xshape tensor.Shape
	yshape         tensor.Shape

	// The loop bodies handed to parallel.For, made once (a closure made
	// per call would be allocated per call), and their arguments.
	runPart, transposePart, dwPart, addPart func(part int)
	cur                                     struct {
		p      *pass
		a, dst []float32
		x, dy  []float32
		parts  int
	}
	runTiles []gemm.Tile // per part of run
}

// dwPart is one part's share of the weight gradient: its accumulator,
// its packed patch chunk and its tile.
type dwPart struct {
	acc, col []float32
	t        gemm.Tile
	ao, co   [gemm.MR]int
}

// pass is one convolution as tiles: rows are board pixels, reading a
// padded NHWC tensor with channel stride from and writing one with
// channel stride to.
type pass struct {
	from, to   int
	cs         int // output column stride: to rounded up to whole panels
	panels     int
	nseg, slen int
	stride     int
	w          []float32 // packed weights
	aoff, coff []int
	tmp        []float32 // output with column stride cs when cs != to
}

func newConvState(b Board, k, in, out int, kern gemm.Kernel) *convState {
	s := &convState{id: newID(), b: b, k: k, in: in, out: out, kern: kern, pp: b.paddedPixels()}
	s.rows = gemm.RoundUp(b.pixels(), gemm.MR)
	s.fwd = s.newPass(in, out)
	s.bwd = s.newPass(out, in)
	s.wshape = tensor.Shape{out, in, k, k}
	s.xshape = b.padded(in)
	s.yshape = b.padded(out)
	s.accRows = gemm.RoundUp(out, gemm.MR)
	s.kpad = gemm.RoundUp(k*k*in, kern.NR)
	s.runPart, s.transposePart, s.dwPart, s.addPart = s.runRows, s.transposeRows, s.dwPixels, s.addRange
	return s
}

func (s *convState) newPass(from, to int) pass {
	nr := s.kern.NR
	p := pass{from: from, to: to, cs: gemm.RoundUp(to, nr)}
	p.panels = p.cs / nr
	wp := s.b.wp()
	if s.k == 3 {
		p.nseg, p.slen, p.stride = 3, 3*from, wp*from
	} else {
		p.nseg, p.slen = 1, from
	}
	p.w = make([]float32, p.panels*p.nseg*p.slen*nr)
	p.aoff = make([]int, s.rows)
	p.coff = make([]int, s.rows)
	direct := p.cs == to
	tail := s.b.N * s.b.hp() * wp * to // first float past the padded tensor
	if !direct {
		p.tmp = make([]float32, (len(s.pp)+1)*p.cs)
		tail = len(s.pp) * p.cs
	}
	for r := range p.aoff {
		if r >= len(s.pp) {
			// Rows past the last pixel recompute the first one into the tail.
			p.aoff[r], p.coff[r] = p.aoff[0], tail
			continue
		}
		q := s.pp[r]
		if s.k == 3 {
			q -= wp + 1 // top-left corner of the patch
		}
		p.aoff[r] = q * from
		if direct {
			p.coff[r] = s.pp[r] * to
		} else {
			p.coff[r] = r * p.cs
		}
	}
	return p
}

// run computes the pass from a into dst (padded NHWC with the pass's
// output channels and at least cs floats of tail).
func (s *convState) run(p *pass, a, dst []float32) {
	parts := splits(s.rows / gemm.MR)
	for len(s.runTiles) < parts {
		s.runTiles = append(s.runTiles, gemm.Tile{})
	}
	s.cur.p, s.cur.a, s.cur.dst, s.cur.parts = p, a, dst, parts
	parallel.For(parts, s.runPart)
}

// runRows is part of run: a range of whole tiles of rows.
func (s *convState) runRows(part int) {
	p, dst, parts := s.cur.p, s.cur.dst, s.cur.parts
	t := &s.runTiles[part]
	*t = gemm.Tile{A: s.cur.a, NSeg: p.nseg, SegLen: p.slen, SegStride: p.stride, C: dst}
	if p.tmp != nil {
		t.C = p.tmp
	}
	r0 := s.rows / gemm.MR * part / parts * gemm.MR
	r1 := s.rows / gemm.MR * (part + 1) / parts * gemm.MR
	tiles(s.kern, t, p.w, p.panels, p.aoff, p.coff, r0, r1, false)
	if p.tmp != nil {
		for r := r0; r < min(r1, len(s.pp)); r++ {
			copy(dst[s.pp[r]*p.to:(s.pp[r]+1)*p.to], p.tmp[r*p.cs:])
		}
	}
}

// packForward lays out w (out, in, k, k) as panels [ky][kx][in] x out.
func (s *convState) packForward(w []float32) {
	nr, kdim := s.kern.NR, s.fwd.nseg*s.fwd.slen
	for o := 0; o < s.out; o++ {
		for c := 0; c < s.in; c++ {
			for ky := 0; ky < s.k; ky++ {
				for kx := 0; kx < s.k; kx++ {
					kidx := (ky*s.k+kx)*s.in + c
					s.fwd.w[((o/nr)*kdim+kidx)*nr+o%nr] = w[((o*s.in+c)*s.k+ky)*s.k+kx]
				}
			}
		}
	}
}

// packBackward lays out the transposed convolution's weights, w flipped
// in space with in and out exchanged: panels [ky][kx][out] x in.
func (s *convState) packBackward(w []float32) {
	nr, kdim := s.kern.NR, s.bwd.nseg*s.bwd.slen
	k := s.k
	for o := 0; o < s.out; o++ {
		for c := 0; c < s.in; c++ {
			for ky := 0; ky < k; ky++ {
				for kx := 0; kx < k; kx++ {
					kidx := (ky*k+kx)*s.out + o
					s.bwd.w[((c/nr)*kdim+kidx)*nr+c%nr] = w[((o*s.in+c)*k+(k-1-ky))*k+(k-1-kx)]
				}
			}
		}
	}
}

// forward: y = conv(x, w).
func (s *convState) forward(x, w []float32) *tensor.Dense {
	if s.y.t == nil {
		s.y = newOutput(s.b.padded(s.out), s.fwd.cs)
	}
	if s.wino != nil {
		s.wino.forward(x, w, s.y.buf)
		return s.y.t
	}
	if s.bf != nil {
		s.bf.forward(x, w, s.y.buf)
		return s.y.t
	}
	s.packForward(w)
	s.run(&s.fwd, x, s.y.buf)
	return s.y.t
}

// inputGradient: dx = conv^T(dy, w) (+ dres, the gradient of the batch
// norm's residual, when s.res is set), the border of dx left zero.
func (s *convState) inputGradient(w, dy, dres []float32) *tensor.Dense {
	if s.dx.t == nil {
		s.dx = newOutput(s.b.padded(s.in), s.bwd.cs)
	}
	switch {
	case s.wino != nil:
		dx := s.winoDx()
		s.wino.backward(dy, dx.buf, s.dw.buf)
		return dx.t
	case s.bf != nil:
		s.bf.inputGradient(w, dy, s.dx.buf)
	default:
		s.packBackward(w)
		s.run(&s.bwd, dy, s.dx.buf)
	}
	if s.res != nil {
		s.addResidual(dres)
	}
	return s.dx.t
}

// winoDx is where the Winograd products write the input gradient: with
// a residual, into the batch norm's gradient of it, which they add to in
// place (nothing else reads it), else into dx. The weight gradient's op
// may ask for both gradients first: both ops take it from here.
func (s *convState) winoDx() output {
	if s.res != nil {
		return s.res.dres
	}
	return s.dx
}

// addResidual adds dres to dx on every core, in contiguous ranges.
func (s *convState) addResidual(dres []float32) {
	s.cur.dy, s.cur.parts = dres, splits(len(dres)/4096)
	parallel.For(s.cur.parts, s.addPart)
}

// addRange is part of addResidual.
func (s *convState) addRange(part int) {
	n := len(s.cur.dy)
	lo, hi := n*part/s.cur.parts, n*(part+1)/s.cur.parts
	dx := s.dx.buf[lo:hi]
	for i, v := range s.cur.dy[lo:hi] {
		dx[i] += v
	}
}

// weightGradient: dw[o][c][ky][kx] = sum over pixels p of
// dy[p][o] * x[p + (ky-1, kx-1)][c]. It is a matrix product of dy
// transposed (out x pixels) and the pixels' patches (pixels x k*k*in);
// the patches are packed chunk by chunk straight into panel layout, and
// every part of the pixel range sums into its own accumulator, added up
// in part order (deterministic for a given number of threads).
func (s *convState) weightGradient(x, dy []float32) *tensor.Dense {
	if s.wino != nil {
		s.wino.backward(dy, s.winoDx().buf, s.dw.buf)
		return s.dw.t
	}
	if s.bf != nil {
		if s.dw.t == nil {
			s.dw = newOutput(s.wshape, 0)
		}
		s.bf.weightGradient(x, dy, s.dw.buf)
		return s.dw.t
	}
	px := len(s.pp)
	parts := max(1, min(runtime.GOMAXPROCS(0), (px+dwChunk-1)/dwChunk))
	if s.dw.t == nil {
		s.dw = newOutput(s.wshape, 0)
		s.dyT = make([]float32, s.accRows*px)
	}
	for len(s.dwParts) < parts {
		s.dwParts = append(s.dwParts, dwPart{acc: make([]float32, s.accRows*s.kpad), col: make([]float32, dwChunk*s.kpad)})
	}
	s.cur.x, s.cur.dy = x, dy
	// dy transposed, board pixels only; rows past out stay zero.
	s.cur.parts = splits(px)
	parallel.For(s.cur.parts, s.transposePart)
	s.cur.parts = parts
	parallel.For(parts, s.dwPart)
	// Sum the parts and reorder [o][ky][kx][c] into [o][c][ky][kx].
	acc := s.dwParts[0].acc
	for p := 1; p < parts; p++ {
		for i, v := range s.dwParts[p].acc {
			acc[i] += v
		}
	}
	dw := s.dw.buf
	kk := s.k * s.k
	for o := 0; o < s.out; o++ {
		for c := 0; c < s.in; c++ {
			for q := 0; q < kk; q++ {
				dw[(o*s.in+c)*kk+q] = acc[o*s.kpad+q*s.in+c]
			}
		}
	}
	return s.dw.t
}

// transposeBlock is how many pixels transposeRows moves at a time: a
// cache line of each row of dyT.
const transposeBlock = 16

// transposeRows is part of weightGradient: dy transposed for a range of
// pixels, block by block. dyT's rows lie px floats apart, at a batch of
// 128 or 256 a multiple of 1 KiB, so they share a few cache sets; writing
// one float to every row per pixel evicted each line long before it was
// full (16% of a Xiangqi training step), where a block's source rows stay
// in L1 while each row of dyT gets a whole line.
func (s *convState) transposeRows(part int) {
	px, parts, dy, out := len(s.pp), s.cur.parts, s.cur.dy, s.out
	end := px * (part + 1) / parts
	for b := px * part / parts; b < end; b += transposeBlock {
		pp := s.pp[b:min(b+transposeBlock, end)]
		for o := range out {
			dst := s.dyT[o*px+b : o*px+b+len(pp)]
			for j, q := range pp {
				dst[j] = dy[q*out+o]
			}
		}
	}
}

// dwPixels is part of weightGradient: the sums over a range of pixels
// into the part's own accumulator.
func (s *convState) dwPixels(part int) {
	px, parts := len(s.pp), s.cur.parts
	i0, i1 := px*part/parts, px*(part+1)/parts
	d := &s.dwParts[part]
	for c0 := i0; c0 < i1; c0 += dwChunk {
		n := min(dwChunk, i1-c0)
		s.packPatches(s.cur.x, d.col, c0, n)
		for tr := 0; tr < s.accRows; tr += gemm.MR {
			for r := 0; r < gemm.MR; r++ {
				d.ao[r] = (tr+r)*px + c0
				d.co[r] = (tr + r) * s.kpad
			}
			d.t = gemm.Tile{A: s.dyT, NSeg: 1, SegLen: n, C: d.acc}
			tiles(s.kern, &d.t, d.col[:n*s.kpad], s.kpad/s.kern.NR, d.ao[:], d.co[:], 0, gemm.MR, c0 > i0)
		}
	}
}

// packPatches writes the patches of pixels [p0, p0+n) into col as panels
// [n][nr] of the k*k*in patch entries ([ky][kx][in] order, zero past the
// last). It fills one panel at a time, so that its writes run straight
// through memory; a pixel's entries lie in every panel.
func (s *convState) packPatches(x, col []float32, p0, n int) {
	nr := s.kern.NR
	wp := s.b.wp()
	entries := s.k * s.k * s.in
	pp := s.pp[p0 : p0+n]
	for panel := 0; panel < s.kpad/nr; panel++ {
		dst := col[panel*n*nr : (panel+1)*n*nr]
		for col0 := 0; col0 < nr; {
			kidx := panel*nr + col0
			if kidx >= entries {
				for j := range pp {
					clear(dst[j*nr+col0 : (j+1)*nr])
				}
				break
			}
			tap, c := kidx/s.in, kidx%s.in
			run := min(nr-col0, s.in-c)
			off := 0
			if s.k == 3 {
				off = (tap/3-1)*wp + tap%3 - 1
			}
			if run == 16 {
				// Four 16-byte moves: copy's call cost more than the 64
				// bytes it moved (and a [16]float32 assignment compiles
				// to a call to memmove).
				for j, q := range pp {
					src, d := x[(q+off)*s.in+c:][:16], dst[j*nr+col0:][:16]
					*(*[4]float32)(d[0:4]) = *(*[4]float32)(src[0:4])
					*(*[4]float32)(d[4:8]) = *(*[4]float32)(src[4:8])
					*(*[4]float32)(d[8:12]) = *(*[4]float32)(src[8:12])
					*(*[4]float32)(d[12:16]) = *(*[4]float32)(src[12:16])
				}
			} else {
				for j, q := range pp {
					src := (q+off)*s.in + c
					copy(dst[j*nr+col0:][:run], x[src:src+run])
				}
			}
			col0 += run
		}
	}
}

// convOp is the forward convolution; inputs x, w.
type convOp struct {
	opBase
	s *convState
}

func type4(arity int) hm.Type {
	t := G.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	ts := make([]hm.Type, arity+1)
	for i := range ts {
		ts[i] = t
	}
	return hm.NewFnType(ts...)
}

func (op *convOp) Arity() int    { return 2 }
func (op *convOp) Type() hm.Type { return type4(2) }
func (op *convOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.s.b.padded(op.s.out), nil
}
func (op *convOp) String() string {
	return fmt.Sprintf("Conv%dx%d(%d->%d)", op.s.k, op.s.k, op.s.in, op.s.out)
}
func (op *convOp) DiffWRT(int) []bool { return []bool{op.s.inputGrad, true} }

func (op *convOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := unpack("convolution", vals, arg{op.s.xshape, "convolution input"}, arg{op.s.wshape, "convolution weights"})
	if err != nil {
		return nil, err
	}
	return op.s.forward(in[0], in[1]), nil
}

func (op *convOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 2 {
		return nil, errors.New("ops: convolution gradient needs 2 inputs")
	}
	dw, err := G.ApplyOp(&convWeightGradOp{base("convdw", op.s.id), op.s}, inputs[0], grad)
	if err != nil {
		return nil, err
	}
	var dx *G.Node
	if op.s.inputGrad {
		args := G.Nodes{inputs[1], grad}
		if bn := op.s.res; bn != nil {
			// The residual's gradient, an input for the order: the tape has
			// made it by the time this op runs.
			if bn.gradNode == nil {
				return nil, errors.New("ops: convolution differentiated before the batch norm whose residual it feeds")
			}
			dres, err := G.ApplyOp(bn.partOp(partResidual), bn.gradNode)
			if err != nil {
				return nil, err
			}
			args = append(args, dres)
		}
		if dx, err = G.ApplyOp(&convInputGradOp{base("convdx", op.s.id), op.s}, args...); err != nil {
			return nil, err
		}
	}
	return G.Nodes{dx, dw}, nil
}

// AddResidualGradient has the input gradient of conv, a convolution whose
// input takes a gradient, add that of bn's residual, which must be the
// same node as conv's input (a residual block's input feeds its first
// convolution and its last batch norm). gorgonia would otherwise add the
// two gradients in a pass of their own, over tensors past the caches; the
// Winograd products add into the residual's gradient in place (winoDx),
// other products add it after theirs. Call it before the graph is
// differentiated.
func AddResidualGradient(conv *G.Node, bn *BN) error {
	op, ok := conv.Op().(*convOp)
	switch {
	case !ok:
		return fmt.Errorf("ops: residual gradient added to %v, not a convolution", conv.Op())
	case !op.s.inputGrad:
		return errors.New("ops: residual gradient added to a convolution whose input takes no gradient")
	case bn.resNode == nil || op.s.xNode != bn.resNode:
		return errors.New("ops: residual gradient added to a convolution whose input is not the batch norm's residual")
	case op.s.res != nil || bn.resByConv:
		return errors.New("ops: residual gradient added twice")
	case !op.s.xshape.Eq(bn.shape):
		return fmt.Errorf("ops: residual of shape %v added to a convolution input of %v", bn.shape, op.s.xshape)
	}
	op.s.res, bn.resByConv = bn, true
	return nil
}

// convInputGradOp is the input gradient; inputs w, dy and, with a
// residual (AddResidualGradient), the residual's gradient, which the
// Winograd products add into and return.
type convInputGradOp struct {
	opBase
	s *convState
}

func (op *convInputGradOp) arity() int {
	if op.s.res != nil {
		return 3
	}
	return 2
}
func (op *convInputGradOp) Arity() int    { return op.arity() }
func (op *convInputGradOp) Type() hm.Type { return type4(op.arity()) }
func (op *convInputGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.s.xshape.Clone(), nil
}
func (op *convInputGradOp) String() string { return "ConvInputGrad" }

func (op *convInputGradOp) Do(vals ...G.Value) (G.Value, error) {
	args := [3]arg{{op.s.wshape, "convolution weights"}, {op.s.yshape, "convolution output gradient"}, {op.s.xshape, "residual gradient"}}
	in, err := unpack("convolution input gradient", vals, args[:op.arity()]...)
	if err != nil {
		return nil, err
	}
	return op.s.inputGradient(in[0], in[1], in[2]), nil
}

// convWeightGradOp is the weight gradient; inputs x, dy.
type convWeightGradOp struct {
	opBase
	s *convState
}

func (op *convWeightGradOp) Arity() int    { return 2 }
func (op *convWeightGradOp) Type() hm.Type { return type4(2) }
func (op *convWeightGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.s.wshape.Clone(), nil
}
func (op *convWeightGradOp) String() string { return "ConvWeightGrad" }

func (op *convWeightGradOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := unpack("convolution weight gradient", vals, arg{op.s.xshape, "convolution input"}, arg{op.s.yshape, "convolution output gradient"})
	if err != nil {
		return nil, err
	}
	return op.s.weightGradient(in[0], in[1]), nil
}
