package ops

import (
	"errors"
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

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
// The products are small (c x hw by hw x hw per row), so rows run one
// after the other, each product on one core's tile kernel.
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
	ft := &fromTo{id: newID(), n: fs[0], c: c, hw: hw, ws: gemm.NewWorkspace()}
	ft.fshape, ft.wshape, ft.bshape, ft.yshape = tensor.Shape{ft.n, c * hw}, tensor.Shape{c, c}, tensor.Shape{hw * hw}, tensor.Shape{ft.n, hw * hw}
	return G.ApplyOp(&fromToOp{base("fromto", ft.id), ft}, f, w, b)
}

// fromTo is what the head's ops share: shapes and buffers.
type fromTo struct {
	id                             uint64
	n, c, hw                       int
	fshape, wshape, bshape, yshape tensor.Shape
	y, df, dw, db                  output
	g                              []float32 // W F per row [n][c][hw], kept for the gradient
	dg                             []float32 // one row's gradient of W F
	ws                             *gemm.Workspace
}

func (ft *fromTo) forward(f, w, b []float32) *tensor.Dense {
	if ft.y.t == nil {
		ft.y = newOutput(ft.yshape, 0)
		ft.g = make([]float32, ft.n*ft.c*ft.hw)
	}
	c, hw, sq := ft.c, ft.hw, ft.hw*ft.hw
	for r := 0; r < ft.n; r++ {
		fr, gr, yr := f[r*c*hw:(r+1)*c*hw], ft.g[r*c*hw:(r+1)*c*hw], ft.y.buf[r*sq:(r+1)*sq]
		ft.ws.Sgemm(false, false, c, hw, c, 1, w, c, fr, hw, 0, gr, hw)   // G = W F
		copy(yr, b)                                                       //
		ft.ws.Sgemm(true, false, hw, hw, c, 1, fr, hw, gr, hw, 1, yr, hw) // Y = F^T G + b
	}
	return ft.y.t
}

// backward computes df, dW and db from dy; it returns df and keeps the
// others for its gradParts. With Y = F^T G and G = W F:
// dF = G dY^T + W^T (F dY), dW = sum over rows of (F dY) F^T.
func (ft *fromTo) backward(f, w, dy []float32) *tensor.Dense {
	if ft.df.t == nil {
		ft.df = newOutput(ft.fshape, 0)
		ft.dw = newOutput(ft.wshape, 0)
		ft.db = newOutput(ft.bshape, 0)
		ft.dg = make([]float32, ft.c*ft.hw)
	}
	c, hw, sq := ft.c, ft.hw, ft.hw*ft.hw
	dw, db := ft.dw.buf, ft.db.buf
	clear(dw)
	clear(db)
	for r := 0; r < ft.n; r++ {
		fr, gr, dyr := f[r*c*hw:(r+1)*c*hw], ft.g[r*c*hw:(r+1)*c*hw], dy[r*sq:(r+1)*sq]
		dfr := ft.df.buf[r*c*hw : (r+1)*c*hw]
		for i, v := range dyr {
			db[i] += v
		}
		ft.ws.Sgemm(false, true, c, hw, hw, 1, gr, hw, dyr, hw, 0, dfr, hw)    // G dY^T
		ft.ws.Sgemm(false, false, c, hw, hw, 1, fr, hw, dyr, hw, 0, ft.dg, hw) // dG = F dY
		ft.ws.Sgemm(true, false, c, hw, c, 1, w, c, ft.dg, hw, 1, dfr, hw)     // + W^T dG
		ft.ws.Sgemm(false, true, c, c, hw, 1, ft.dg, hw, fr, hw, 1, dw, c)     // dW += dG F^T
	}
	return ft.df.t
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
