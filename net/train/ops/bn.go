package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/internal/parallel"
	"github.com/tabula-zero/tabula/net/train/bnkern"
)

// BN is a training-mode batch norm fused with the residual add and ReLU:
//
//	z = relu(gamma * (y - mean) / sqrt(var + eps) + beta (+ res))
//
// over padded NHWC y, with the batch's mean and biased variance per
// channel. Every forward pass moves the running statistics as gorgonia's
// BatchNormOp does (PyTorch convention, unbiased variance):
// running = momentum*batch + (1-momentum)*running. Sums run in float64,
// image by image, added up in image order: the result does not depend on
// the number of threads. The statistics take one pass over the batch:
// each image's sum, then its squared deviations from its own mean while
// it is still in cache, combined as Chan et al.'s pairwise variance.
type BN struct {
	id            uint64
	b             Board
	c             int
	momentum, eps float64
	residual      bool
	resNode       *G.Node // the residual's node
	resByConv     bool    // the residual's gradient is added by the convolution it feeds (AddResidualGradient)
	gradNode      *G.Node // bnGradOp's node, once the graph is differentiated
	statsByConv   bool    // the Winograd convolution that makes y sums its images (imageStats) as it writes them
	gradByConv    bool    // that convolution's backward pass writes dy (and the residual's gradient) chunk by chunk
	gradPending   bool    // backward left dy to the convolution (gradByConv), which has not written it yet

	runMean, runVar *tensor.Dense // (c)
	mean, invstd    []float64     // of the last forward pass
	scale, shift    []float32
	part            []float64 // per image: 2*c partial sums
	imgMean         []float64 // per image: c means, for the statistics' pass
	s0, s1          []float64 // per channel sums
	a, by, d0       []float32 // backward: dy = a*g + by*y + d0 per channel
	mask            []byte    // which outputs the ReLU passed (bnkern's bits), from the forward pass
	z, dy, dres     output
	dgamma, dbeta   output

	// The per-image loop bodies handed to parallel.For, made once, and
	// their arguments.
	shape, pshape                             tensor.Shape // of y, of gamma
	statPart, normPart, gradSumPart, gradPart func(n int)
	cur                                       struct{ y, res, z, dz []float32 }
	maskRow                                   int // mask bytes a padded row of pixels
}

// chunkPasses lets a Winograd convolution make its batch norm's sums and
// dy in its chunks; tests turn it off to check them against the batch
// norm's own passes.
var chunkPasses = true

// BatchNorm applies a fused batch norm to y (padded NHWC, c channels) with
// gamma and beta of shape (1, c, 1, 1); res is nil or a padded NHWC tensor
// like y added before the ReLU. The running statistics start at mean 0,
// variance 1.
func BatchNorm(y, gamma, beta, res *G.Node, b Board, momentum, eps float64) (*G.Node, *BN, error) {
	if err := b.check(); err != nil {
		return nil, nil, err
	}
	ys := y.Shape()
	if len(ys) != 4 || !ys.Eq(b.padded(ys[3])) {
		return nil, nil, fmt.Errorf("ops: batch norm of shape %v, want (%d, %d, %d, c)", ys, b.N, b.hp(), b.wp())
	}
	c := ys[3]
	for _, p := range []*G.Node{gamma, beta} {
		if !p.Shape().Eq(tensor.Shape{1, c, 1, 1}) {
			return nil, nil, fmt.Errorf("ops: batch norm scale or shift of shape %v, want (1, %d, 1, 1)", p.Shape(), c)
		}
	}
	if b.pixels() < 2 {
		return nil, nil, errors.New("ops: batch norm needs at least 2 pixels per channel")
	}
	bn := &BN{id: newID(), b: b, c: c, momentum: momentum, eps: eps, residual: res != nil,
		runMean: tensor.New(tensor.WithShape(c), tensor.Of(tensor.Float32)),
		runVar:  tensor.New(tensor.WithShape(c), tensor.WithBacking(ones(c))),
		mean:    make([]float64, c), invstd: make([]float64, c),
		scale: make([]float32, c), shift: make([]float32, c),
		part: make([]float64, b.N*2*c), imgMean: make([]float64, b.N*c),
		s0: make([]float64, c), s1: make([]float64, c),
		a: make([]float32, c), by: make([]float32, c), d0: make([]float32, c),
	}
	bn.shape, bn.pshape = b.padded(c), tensor.Shape{1, c, 1, 1}
	bn.maskRow = b.wp() * bnkern.MaskBytes(c)
	bn.mask = make([]byte, b.N*b.hp()*bn.maskRow)
	bn.statPart, bn.normPart = bn.statImage, bn.normImage
	bn.gradSumPart, bn.gradPart = bn.gradSumImage, bn.gradImage
	inputs := []*G.Node{y, gamma, beta}
	if res != nil {
		if !res.Shape().Eq(ys) {
			return nil, nil, fmt.Errorf("ops: residual of shape %v added to %v", res.Shape(), ys)
		}
		inputs = append(inputs, res)
		bn.resNode = res
	}
	if op, ok := y.Op().(*convOp); ok && op.s.wino != nil && op.s.stats == nil && chunkPasses {
		op.s.stats, bn.statsByConv = bn, true
	}
	z, err := G.ApplyOp(&bnOp{base("bn", bn.id), bn}, inputs...)
	if err != nil {
		return nil, nil, err
	}
	return z, bn, nil
}

func ones(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// Stats returns the running mean and variance (shape (c)); they are the
// op's own tensors.
func (bn *BN) Stats() (mean, variance tensor.Tensor) { return bn.runMean, bn.runVar }

// SetStats copies running statistics into the op.
func (bn *BN) SetStats(mean, variance tensor.Tensor) error {
	var src [2][]float32
	for i, t := range []tensor.Tensor{mean, variance} {
		d, ok := t.(*tensor.Dense)
		if !ok || d.Dtype() != tensor.Float32 || d.Shape().TotalSize() != bn.c {
			return fmt.Errorf("ops: batch norm statistics of shape %v and type %v, want (%d) float32", t.Shape(), t.Dtype(), bn.c)
		}
		src[i] = d.Float32s()
	}
	copy(bn.runMean.Float32s(), src[0])
	copy(bn.runVar.Float32s(), src[1])
	return nil
}

// row returns where board row y of image n lies in a padded NHWC tensor
// of c channels: its first float and one past its last.
func (bn *BN) row(n, y int) (lo, hi int) {
	b := bn.b
	lo = ((n*b.hp()+y+1)*b.wp() + 1) * bn.c
	return lo, lo + b.W*bn.c
}

// sums runs f, which adds two per-channel terms over the board pixels of
// one image into that image's partial sums, on every image in parallel,
// then adds the partial sums up in image order into s0 and s1.
func (bn *BN) sums(f func(n int), s0, s1 []float64) {
	c := bn.c
	clear(bn.part)
	parallel.For(bn.b.N, f)
	clear(s0)
	clear(s1)
	for n := 0; n < bn.b.N; n++ {
		p := bn.part[n*2*c : (n+1)*2*c]
		for i := 0; i < c; i++ {
			s0[i] += p[i]
			s1[i] += p[c+i]
		}
	}
}

// rowMask returns the ReLU mask of board row y of image n (bn.row's pixels).
func (bn *BN) rowMask(n, y int) []byte {
	b, mb := bn.b, bnkern.MaskBytes(bn.c)
	lo := (n*b.hp()+y+1)*bn.maskRow + mb
	return bn.mask[lo : lo+b.W*mb]
}

// partial returns image n's two partial sums.
func (bn *BN) partial(n int) (s0, s1 []float64) {
	p := bn.part[n*2*bn.c : (n+1)*2*bn.c]
	return p[:bn.c], p[bn.c:]
}

func (bn *BN) forward(y, gamma, beta, res []float32) *tensor.Dense {
	c, px := bn.c, float64(bn.b.pixels())
	if bn.z.t == nil {
		bn.z = newOutput(bn.b.padded(c), 0)
	}
	bn.cur.y, bn.cur.res, bn.cur.z = y, res, bn.z.buf
	sq := bn.s1
	bn.stats()
	rm, rv := bn.runMean.Float32s(), bn.runVar.Float32s()
	m := bn.momentum
	for i := 0; i < c; i++ {
		v := sq[i] / px
		bn.invstd[i] = 1 / math.Sqrt(v+bn.eps)
		s := float64(gamma[i]) * bn.invstd[i]
		bn.scale[i], bn.shift[i] = float32(s), float32(float64(beta[i])-bn.mean[i]*s)
		rm[i] = float32(m*bn.mean[i] + (1-m)*float64(rm[i]))
		rv[i] = float32(m*sq[i]/(px-1) + (1-m)*float64(rv[i]))
	}
	parallel.For(bn.b.N, bn.normPart)
	return bn.z.t
}

// stats sets bn.mean and bn.s1, the squared deviations from it summed
// per channel, from per-image sums and deviations (statImage), combined
// in image order: M2 = sum over images of M2_n + k*(mean_n - mean)^2 for
// k pixels an image.
func (bn *BN) stats() {
	c, k := bn.c, float64(bn.b.H*bn.b.W)
	if !bn.statsByConv {
		parallel.For(bn.b.N, bn.statPart)
	}
	sum, m2 := bn.s0, bn.s1
	clear(sum)
	for n := 0; n < bn.b.N; n++ {
		s0, _ := bn.partial(n)
		for i := 0; i < c; i++ {
			sum[i] += s0[i]
		}
	}
	for i := range sum {
		bn.mean[i] = sum[i] / (k * float64(bn.b.N))
	}
	clear(m2)
	for n := 0; n < bn.b.N; n++ {
		_, s1 := bn.partial(n)
		mn := bn.imgMean[n*c : (n+1)*c]
		for i := 0; i < c; i++ {
			d := mn[i] - bn.mean[i]
			m2[i] += s1[i] + k*d*d
		}
	}
}

// statImage is imageStats of the forward pass's input.
func (bn *BN) statImage(n int) { bn.imageStats(bn.cur.y, n) }

// imageStats sums image n's activations in y per channel, then their
// squared deviations from the image's own mean, into its partial sums.
func (bn *BN) imageStats(y []float32, n int) {
	s0, s1 := bn.partial(n)
	clear(s0)
	clear(s1)
	for r := 0; r < bn.b.H; r++ {
		lo, hi := bn.row(n, r)
		bnkern.Sum(y[lo:hi], s0)
	}
	mn := bn.imgMean[n*bn.c : (n+1)*bn.c]
	k := float64(bn.b.H * bn.b.W)
	for i := range mn {
		mn[i] = s0[i] / k
	}
	for r := 0; r < bn.b.H; r++ {
		lo, hi := bn.row(n, r)
		bnkern.SqDev(y[lo:hi], mn, s1)
	}
}

// normImage writes image n's output: normalised, shifted, the residual
// added, rectified; and its ReLU mask for the backward pass.
func (bn *BN) normImage(n int) {
	y, z, res := bn.cur.y, bn.cur.z, bn.cur.res
	for r := 0; r < bn.b.H; r++ {
		lo, hi := bn.row(n, r)
		var rs []float32
		if res != nil {
			rs = res[lo:hi]
		}
		bnkern.Norm(y[lo:hi], rs, z[lo:hi], bn.rowMask(n, r), bn.scale, bn.shift)
	}
}

// backward computes the gradients of y, gamma, beta and the residual from
// dz and the forward pass's ReLU mask; it returns dy and keeps the others
// for bnPartOp.
func (bn *BN) backward(y, gamma, dz []float32) *tensor.Dense {
	c, px := bn.c, float64(bn.b.pixels())
	shape := bn.b.padded(c)
	if bn.dy.t == nil {
		bn.dy = newOutput(shape, 0)
		bn.dgamma = newOutput(tensor.Shape{1, c, 1, 1}, 0)
		bn.dbeta = newOutput(tensor.Shape{1, c, 1, 1}, 0)
		if bn.residual {
			bn.dres = newOutput(shape, 0)
		}
	}
	bn.cur.y, bn.cur.dz = y, dz
	sb, sg := bn.s0, bn.s1
	bn.sums(bn.gradSumPart, sb, sg)
	for i := 0; i < c; i++ {
		bn.dbeta.buf[i] = float32(sb[i])
		sg[i] *= bn.invstd[i]
		bn.dgamma.buf[i] = float32(sg[i])
	}
	// dy = gamma*invstd * (g - mean(g) - xhat*mean(g*xhat)).
	// With xhat = (y-mean)*invstd this is a*g + b*y + d per channel.
	a, by, d0 := bn.a, bn.by, bn.d0
	for i := 0; i < c; i++ {
		gi := float64(gamma[i]) * bn.invstd[i]
		k := sg[i] / px * bn.invstd[i] // mean(g*xhat) * invstd
		a[i] = float32(gi)
		by[i] = float32(-gi * k)
		d0[i] = float32(gi * (k*bn.mean[i] - sb[i]/px))
	}
	if bn.gradByConv {
		bn.gradPending = true // the convolution writes dy as its chunks read it
	} else {
		parallel.For(bn.b.N, bn.gradPart)
	}
	return bn.dy.t
}

// gradSumImage passes dz through the ReLU for image n, g = dz where the
// output was positive, and adds g and g*(y-mean) per channel.
func (bn *BN) gradSumImage(n int) {
	s0, s1 := bn.partial(n)
	for r := 0; r < bn.b.H; r++ {
		lo, hi := bn.row(n, r)
		bnkern.GradSum(bn.cur.y[lo:hi], bn.cur.dz[lo:hi], bn.rowMask(n, r), bn.mean, s0, s1)
	}
}

// gradImage writes image n's dy = a*g + by*y + d0, with g passed through
// the ReLU again, and g itself as the residual's gradient.
func (bn *BN) gradImage(n int) {
	for r := 0; r < bn.b.H; r++ {
		lo, hi := bn.row(n, r)
		var dres []float32
		if bn.residual {
			dres = bn.dres.buf[lo:hi]
		}
		bnkern.Grad(bn.cur.dz[lo:hi], bn.rowMask(n, r), bn.cur.y[lo:hi], bn.dy.buf[lo:hi], dres, bn.a, bn.by, bn.d0)
	}
}

// bnOp is the forward pass; inputs y, gamma, beta (, res).
type bnOp struct {
	opBase
	bn *BN
}

func (op *bnOp) arity() int {
	if op.bn.residual {
		return 4
	}
	return 3
}
func (op *bnOp) Arity() int    { return op.arity() }
func (op *bnOp) Type() hm.Type { return type4(op.arity()) }
func (op *bnOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.bn.b.padded(op.bn.c), nil
}
func (op *bnOp) String() string {
	return fmt.Sprintf("BNReLU(%d, residual %t)", op.bn.c, op.bn.residual)
}
func (op *bnOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = i < 3 || !op.bn.resByConv
	}
	return d
}

func (op *bnOp) Do(vals ...G.Value) (G.Value, error) {
	bn := op.bn
	args := [4]arg{{bn.shape, "batch norm input"}, {bn.pshape, "batch norm scale"}, {bn.pshape, "batch norm shift"}, {bn.shape, "residual"}}
	in, err := unpack("batch norm", vals, args[:op.arity()]...)
	if err != nil {
		return nil, err
	}
	return bn.forward(in[0], in[1], in[2], in[3]), nil
}

func (op *bnOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != op.arity() {
		return nil, errors.New("ops: batch norm gradient: wrong number of inputs")
	}
	var parts []G.Op
	for _, part := range []bnPart{partGamma, partBeta, partResidual}[:op.arity()-1] {
		if part == partResidual && op.bn.resByConv {
			continue
		}
		parts = append(parts, op.bn.partOp(part))
	}
	// dy may be left to the convolution that made y only if nothing reads
	// it, or the residual's gradient written with it, before that
	// convolution's backward pass: so only where the residual's gradient
	// goes to the convolution it feeds (whose gradient comes later).
	op.bn.gradByConv = op.bn.statsByConv && (!op.bn.residual || op.bn.resByConv)
	grads, err := withParts(&bnGradOp{base("bngrad", op.bn.id), op.bn}, G.Nodes{inputs[0], inputs[1], output, grad}, parts...)
	if err != nil {
		return nil, err
	}
	op.bn.gradNode = grads[0]
	if len(grads) < len(inputs) {
		grads = append(grads, nil) // the residual's: its convolution adds it
	}
	return grads, nil
}

// partOp hands over one of the gradients bnGradOp computes.
func (bn *BN) partOp(part bnPart) G.Op {
	return &bnPartOp{base("bngrad."+part.String(), bn.id), bn, part}
}

// bnGradOp computes all gradients of a bnOp and returns that of y; inputs
// y, gamma, z (the forward output), dz. z's values are not read: it
// orders the gradient after the forward pass, which wrote the ReLU mask
// the gradient reads.
type bnGradOp struct {
	opBase
	bn *BN
}

func (op *bnGradOp) Arity() int    { return 4 }
func (op *bnGradOp) Type() hm.Type { return type4(4) }
func (op *bnGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.bn.b.padded(op.bn.c), nil
}
func (op *bnGradOp) String() string { return "BNReLUGrad" }

func (op *bnGradOp) Do(vals ...G.Value) (G.Value, error) {
	bn := op.bn
	in, err := unpack("batch norm gradient", vals, arg{bn.shape, "batch norm input"}, arg{bn.pshape, "batch norm scale"},
		arg{bn.shape, "batch norm output"}, arg{bn.shape, "batch norm output gradient"})
	if err != nil {
		return nil, err
	}
	return bn.backward(in[0], in[1], in[3]), nil
}

type bnPart int

const (
	partGamma bnPart = iota
	partBeta
	partResidual
)

func (p bnPart) String() string { return [...]string{"gamma", "beta", "residual"}[p] }

// bnPartOp hands over one of the gradients bnGradOp computed; its input is
// bnGradOp's node, which orders it after the computation.
type bnPartOp struct {
	opBase
	bn   *BN
	part bnPart
}

func (op *bnPartOp) Arity() int    { return 1 }
func (op *bnPartOp) Type() hm.Type { return type4(1) }
func (op *bnPartOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	if op.part == partResidual {
		return op.bn.b.padded(op.bn.c), nil
	}
	return tensor.Shape{1, op.bn.c, 1, 1}, nil
}
func (op *bnPartOp) String() string { return "BNGrad." + op.part.String() }

func (op *bnPartOp) Do(vals ...G.Value) (G.Value, error) {
	if len(vals) != 1 {
		return nil, fmt.Errorf("ops: batch norm gradient part takes 1 input, got %d", len(vals))
	}
	var o output
	switch op.part {
	case partGamma:
		o = op.bn.dgamma
	case partBeta:
		o = op.bn.dbeta
	default:
		o = op.bn.dres
	}
	if o.t == nil {
		return nil, errors.New("ops: batch norm gradient part read before the gradient ran")
	}
	return o.t, nil
}
