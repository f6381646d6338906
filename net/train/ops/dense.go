package ops

import (
	"errors"
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/net/gemm"
	"github.com/tabula-zero/tabula/net/train/bnkern"
)

// Dense is a fully connected layer y = x W^T + b, rectified when relu is
// set, for x (n, in), w (out, in) and b (out): the heads' layers. gorgonia
// builds it from Transpose, Mul and a broadcast Add, which allocate their
// results and a transposed copy every step; this runs the products on
// net/gemm and reuses its buffers. Every input gets a gradient.
func Dense(x, w, b *G.Node, relu bool) (*G.Node, error) {
	xs, ws := x.Shape(), w.Shape()
	if len(xs) != 2 || len(ws) != 2 || xs[1] != ws[1] {
		return nil, fmt.Errorf("ops: dense layer of input %v and weights %v, want (n, in) and (out, in)", xs, ws)
	}
	if bs := b.Shape(); len(bs) != 1 || bs[0] != ws[0] {
		return nil, fmt.Errorf("ops: dense layer bias of shape %v, want (%d)", bs, ws[0])
	}
	d := &dense{id: newID(), n: xs[0], in: ws[1], out: ws[0], relu: relu, ws: gemm.NewWorkspace()}
	d.xshape, d.wshape, d.bshape, d.yshape = tensor.Shape{d.n, d.in}, tensor.Shape{d.out, d.in}, tensor.Shape{d.out}, tensor.Shape{d.n, d.out}
	return G.ApplyOp(&denseOp{base("dense", d.id), d}, x, w, b)
}

// dense is what a dense layer's ops share: shapes and buffers.
type dense struct {
	id                             uint64
	n, in, out                     int
	relu                           bool
	xshape, wshape, bshape, yshape tensor.Shape
	y, dx, dw, db                  output
	g                              []float32 // dy through the ReLU
	ws                             *gemm.Workspace
}

func (d *dense) forward(x, w, b []float32) *tensor.Dense {
	if d.y.t == nil {
		d.y = newOutput(d.yshape, 0)
	}
	y := d.y.buf
	d.ws.Sgemm(false, true, d.n, d.out, d.in, 1, x, d.in, w, d.in, 0, y, d.out)
	for i := 0; i < d.n; i++ {
		row := y[i*d.out : (i+1)*d.out]
		for o, v := range b {
			row[o] += v
			if d.relu {
				row[o] = max(row[o], 0)
			}
		}
	}
	return d.y.t
}

// backward computes dx, dW and db from dy (y is the forward output, for
// the ReLU); it returns dx and keeps the others for its gradParts.
func (d *dense) backward(x, w, y, dy []float32) *tensor.Dense {
	if d.dx.t == nil {
		d.dx = newOutput(d.xshape, 0)
		d.dw = newOutput(d.wshape, 0)
		d.db = newOutput(d.bshape, 0)
		if d.relu {
			d.g = make([]float32, d.n*d.out)
		}
	}
	g := dy
	if d.relu {
		g = d.g
		for i, v := range dy {
			g[i] = bnkern.ReluGrad(v, y[i])
		}
	}
	db := d.db.buf
	clear(db)
	for i := 0; i < d.n; i++ {
		for o, v := range g[i*d.out : (i+1)*d.out] {
			db[o] += v
		}
	}
	d.ws.Sgemm(false, false, d.n, d.in, d.out, 1, g, d.out, w, d.in, 0, d.dx.buf, d.in)
	d.ws.Sgemm(true, false, d.out, d.in, d.n, 1, g, d.out, x, d.in, 0, d.dw.buf, d.in)
	return d.dx.t
}

// denseOp is the forward pass; inputs x, w, b.
type denseOp struct {
	opBase
	d *dense
}

func typeDense() hm.Type {
	a := hm.TypeVariable('a')
	m := G.TensorType{Dims: 2, Of: a}
	return hm.NewFnType(m, m, G.TensorType{Dims: 1, Of: a}, m)
}

func (op *denseOp) Arity() int    { return 3 }
func (op *denseOp) Type() hm.Type { return typeDense() }
func (op *denseOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.d.yshape.Clone(), nil
}
func (op *denseOp) String() string {
	return fmt.Sprintf("Dense(%d->%d, relu %t)", op.d.in, op.d.out, op.d.relu)
}
func (op *denseOp) DiffWRT(int) []bool { return []bool{true, true, true} }

func (op *denseOp) Do(vals ...G.Value) (G.Value, error) {
	d := op.d
	in, err := unpack("dense layer", vals, arg{d.xshape, "dense input"}, arg{d.wshape, "dense weights"}, arg{d.bshape, "dense bias"})
	if err != nil {
		return nil, err
	}
	return d.forward(in[0], in[1], in[2]), nil
}

func (op *denseOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 3 {
		return nil, errors.New("ops: dense layer gradient needs 3 inputs")
	}
	id := op.d.id
	return withParts(&denseGradOp{base("densegrad", id), op.d}, G.Nodes{inputs[0], inputs[1], output, grad},
		newGradPart("DenseGrad.w", id, op.d.wshape, &op.d.dw), newGradPart("DenseGrad.b", id, op.d.bshape, &op.d.db))
}

// denseGradOp computes all gradients of a denseOp and returns that of x;
// inputs x, w, y, dy.
type denseGradOp struct {
	opBase
	d *dense
}

func (op *denseGradOp) Arity() int { return 4 }
func (op *denseGradOp) Type() hm.Type {
	m := G.TensorType{Dims: 2, Of: hm.TypeVariable('a')}
	return hm.NewFnType(m, m, m, m, m)
}
func (op *denseGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.d.xshape.Clone(), nil
}
func (op *denseGradOp) String() string { return "DenseGrad" }

func (op *denseGradOp) Do(vals ...G.Value) (G.Value, error) {
	d := op.d
	in, err := unpack("dense layer gradient", vals, arg{d.xshape, "dense input"}, arg{d.wshape, "dense weights"},
		arg{d.yshape, "dense output"}, arg{d.yshape, "dense output gradient"})
	if err != nil {
		return nil, err
	}
	return d.backward(in[0], in[1], in[2], in[3]), nil
}
