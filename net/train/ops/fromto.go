package ops

import (
	"errors"
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/internal/parallel"
	"github.com/tabula-zero/tabula/net/gemm"
)

// FromTo is the from-to policy head: for f (n, c*hw), each row c feature
// planes of hw squares (F, [c][hw]), w (c, c) and b (hw*hw), the logit of
// the move from square i to square j is f_i^T W f_j + b[i*hw+j], so y (n,
// hw*hw) holds F^T W F + b per row. A move is scored by the features of
// its two squares, as lc0's attention policy scores it, where a dense
// layer over the whole board would have to learn each move's squares
// from scratch. Every input gets a gradient.
//
// The products are small (c x hw by hw x hw per row): each runs on one
// core's tile kernel, and ranges of rows run on every core.
func FromTo(f, w, b *G.Node, hw int) (*G.Node, error) {
	fs, ws, bs := f.Shape(), w.Shape(), b.Shape()
	if len(ws) != 2 || ws[0] != ws[1] || ws[0] < 1 {
		return nil, fmt.Errorf("ops: from-to weights of shape %v, want (c, c)", ws)
	}
	c := ws[0]
	if hw < 1 || len(fs) != 2 || fs[1] != c*hw {
		return nil, fmt.Errorf("ops: from-to features of shape %v, want (n, %d*%d)", fs, c, hw)
	}
	if len(bs) != 1 || bs[0] != hw*hw {
		return nil, fmt.Errorf("ops: from-to bias of shape %v, want (%d)", bs, hw*hw)
	}
	ft := newFromTo(fs[0], c, hw)
	return G.ApplyOp(&fromToOp{base("fromto", ft.id), ft}, f, w, b)
}

// fromToParts is the number of row ranges a pass splits the batch into,
// each with its own scratch and partial weight and bias gradients, summed
// in order: fixed, so that the sums do not depend on the number of cores.
const fromToParts = 4

// fromTo is what the head's ops share: shapes and buffers.
type fromTo struct {
	id                             uint64
	n, c, hw                       int
	fshape, wshape, bshape, yshape tensor.Shape
	y, df, dw, db                  output
	g                              []float32 // W F per row [n][c][hw], kept for the gradient
	parts                          [fromToParts]fromToPart
	serial                         bool // products big enough to use every core themselves

	// The running pass's inputs, for the parts.
	f, w, b, dy []float32
	fwd, bwd    func(part int) // made once, for parallel.For
}

// fromToPart is one row range's scratch.
type fromToPart struct {
	ws     *gemm.Workspace
	dg     []float32 // one row's gradient of W F [c][hw]
	dw, db []float32 // partial gradients
}

func newFromTo(n, c, hw int) *fromTo {
	ft := &fromTo{id: newID(), n: n, c: c, hw: hw}
	ft.fshape, ft.wshape, ft.bshape, ft.yshape = tensor.Shape{n, c * hw}, tensor.Shape{c, c}, tensor.Shape{hw * hw}, tensor.Shape{n, hw * hw}
	for i := range ft.parts {
		ft.parts[i].ws = gemm.NewWorkspace()
	}
	// net/gemm runs a product this large on every core itself, and a
	// parallel.For must not run inside another.
	ft.serial = hw*hw*c >= 1<<20
	ft.fwd = func(part int) { ft.rows(part, ft.forwardRow) }
	ft.bwd = func(part int) { ft.rows(part, ft.backwardRow) }
	return ft
}

// rows runs row over part's range of the batch.
func (ft *fromTo) rows(part int, row func(p *fromToPart, r int)) {
	p := &ft.parts[part]
	for r := ft.n * part / fromToParts; r < ft.n*(part+1)/fromToParts; r++ {
		row(p, r)
	}
}

func (ft *fromTo) run(f func(part int)) {
	if ft.serial {
		for part := range fromToParts {
			f(part)
		}
		return
	}
	parallel.For(fromToParts, f)
}

func (ft *fromTo) forward(f, w, b []float32) *tensor.Dense {
	if ft.y.t == nil {
		ft.y = newOutput(ft.yshape, 0)
		ft.g = make([]float32, ft.n*ft.c*ft.hw)
	}
	ft.f, ft.w, ft.b = f, w, b
	ft.run(ft.fwd)
	ft.f, ft.w, ft.b = nil, nil, nil
	return ft.y.t
}

func (ft *fromTo) forwardRow(p *fromToPart, r int) {
	c, hw, sq := ft.c, ft.hw, ft.hw*ft.hw
	fr, gr, yr := ft.f[r*c*hw:(r+1)*c*hw], ft.g[r*c*hw:(r+1)*c*hw], ft.y.buf[r*sq:(r+1)*sq]
	p.ws.Sgemm(false, false, c, hw, c, 1, ft.w, c, fr, hw, 0, gr, hw) // G = W F
	copy(yr, ft.b)
	p.ws.Sgemm(true, false, hw, hw, c, 1, fr, hw, gr, hw, 1, yr, hw) // Y = F^T G + b
}

// backward computes df, dW and db from dy; it returns df and keeps the
// others for its gradParts. With Y = F^T G and G = W F:
// dF = G dY^T + W^T (F dY), dW = sum over rows of (F dY) F^T.
func (ft *fromTo) backward(f, w, dy []float32) *tensor.Dense {
	c, hw := ft.c, ft.hw
	if ft.df.t == nil {
		ft.df = newOutput(ft.fshape, 0)
		ft.dw = newOutput(ft.wshape, 0)
		ft.db = newOutput(ft.bshape, 0)
		for i := range ft.parts {
			ft.parts[i].dg = make([]float32, c*hw)
			ft.parts[i].dw = make([]float32, c*c)
			ft.parts[i].db = make([]float32, hw*hw)
		}
	}
	for i := range ft.parts {
		clear(ft.parts[i].dw)
		clear(ft.parts[i].db)
	}
	ft.f, ft.w, ft.dy = f, w, dy
	ft.run(ft.bwd)
	ft.f, ft.w, ft.dy = nil, nil, nil
	dw, db := ft.dw.buf, ft.db.buf
	copy(dw, ft.parts[0].dw)
	copy(db, ft.parts[0].db)
	for _, p := range ft.parts[1:] {
		for i, v := range p.dw {
			dw[i] += v
		}
		for i, v := range p.db {
			db[i] += v
		}
	}
	return ft.df.t
}

func (ft *fromTo) backwardRow(p *fromToPart, r int) {
	c, hw, sq := ft.c, ft.hw, ft.hw*ft.hw
	fr, gr, dyr := ft.f[r*c*hw:(r+1)*c*hw], ft.g[r*c*hw:(r+1)*c*hw], ft.dy[r*sq:(r+1)*sq]
	dfr := ft.df.buf[r*c*hw : (r+1)*c*hw]
	for i, v := range dyr {
		p.db[i] += v
	}
	p.ws.Sgemm(false, true, c, hw, hw, 1, gr, hw, dyr, hw, 0, dfr, hw)   // G dY^T
	p.ws.Sgemm(false, false, c, hw, hw, 1, fr, hw, dyr, hw, 0, p.dg, hw) // dG = F dY
	p.ws.Sgemm(true, false, c, hw, c, 1, ft.w, c, p.dg, hw, 1, dfr, hw)  // + W^T dG
	p.ws.Sgemm(false, true, c, c, hw, 1, p.dg, hw, fr, hw, 1, p.dw, c)   // dW += dG F^T
}

// fromToOp is the forward pass; inputs f, w, b.
type fromToOp struct {
	opBase
	ft *fromTo
}

func (op *fromToOp) Arity() int    { return 3 }
func (op *fromToOp) Type() hm.Type { return typeDense() }
func (op *fromToOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.ft.yshape.Clone(), nil
}
func (op *fromToOp) String() string {
	return fmt.Sprintf("FromTo(%dx%d squares, %d features)", op.ft.hw, op.ft.hw, op.ft.c)
}
func (op *fromToOp) DiffWRT(int) []bool { return []bool{true, true, true} }

func (op *fromToOp) Do(vals ...G.Value) (G.Value, error) {
	ft := op.ft
	in, err := unpack("from-to head", vals, arg{ft.fshape, "from-to features"}, arg{ft.wshape, "from-to weights"}, arg{ft.bshape, "from-to bias"})
	if err != nil {
		return nil, err
	}
	return ft.forward(in[0], in[1], in[2]), nil
}

func (op *fromToOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 3 {
		return nil, errors.New("ops: from-to head gradient needs 3 inputs")
	}
	id := op.ft.id
	return withParts(&fromToGradOp{base("fromtograd", id), op.ft}, G.Nodes{inputs[0], inputs[1], grad},
		newGradPart("FromToGrad.w", id, op.ft.wshape, &op.ft.dw), newGradPart("FromToGrad.b", id, op.ft.bshape, &op.ft.db))
}

// fromToGradOp computes all gradients of a fromToOp and returns that of
// f; inputs f, w, dy. It reads the forward pass's W F, which the forward
// op of the same step wrote.
type fromToGradOp struct {
	opBase
	ft *fromTo
}

func (op *fromToGradOp) Arity() int { return 3 }
func (op *fromToGradOp) Type() hm.Type {
	m := G.TensorType{Dims: 2, Of: hm.TypeVariable('a')}
	return hm.NewFnType(m, m, m, m)
}
func (op *fromToGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.ft.fshape.Clone(), nil
}
func (op *fromToGradOp) String() string { return "FromToGrad" }

func (op *fromToGradOp) Do(vals ...G.Value) (G.Value, error) {
	ft := op.ft
	in, err := unpack("from-to head gradient", vals, arg{ft.fshape, "from-to features"}, arg{ft.wshape, "from-to weights"},
		arg{ft.yshape, "from-to output gradient"})
	if err != nil {
		return nil, err
	}
	if ft.g == nil {
		return nil, errors.New("ops: from-to gradient ran before its forward pass")
	}
	return ft.backward(in[0], in[1], in[2]), nil
}
