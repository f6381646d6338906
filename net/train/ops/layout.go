package ops

import (
	"errors"
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/internal/parallel"
)

// Pad turns the network's input planes x (n, c, h, w) into a padded NHWC
// tensor. x gets no gradient: it is the graph's input.
func Pad(x *G.Node, b Board) (*G.Node, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	xs := x.Shape()
	if len(xs) != 4 || xs[0] != b.N || xs[2] != b.H || xs[3] != b.W {
		return nil, fmt.Errorf("ops: input planes of shape %v, want (%d, c, %d, %d)", xs, b.N, b.H, b.W)
	}
	return G.ApplyOp(newLayoutOp(b, xs[1], true, true), x)
}

// Flatten turns padded NHWC x into rows (n, c*h*w) in NCHW order, the
// order the dense layers' weights expect.
func Flatten(x *G.Node, b Board) (*G.Node, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	xs := x.Shape()
	if len(xs) != 4 || !xs.Eq(b.padded(xs[3])) {
		return nil, fmt.Errorf("ops: flatten of shape %v, want (%d, %d, %d, c)", xs, b.N, b.hp(), b.wp())
	}
	return G.ApplyOp(newLayoutOp(b, xs[3], false, false), x)
}

// layoutOp moves values between NCHW (n, c, h, w) or its rows (n, c*h*w)
// and padded NHWC. toPadded is Pad (and the gradient of Flatten); the
// other direction is Flatten (and would be the gradient of Pad).
type layoutOp struct {
	opBase
	b        Board
	c        int
	toPadded bool
	input    bool // Pad of the graph input: no gradient
	out      output

	pad, flat tensor.Shape // padded NHWC, the other side
	part      func(n int)  // per image, made once for parallel.For
	src       []float32    // the running Do's input
	what      string       // the input, for errors
}

func newLayoutOp(b Board, c int, toPadded, input bool) *layoutOp {
	op := &layoutOp{b: b, c: c, toPadded: toPadded, input: input}
	op.opBase = base(op.name(), newID())
	op.pad, op.flat = b.padded(c), op.nchw()
	op.what = op.name() + " input"
	if toPadded {
		op.part = op.padImage
	} else {
		op.part = op.flattenImage
	}
	return op
}

func (op *layoutOp) nchw() tensor.Shape {
	if op.toPadded && op.input {
		return tensor.Shape{op.b.N, op.c, op.b.H, op.b.W}
	}
	return tensor.Shape{op.b.N, op.c * op.b.H * op.b.W}
}

func (op *layoutOp) name() string {
	if op.toPadded {
		return "pad"
	}
	return "flatten"
}

func (op *layoutOp) Arity() int { return 1 }
func (op *layoutOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t4 := G.TensorType{Dims: 4, Of: a}
	tn := G.TensorType{Dims: op.nchw().Dims(), Of: a}
	if op.toPadded {
		return hm.NewFnType(tn, t4)
	}
	return hm.NewFnType(t4, tn)
}
func (op *layoutOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	if op.toPadded {
		return op.b.padded(op.c), nil
	}
	return op.nchw(), nil
}
func (op *layoutOp) String() string     { return fmt.Sprintf("Layout.%s(%d)", op.name(), op.c) }
func (op *layoutOp) DiffWRT(int) []bool { return []bool{!op.input} }

func (op *layoutOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.input {
		return nil, errors.New("ops: the input planes have no gradient")
	}
	g, err := G.ApplyOp(newLayoutOp(op.b, op.c, !op.toPadded, false), grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{g}, nil
}

func (op *layoutOp) Do(vals ...G.Value) (G.Value, error) {
	if op.out.t == nil {
		if op.toPadded {
			op.out = newOutput(op.pad, 0)
		} else {
			op.out = newOutput(op.flat, 0)
		}
	}
	in := op.pad
	if op.toPadded {
		in = op.flat
	}
	src, err := unpack(op.name(), vals, arg{in, op.what})
	if err != nil {
		return nil, err
	}
	op.src = src[0]
	parallel.For(op.b.N, op.part)
	op.src = nil
	return op.out.t, nil
}

// padImage copies image n from NCHW into the padded NHWC output.
func (op *layoutOp) padImage(n int) {
	b, c, src, out := op.b, op.c, op.src, op.out.buf
	hw := b.H * b.W
	for ch := 0; ch < c; ch++ {
		plane := src[(n*c+ch)*hw : (n*c+ch+1)*hw]
		for y := 0; y < b.H; y++ {
			base := (n*b.hp() + y + 1) * b.wp()
			for x, v := range plane[y*b.W : (y+1)*b.W] {
				out[(base+x+1)*c+ch] = v
			}
		}
	}
}

// flattenImage copies image n from padded NHWC into its NCHW output row.
func (op *layoutOp) flattenImage(n int) {
	b, c, src := op.b, op.c, op.src
	hw := b.H * b.W
	row := op.out.buf[n*c*hw : (n+1)*c*hw]
	for y := 0; y < b.H; y++ {
		base := (n*b.hp() + y + 1) * b.wp()
		for x := 0; x < b.W; x++ {
			px := src[(base+x+1)*c : (base+x+2)*c]
			for ch, v := range px {
				row[ch*hw+y*b.W+x] = v
			}
		}
	}
}
