// Package ops holds the fast gorgonia operations of the training graph:
// 3x3 and 1x1 convolutions with their input and weight gradients,
// training-mode batch norm fused with ReLU and the residual add, and the
// layout changes at the ends of the residual tower.
//
// Inside the tower activations and their gradients are zero-padded NHWC
// tensors of shape (n, h+2, w+2, c): a 3x3 patch is then three runs of
// 3*c contiguous floats, which net/gemm's tile kernel reads in place (no
// im2col), and every gradient arrives already padded for the next
// transposed convolution. The border is zero in every such tensor: the
// ops allocate their outputs zeroed and write board pixels only, and the
// one gorgonia op that meets these tensors, the Add that sums two
// gradients of one activation, keeps a zero border zero (checked after
// training passes by TestPaddingStaysZero).
//
// gorgonia's own Conv2d and BatchNorm (kept as the reference the tests
// compare against) spend most of a training step copying: im2col, col2im,
// transposes, Repeat for the broadcasts, single-threaded. These ops run
// the arithmetic on the tile kernels on every core and reuse their output
// buffers from step to step. Each op belongs to one graph, and a graph is
// used by one goroutine at a time (as gorgonia requires anyway).
package ops

import (
	"fmt"
	"hash"
	"hash/fnv"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/net/gemm"
)

// Board is the geometry every op of one graph shares: batch N of H x W
// boards.
type Board struct{ N, H, W int }

func (b Board) hp() int     { return b.H + 2 }
func (b Board) wp() int     { return b.W + 2 }
func (b Board) pixels() int { return b.N * b.H * b.W }

// padded returns the padded tensor shape for c channels.
func (b Board) padded(c int) tensor.Shape { return tensor.Shape{b.N, b.hp(), b.wp(), c} }

// paddedPixels lists the padded pixel index of every board pixel, in
// (image, row, column) order.
func (b Board) paddedPixels() []int {
	pp := make([]int, 0, b.pixels())
	for n := 0; n < b.N; n++ {
		for y := 0; y < b.H; y++ {
			for x := 0; x < b.W; x++ {
				pp = append(pp, (n*b.hp()+y+1)*b.wp()+x+1)
			}
		}
	}
	return pp
}

func (b Board) check() error {
	if b.N < 1 || b.H < 1 || b.W < 1 {
		return fmt.Errorf("ops: batch %d of %dx%d boards", b.N, b.H, b.W)
	}
	return nil
}

// ids makes every op's hash unique: gorgonia merges nodes whose ops hash
// alike and whose inputs are the same, and two of our ops with equal
// settings still hold different state.
var ids atomic.Uint64

func newID() uint64 { return ids.Add(1) }

// opBase is what every op here answers alike: results are new values
// (never views of an input), computed on the CPU, and hashed by a key
// unique to the op.
type opBase struct{ key string }

func base(kind string, id uint64) opBase { return opBase{fmt.Sprintf("tabula.ops.%s.%d", kind, id)} }

func (opBase) ReturnsPtr() bool        { return false }
func (opBase) CallsExtern() bool       { return false }
func (opBase) OverwritesInput() int    { return -1 }
func (o opBase) WriteHash(h hash.Hash) { fmt.Fprint(h, o.key) }
func (o opBase) Hashcode() uint32 {
	h := fnv.New32a()
	o.WriteHash(h)
	return h.Sum32()
}

// floats returns the float32 data of v in row-major order with the given
// shape: gorgonia's transposes hand over views, which are materialised.
func floats(v G.Value, shape tensor.Shape, what string) ([]float32, error) {
	d, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("ops: %s is a %T, not a dense tensor", what, v)
	}
	if !d.Shape().Eq(shape) {
		return nil, fmt.Errorf("ops: %s has shape %v, want %v", what, d.Shape(), shape)
	}
	if d.RequiresIterator() {
		m, ok := d.Materialize().(*tensor.Dense)
		if !ok {
			return nil, fmt.Errorf("ops: %s cannot be materialised", what)
		}
		d = m
	}
	if d.Dtype() != tensor.Float32 {
		return nil, fmt.Errorf("ops: %s holds %v, want float32", what, d.Dtype())
	}
	return d.Float32s(), nil
}

// arg describes one input of an op: the shape it must have and what it
// is, for errors.
type arg struct {
	shape tensor.Shape
	what  string
}

// unpack checks that an op got exactly one value per arg, each a float32
// tensor of the arg's shape, and returns their data in order (at most 4).
// It allocates nothing unless it fails.
func unpack(op string, vals []G.Value, args ...arg) (in [4][]float32, err error) {
	if len(vals) != len(args) {
		return in, fmt.Errorf("ops: %s takes %d inputs, got %d", op, len(args), len(vals))
	}
	for i, a := range args {
		if in[i], err = floats(vals[i], a.shape, a.what); err != nil {
			return in, err
		}
	}
	return in, nil
}

// withParts is the gradient of an op whose gradients one op computes
// together: grad applied to inputs gives the first gradient, and each part
// op, applied to grad's node (which orders it after the computation),
// hands over one of the others.
func withParts(grad G.Op, inputs G.Nodes, parts ...G.Op) (G.Nodes, error) {
	first, err := G.ApplyOp(grad, inputs...)
	if err != nil {
		return nil, err
	}
	grads := G.Nodes{first}
	for _, part := range parts {
		g, err := G.ApplyOp(part, first)
		if err != nil {
			return nil, err
		}
		grads = append(grads, g)
	}
	return grads, nil
}

// gradPart hands over one of the weight or bias gradients a layer's
// gradient op computed together with its input gradient; its input is
// that op's output (2-D), which orders it after the computation. out is
// the gradient's buffer (of the given shape), filled by the gradient op.
type gradPart struct {
	opBase
	name  string
	shape tensor.Shape
	out   *output
}

func newGradPart(name string, id uint64, shape tensor.Shape, out *output) *gradPart {
	return &gradPart{base(strings.ToLower(name), id), name, shape, out}
}

func (op *gradPart) Arity() int { return 1 }
func (op *gradPart) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(G.TensorType{Dims: 2, Of: a}, G.TensorType{Dims: len(op.shape), Of: a})
}
func (op *gradPart) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.shape.Clone(), nil
}
func (op *gradPart) String() string { return op.name }

func (op *gradPart) Do(vals ...G.Value) (G.Value, error) {
	if len(vals) != 1 {
		return nil, fmt.Errorf("ops: %s takes 1 input, got %d", op.name, len(vals))
	}
	if op.out.t == nil {
		return nil, fmt.Errorf("ops: %s read before the gradient ran", op.name)
	}
	return op.out.t, nil
}

// output is an op's result tensor, allocated once and reused by every
// run. buf may be longer than the tensor: the tile kernels write rows
// beyond the last real one into that tail.
type output struct {
	buf []float32
	t   *tensor.Dense
}

func newOutput(shape tensor.Shape, tail int) output {
	buf := make([]float32, shape.TotalSize()+tail)
	return output{buf: buf, t: tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(buf[:shape.TotalSize()]))}
}

// splits is the number of contiguous ranges a parallel loop over rows
// uses: a few per core, so that uneven cores still finish together.
func splits(rows int) int { return max(1, min(rows, 4*runtime.GOMAXPROCS(0))) }

// zeroBias is the bias of every tile here (the kernels only read it).
var zeroBias [64]float32

// tiles runs kernel tiles over rows [r0, r1) (multiples of gemm.MR) for
// every panel: row r reads A at aoff[r] and writes C at coff[r] + panel*nr.
// w holds the panels one after another, kdim*nr floats each. t is the
// caller's tile (reused, so that nothing is allocated) with A, NSeg,
// SegLen, SegStride and C set; tiles changes its other fields.
func tiles(kern gemm.Kernel, t *gemm.Tile, w []float32, panels int, aoff, coff []int, r0, r1 int, accumulate bool) {
	nr := kern.NR
	kdim := t.NSeg * t.SegLen
	t.Bias = zeroBias[:nr]
	t.Res = nil
	c := t.C
	for p := 0; p < panels; p++ {
		t.W = w[p*kdim*nr : (p+1)*kdim*nr]
		t.C = c[p*nr:]
		if accumulate {
			t.Res = t.C
		}
		for r := r0; r < r1; r += gemm.MR {
			t.Aoff = aoff[r : r+gemm.MR]
			t.Coff = coff[r : r+gemm.MR]
			kern.Run(t)
		}
	}
	t.C = c
}
