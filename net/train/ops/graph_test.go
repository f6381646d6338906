package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

const (
	testMomentum = 0.1
	testEps      = 1e-5
)

// towerParams are the tensors of a small network: an input 3x3 convolution,
// one residual block, a 1x1 head, each with BN scale and shift, and two
// dense layers (the first rectified).
type towerParams struct {
	b                  Board
	in, f, out, hidden int
	prec               Precision       // of the block's convolutions
	vals               []*tensor.Dense // w1 g1 b1 wa ga ba wb gb bb wh gh bh wd1 bd1 wd2 bd2
	x, r               *tensor.Dense   // input planes, loss weights
}

const testOutputs = 3 // of the last dense layer

func newTowerParams(seed uint64) *towerParams { return newTowerParamsOf(seed, 8, FP32) }

// newTowerParamsOf is a network of f filters whose block convolutions run
// in precision prec.
func newTowerParamsOf(seed uint64, f int, prec Precision) *towerParams {
	rng := rand.New(rand.NewPCG(seed, 7))
	p := &towerParams{b: Board{N: 3, H: 5, W: 4}, in: 3, f: f, out: 2, hidden: 5, prec: prec}
	b := p.b
	dense := func(shape ...int) *tensor.Dense {
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(randSlice(rng, tensor.Shape(shape).TotalSize())))
	}
	bn := func(c int) []*tensor.Dense {
		g := dense(1, c, 1, 1)
		for i, v := range g.Float32s() {
			g.Float32s()[i] = 1 + 0.3*v
		}
		return []*tensor.Dense{g, dense(1, c, 1, 1)}
	}
	p.vals = append(p.vals, dense(p.f, p.in, 3, 3))
	p.vals = append(p.vals, bn(p.f)...)
	p.vals = append(p.vals, dense(p.f, p.f, 3, 3))
	p.vals = append(p.vals, bn(p.f)...)
	p.vals = append(p.vals, dense(p.f, p.f, 3, 3))
	p.vals = append(p.vals, bn(p.f)...)
	p.vals = append(p.vals, dense(p.out, p.f, 1, 1))
	p.vals = append(p.vals, bn(p.out)...)
	p.vals = append(p.vals, dense(p.hidden, p.out*b.H*b.W), dense(p.hidden))
	p.vals = append(p.vals, dense(testOutputs, p.hidden), dense(testOutputs))
	p.x = dense(b.N, p.in, b.H, b.W)
	p.r = dense(b.N, testOutputs)
	return p
}

type testGraph struct {
	g     *G.ExprGraph
	vm    G.VM
	loss  *G.Node
	grads G.Nodes
	stats []interface {
		Stats() (tensor.Tensor, tensor.Tensor)
	}
	params   G.Nodes
	winograd bool // the block's convolutions run Winograd's products, batch norm's sums and dy in their chunks
}

func (p *towerParams) nodes(g *G.ExprGraph) (x, r *G.Node, ps G.Nodes) {
	x = G.NewTensor(g, G.Float32, 4, G.WithShape(p.x.Shape()...), G.WithValue(p.x), G.WithName("x"))
	r = G.NewTensor(g, G.Float32, 2, G.WithShape(p.r.Shape()...), G.WithValue(p.r), G.WithName("r"))
	for i, v := range p.vals {
		ps = append(ps, G.NewTensor(g, G.Float32, v.Dims(), G.WithShape(v.Shape()...), G.WithValue(v), G.WithName(string(rune('A'+i)))))
	}
	return x, r, ps
}

func (tg *testGraph) finish(t *testing.T, flat, r *G.Node) {
	t.Helper()
	l, err := G.HadamardProd(flat, r)
	if err != nil {
		t.Fatal(err)
	}
	if tg.loss, err = G.Sum(l); err != nil {
		t.Fatal(err)
	}
	if tg.grads, err = G.Grad(tg.loss, tg.params...); err != nil {
		t.Fatal(err)
	}
	tg.vm = G.NewTapeMachine(tg.g)
}

// mustNode returns a function that passes a node through and fails the
// test on an error.
func mustNode(t *testing.T) func(*G.Node, error) *G.Node {
	return func(n *G.Node, err error) *G.Node {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// fastGraph builds the network on this package's ops; with fused the
// block's first convolution adds the residual's gradient
// (AddResidualGradient).
func (p *towerParams) fastGraph(t *testing.T, fused bool) *testGraph {
	t.Helper()
	g := G.NewGraph()
	x, r, ps := p.nodes(g)
	tg := &testGraph{g: g, params: ps}
	must := mustNode(t)
	var last *BN
	bn := func(y, gamma, beta, res *G.Node) *G.Node {
		z, op, err := BatchNorm(y, gamma, beta, res, p.b, testMomentum, testEps)
		if err != nil {
			t.Fatal(err)
		}
		tg.stats = append(tg.stats, op)
		last = op
		return z
	}
	xp := must(Pad(x, p.b))
	h := bn(must(Conv(xp, ps[0], p.b, 3, false, FP32)), ps[1], ps[2], nil)
	ca := must(Conv(h, ps[3], p.b, 3, true, p.prec))
	a := bn(ca, ps[4], ps[5], nil)
	tg.winograd = last.statsByConv
	h = bn(must(Conv(a, ps[6], p.b, 3, true, p.prec)), ps[7], ps[8], h)
	if fused {
		if err := AddResidualGradient(ca, last); err != nil {
			t.Fatal(err)
		}
	}
	o := bn(must(Conv(h, ps[9], p.b, 1, true, FP32)), ps[10], ps[11], nil)
	d := must(Dense(must(Flatten(o, p.b)), ps[12], ps[13], true))
	tg.finish(t, must(Dense(d, ps[14], ps[15], false)), r)
	return tg
}

// referenceGraph builds the same network on gorgonia's Conv2d, BatchNorm,
// Rectify and Add.
func (p *towerParams) referenceGraph(t *testing.T) *testGraph {
	t.Helper()
	g := G.NewGraph()
	x, r, ps := p.nodes(g)
	tg := &testGraph{g: g, params: ps}
	must := mustNode(t)
	convBN := func(x, w, gamma, beta, res *G.Node, k int) *G.Node {
		pad := k / 2
		y := must(G.Conv2d(x, w, tensor.Shape{k, k}, []int{pad, pad}, []int{1, 1}, []int{1, 1}))
		y, _, _, op, err := G.BatchNorm(y, gamma, beta, testMomentum, testEps)
		if err != nil {
			t.Fatal(err)
		}
		tg.stats = append(tg.stats, op)
		if res != nil {
			y = must(G.Add(y, res))
		}
		return must(G.Rectify(y))
	}
	h := convBN(x, ps[0], ps[1], ps[2], nil, 3)
	a := convBN(h, ps[3], ps[4], ps[5], nil, 3)
	h = convBN(a, ps[6], ps[7], ps[8], h, 3)
	o := convBN(h, ps[9], ps[10], ps[11], nil, 1)
	b := p.b
	dense := func(x, w, bias *G.Node) *G.Node {
		y := must(G.Transpose(must(G.Mul(w, must(G.Transpose(x))))))
		return must(G.BroadcastAdd(y, bias, nil, []byte{0}))
	}
	d := must(G.Rectify(dense(must(G.Reshape(o, tensor.Shape{b.N, p.out * b.H * b.W})), ps[12], ps[13])))
	tg.finish(t, dense(d, ps[14], ps[15]), r)
	return tg
}

// run returns the loss and copies of the gradients.
func (tg *testGraph) run(t *testing.T) (float64, [][]float32) {
	t.Helper()
	if err := tg.vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	defer tg.vm.Reset()
	loss := float64(tg.loss.Value().Data().(float32))
	var grads [][]float32
	for _, g := range tg.grads {
		d := g.Value().(*tensor.Dense)
		if d.RequiresIterator() {
			d = d.Materialize().(*tensor.Dense)
		}
		grads = append(grads, append([]float32(nil), d.Float32s()...))
	}
	return loss, grads
}

var paramNames = []string{"w1", "g1", "b1", "wa", "ga", "ba", "wb", "gb", "bb", "wh", "gh", "bh", "wd1", "bd1", "wd2", "bd2"}

// TestGraphMatchesGorgonia runs a residual network built on these ops and
// the same network on gorgonia's own ops: loss, every parameter's
// gradient and the running statistics agree.
func TestGraphMatchesGorgonia(t *testing.T) {
	for _, fused := range []bool{false, true} {
		t.Run(fmt.Sprintf("fused=%t", fused), func(t *testing.T) {
			p := newTowerParams(1)
			agree(t, p.fastGraph(t, fused), p.referenceGraph(t), "gorgonia's", 1e-4, 1e-4, 1e-5)
		})
	}
}

// With 16 filters in bf16 on Winograd's products the block's batch norms
// take their sums and write their gradients in the convolutions' chunks,
// and the residual's gradient is added by the block's first convolution:
// loss, gradients and running statistics agree with the same graph on the
// batch norms' own passes and gorgonia's sum.
func TestChunkPassesMatchOwnPasses(t *testing.T) {
	defer func() { winogradAnyCPU, chunkPasses = false, true }()
	winogradAnyCPU = true
	p := newTowerParamsOf(1, 16, BF16)
	fast := p.fastGraph(t, true)
	chunkPasses = false
	own := p.fastGraph(t, false)
	if !fast.winograd || own.winograd {
		t.Fatalf("batch norm's passes in the chunks: %t and %t, want true and false", fast.winograd, own.winograd)
	}
	agree(t, fast, own, "on their own passes", 1e-5, 1e-4, 1e-6)
}

// agree runs a and b for two steps: their losses, every parameter's
// gradient and the running statistics agree within the tolerances
// (relative).
func agree(t *testing.T, a, b *testGraph, other string, lossTol, gradTol, statTol float64) {
	t.Helper()
	for step := 0; step < 2; step++ {
		al, ag := a.run(t)
		bl, bg := b.run(t)
		if math.Abs(al-bl) > lossTol*math.Max(1, math.Abs(bl)) {
			t.Fatalf("step %d: loss %v, %s %v", step, al, other, bl)
		}
		for i := range ag {
			if e := maxRelErr(ag[i], bg[i]); e > gradTol {
				t.Errorf("step %d: gradient of %s: relative error %.3g", step, paramNames[i], e)
			}
		}
		for i := range a.stats {
			am, av := a.stats[i].Stats()
			bm, bv := b.stats[i].Stats()
			if e := maxRelErr(am.Data().([]float32), bm.Data().([]float32)) + maxRelErr(av.Data().([]float32), bv.Data().([]float32)); e > statTol {
				t.Errorf("step %d: running statistics of BN %d: relative error %.3g", step, i, e)
			}
		}
	}
}

// TestFiniteDifferences compares the gradients of the fast graph with
// central differences of its own loss.
func TestFiniteDifferences(t *testing.T) {
	p := newTowerParams(2)
	fast := p.fastGraph(t, true)
	_, grads := fast.run(t)
	rng := rand.New(rand.NewPCG(3, 4))
	const h = 1e-3
	for i, v := range p.vals {
		var rms float64
		for _, g := range grads[i] {
			rms += float64(g) * float64(g)
		}
		rms = math.Sqrt(rms / float64(len(grads[i])))
		bad := 0
		for range 6 {
			j := rng.IntN(len(v.Float32s()))
			w := v.Float32s()
			orig := w[j]
			w[j] = orig + h
			up, _ := fast.run(t)
			w[j] = orig - h
			down, _ := fast.run(t)
			w[j] = orig
			fd := (up - down) / (2 * h)
			if d := math.Abs(fd - float64(grads[i][j])); d > 0.05*rms+2e-3 {
				t.Logf("%s[%d]: gradient %.5g, finite difference %.5g", paramNames[i], j, grads[i][j], fd)
				bad++
			}
		}
		// A step across a ReLU kink may spoil one difference.
		if bad > 1 {
			t.Errorf("%s: %d of 6 finite differences disagree with the gradient", paramNames[i], bad)
		}
	}
}

// TestDeterministic: two runs of one graph give bit-identical gradients.
func TestDeterministic(t *testing.T) {
	p := newTowerParams(5)
	a, b := p.fastGraph(t, true), p.fastGraph(t, true)
	la, ga := a.run(t)
	lb, gb := b.run(t)
	if la != lb {
		t.Fatalf("losses %v and %v", la, lb)
	}
	for i := range ga {
		for j := range ga[i] {
			if ga[i][j] != gb[i][j] {
				t.Fatalf("gradient of %s differs at %d", paramNames[i], j)
			}
		}
	}
}

// TestPaddingStaysZero runs training passes of the fast graph and checks
// that every padded NHWC value in it, gorgonia's gradient sums included,
// has a zero border: the convolutions read it as the zeros around the
// board.
func TestPaddingStaysZero(t *testing.T) {
	p := newTowerParams(6)
	fast := p.fastGraph(t, true)
	b := p.b
	for step := 0; step < 3; step++ {
		if err := fast.vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, n := range fast.g.AllNodes() {
			s := n.Shape()
			d, ok := n.Value().(*tensor.Dense)
			if !ok || len(s) != 4 || !s.Eq(b.padded(s[3])) {
				continue
			}
			if _, ok := fromPadded(b, s[3], d.Float32s()); !ok {
				t.Errorf("step %d: %v has a non-zero border", step, n)
			}
			checked++
		}
		if checked < 15 {
			t.Fatalf("only %d padded values in the graph", checked)
		}
		fast.vm.Reset()
	}
}

// In float32 the block's 3x3 convolutions take Winograd's products where
// they fit (winogradF32Fits: on some kernels' column strides not every
// filter count does, and at least one of 16, 32 and 48 must): loss,
// gradients and running statistics agree with the same graph on the
// direct products and with gorgonia's own ops.
func TestWinogradF32MatchesDirect(t *testing.T) {
	defer SetWinogradF32(SetWinogradF32(true))
	took := 0
	for _, f := range []int{16, 32, 48} {
		t.Run(fmt.Sprintf("filters=%d", f), func(t *testing.T) {
			p := newTowerParamsOf(1, f, FP32)
			SetWinogradF32(true)
			wino := p.fastGraph(t, true)
			SetWinogradF32(false)
			direct := p.fastGraph(t, true)
			if direct.winograd {
				t.Fatal("the direct products took Winograd's chunks")
			}
			if !wino.winograd {
				t.Skipf("%d filters do not fit Winograd's products on kernel %s", f, convKernel(3, f, f, true).Name)
			}
			took++
			agree(t, wino, direct, "on the direct products", 1e-5, 1e-4, 1e-6)
			agree(t, p.fastGraph(t, true), p.referenceGraph(t), "gorgonia's", 1e-4, 1e-4, 1e-5)
		})
	}
	if took == 0 {
		t.Fatal("no filter count took Winograd's float32 products")
	}
}
