// Package train is the network on gorgonia: the model (training and
// inference graphs over shared weight tensors) and its SGD trainer. It is
// the one part of the project that links gorgonia; everything else
// exchanges networks as net.Params.
package train

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/gemm"
	"github.com/tabula-zero/tabula/net/train/ops"
)

// gorgonia computes every matrix product of the graph (im2col
// convolutions, their gradients, the dense layers) with the BLAS set by
// G.Use, process-wide. gemm's product runs the inference fast path's
// tile kernels: 6-12x gonum's on a training step's shapes
// (BenchmarkSgemm), which makes training 3x faster overall.
func init() { G.Use(gemm.BLAS{}) }

// BNMomentum is the weight of the batch statistics in the running
// statistics update during training (PyTorch convention):
// running = BNMomentum*batch + (1-BNMomentum)*running. The running variance
// is updated with the unbiased batch variance; training-mode normalisation
// uses the biased one.
const BNMomentum = 0.1

// MaxInferBatch is the largest batch one inference graph runs. Forward
// rounds n up to a power of two (padding with zero planes) and splits
// larger requests into chunks of MaxInferBatch, so that at most
// log2(MaxInferBatch)+1 graph shapes exist per model.
const MaxInferBatch = 64

// convLayer is a ConvBN whose trainable tensors are shared by every graph
// of the model. mean and vr are the model's copy of the running statistics
// (the BN ops of each graph hold their own, synchronised from these).
type convLayer struct {
	out, in, k     int
	w, gamma, beta *tensor.Dense // (out,in,k,k), (1,out,1,1), (1,out,1,1)
	mean, vr       *tensor.Dense // (out)
}

type denseLayer struct {
	out, in int
	w, b    *tensor.Dense // (out,in), (out)
}

// Model is the residual policy/value network on gorgonia: one training
// graph (batch TrainBatch, BN in training mode) and inference graphs (per
// batch size, BN in eval mode with the running statistics) share the same
// weight tensors.
//
// Concurrency: Forward and Params are safe for concurrent use, also with
// Trainer.Step on the same model. Every graph is used by one goroutine at a
// time: Forward takes an idle inference graph of its batch size from a pool
// or builds a new one, so n goroutines calling Forward concurrently with
// the same batch size create up to n graphs (each keeps the activations of
// its last pass alive, about one forward pass worth of memory). Weight
// updates take an exclusive lock, so Forward never sees a half-updated
// network; Forward calls run in parallel with each other and with the
// forward/backward part of a training step.
type Model struct {
	spec       net.Spec
	trainBatch int
	// loadBatch's state (under trainMu): an error a sample, the batch
	// being checked and the loop body, made once.
	sampleErrs    []error
	checking      Batch
	checkParts    int
	checkPart     func(int)
	referenceOps  bool // training graph on gorgonia's Conv2d and BatchNorm
	convPrecision ops.Precision

	input          convLayer
	blocks         [][2]convLayer
	polConv        convLayer
	polFC          denseLayer // or, with the from-to head, its W (c, c) and B (hw*hw)
	valConv        convLayer
	valFC1, valFC2 denseLayer

	tensors []*tensor.Dense // ParamTensors order
	infos   []net.ParamInfo
	convs   []*convLayer // BN layers in Params.Layers order

	// mu guards the weight tensors and the running statistics in convs:
	// read-locked while a graph runs, write-locked while they change and
	// while a graph is built (creating a tape machine writes the engine
	// field of every tensor bound to the graph).
	mu sync.RWMutex

	trainMu sync.Mutex // serialises use of train
	train   *graph     // nil when trainBatch == 0

	poolMu sync.Mutex
	pool   map[int][]*graph // idle inference graphs by batch size
}

// bnStats is a batch norm holding running statistics: gorgonia's
// BatchNormOp or net/train/ops' fused BN.
type bnStats interface {
	Stats() (mean, variance tensor.Tensor)
	SetStats(mean, variance tensor.Tensor) error
}

// graph is one expression graph and its tape machine.
type graph struct {
	n     int
	g     *G.ExprGraph
	vm    G.VM
	x     *G.Node
	xv    *tensor.Dense
	logit *G.Node   // (n, actions)
	value *G.Node   // (n); nil with the WDL head
	wdl   *G.Node   // (n, 3) the WDL head's logits; nil with the scalar head
	bn    []bnStats // Params.Layers order

	// training graph only
	pi, z              *G.Node
	piv, zv            *tensor.Dense // zv is (n, 3) with the WDL head: the target distributions
	legal              *legalMask    // the policy loss's legal actions, set per batch
	loss, vloss, ploss *G.Node
	grads              G.Nodes // ParamTensors order
}

// NewModel builds a model holding a copy of p. trainBatch is the batch size
// of the training graph (at least 2), or 0 for an inference-only model.
// The training graph runs the tower on net/train/ops unless ReferenceOps is
// given; inference graphs always use gorgonia's ops.
func NewModel(p *net.Params, trainBatch int, opts ...net.ModelOption) (*Model, error) {
	if p == nil {
		return nil, errors.New("train: nil params")
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	if trainBatch != 0 && (trainBatch < 2 || trainBatch > 1<<16) {
		return nil, fmt.Errorf("train: training batch %d out of range (0 for none, or 2..65536)", trainBatch)
	}
	for _, c := range p.Layers() {
		for _, v := range c.Var {
			if !(v >= 0) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("train: BN running variance %v is not a finite non-negative number", v)
			}
		}
		for _, s := range [][]float32{c.W, c.Gamma, c.Beta, c.Mean} {
			if !allFinite(s) {
				return nil, errors.New("train: convolution or batch-norm parameters are not finite")
			}
		}
	}
	for _, d := range p.Denses() {
		if !allFinite(d.W) || !allFinite(d.B) {
			return nil, errors.New("train: dense layer parameters are not finite")
		}
	}
	if !allFinite(p.FromTo.W) || !allFinite(p.FromTo.B) {
		return nil, errors.New("train: from-to head parameters are not finite")
	}
	var o net.ModelOptions
	for _, f := range opts {
		f(&o)
	}
	m := &Model{spec: p.Spec, trainBatch: trainBatch, referenceOps: o.ReferenceOps, pool: map[int][]*graph{}}
	if o.BF16Convs {
		m.convPrecision = ops.BF16
	}
	m.infos = p.Spec.ParamTensors()
	m.input = m.newConv(&p.Input)
	m.blocks = make([][2]convLayer, len(p.Blocks))
	for i := range p.Blocks {
		m.blocks[i] = [2]convLayer{m.newConv(&p.Blocks[i].A), m.newConv(&p.Blocks[i].B)}
	}
	m.polConv = m.newConv(&p.PolicyConv)
	if p.Spec.FromToHead() {
		m.polFC = m.newDense(&net.Dense{Out: p.FromTo.C, In: p.FromTo.C, W: p.FromTo.W, B: p.FromTo.B})
	} else {
		m.polFC = m.newDense(&p.PolicyFC)
	}
	m.valConv = m.newConv(&p.ValueConv)
	m.valFC1 = m.newDense(&p.ValueFC1)
	m.valFC2 = m.newDense(&p.ValueFC2)

	// Collect the tensors in ParamTensors order and the BN layers in
	// Params.Layers order (the order graphs list their BN ops in).
	conv := func(c *convLayer) { m.tensors = append(m.tensors, c.w, c.gamma, c.beta) }
	dense := func(d *denseLayer) { m.tensors = append(m.tensors, d.w, d.b) }
	conv(&m.input)
	m.convs = append(m.convs, &m.input)
	for i := range m.blocks {
		conv(&m.blocks[i][0])
		conv(&m.blocks[i][1])
		m.convs = append(m.convs, &m.blocks[i][0], &m.blocks[i][1])
	}
	conv(&m.polConv)
	dense(&m.polFC)
	conv(&m.valConv)
	dense(&m.valFC1)
	dense(&m.valFC2)
	m.convs = append(m.convs, &m.polConv, &m.valConv)
	if len(m.tensors) != len(m.infos) {
		return nil, fmt.Errorf("train: internal error: %d tensors, %d infos", len(m.tensors), len(m.infos))
	}

	if trainBatch > 0 {
		g, err := m.build(trainBatch, true)
		if err != nil {
			return nil, err
		}
		m.train = g
	}
	return m, nil
}

func (m *Model) newConv(c *net.ConvBN) convLayer {
	return convLayer{
		out: c.Out, in: c.In, k: c.K,
		w:     tensor.New(tensor.WithShape(c.Out, c.In, c.K, c.K), tensor.WithBacking(clone32(c.W))),
		gamma: tensor.New(tensor.WithShape(1, c.Out, 1, 1), tensor.WithBacking(clone32(c.Gamma))),
		beta:  tensor.New(tensor.WithShape(1, c.Out, 1, 1), tensor.WithBacking(clone32(c.Beta))),
		mean:  tensor.New(tensor.WithShape(c.Out), tensor.WithBacking(clone32(c.Mean))),
		vr:    tensor.New(tensor.WithShape(c.Out), tensor.WithBacking(clone32(c.Var))),
	}
}

func (m *Model) newDense(d *net.Dense) denseLayer {
	return denseLayer{
		out: d.Out, in: d.In,
		w: tensor.New(tensor.WithShape(d.Out, d.In), tensor.WithBacking(clone32(d.W))),
		b: tensor.New(tensor.WithShape(len(d.B)), tensor.WithBacking(clone32(d.B))), // Out, or the from-to head's hw*hw
	}
}

func clone32(s []float32) []float32 { return append([]float32(nil), s...) }

func allFinite(s []float32) bool {
	for _, x := range s {
		if !finite32(x) {
			return false
		}
	}
	return true
}

// Spec returns the network shape.
func (m *Model) Spec() net.Spec { return m.spec }

// TrainBatch returns the batch size of the training graph (0 if none).
func (m *Model) TrainBatch() int { return m.trainBatch }

// ParamTensors lists the trainable tensors in their fixed order (see
// Spec.ParamTensors).
func (m *Model) ParamTensors() []net.ParamInfo { return m.spec.ParamTensors() }

// Params returns a deep copy of the current weights and BN running
// statistics. NewModel(m.Params(), b) reproduces them bit for bit.
func (m *Model) Params() *net.Params {
	m.mu.RLock()
	defer m.mu.RUnlock()
	conv := func(c *convLayer) net.ConvBN {
		return net.ConvBN{
			Out: c.out, In: c.in, K: c.k,
			W:     clone32(c.w.Float32s()),
			Gamma: clone32(c.gamma.Float32s()),
			Beta:  clone32(c.beta.Float32s()),
			Mean:  clone32(c.mean.Float32s()),
			Var:   clone32(c.vr.Float32s()),
		}
	}
	dense := func(d *denseLayer) net.Dense {
		return net.Dense{Out: d.out, In: d.in, W: clone32(d.w.Float32s()), B: clone32(d.b.Float32s())}
	}
	p := &net.Params{
		Spec:       m.spec,
		Input:      conv(&m.input),
		PolicyConv: conv(&m.polConv),
		ValueConv:  conv(&m.valConv),
		ValueFC1:   dense(&m.valFC1),
		ValueFC2:   dense(&m.valFC2),
	}
	if m.spec.FromToHead() {
		d := dense(&m.polFC)
		p.FromTo = net.FromTo{C: d.Out, W: d.W, B: d.B}
	} else {
		p.PolicyFC = dense(&m.polFC)
	}
	for i := range m.blocks {
		p.Blocks = append(p.Blocks, net.Block{A: conv(&m.blocks[i][0]), B: conv(&m.blocks[i][1])})
	}
	return p
}

// build constructs a graph for batch n. A training graph also gets the
// targets, the loss and its gradient with respect to every parameter.
func (m *Model) build(n int, train bool) (gr *graph, err error) {
	// Gorgonia reports some construction errors (compilation in
	// NewTapeMachine) by panicking.
	defer func() {
		if r := recover(); r != nil {
			gr, err = nil, fmt.Errorf("%v", r)
		}
		if err != nil {
			gr, err = nil, fmt.Errorf("train: building the graph for batch %d: %w", n, err)
		}
	}()
	return m.buildGraph(n, train)
}

func (m *Model) buildGraph(n int, train bool) (gr *graph, err error) {
	s := m.spec
	g := G.NewGraph()
	gr = &graph{n: n, g: g}
	gr.xv = tensor.New(tensor.WithShape(n, s.Channels, s.Height, s.Width), tensor.Of(tensor.Float32))
	gr.x = G.NewTensor(g, G.Float32, 4, G.WithShape(n, s.Channels, s.Height, s.Width), G.WithName("x"), G.WithValue(gr.xv))

	learn := make(G.Nodes, len(m.tensors))
	param := func(t *tensor.Dense) *G.Node {
		i := slices.Index(m.tensors, t)
		nd := G.NewTensor(g, G.Float32, t.Dims(), G.WithShape(t.Shape().Clone()...), G.WithName(m.infos[i].Name), G.WithValue(t))
		learn[i] = nd
		return nd
	}
	fast := train && !m.referenceOps
	tower := m.referenceTower
	if fast {
		tower = m.fastTower
	}
	flats, err := tower(gr, param, []*convLayer{&m.polConv, &m.valConv})
	if err != nil {
		return nil, err
	}
	pflat, vflat := flats[0], flats[1]

	// dense computes x W^T + b as (W x^T)^T: gorgonia's Mul has no
	// transposed-B form, and transposing the activations is cheaper than
	// transposing the weights. W goes through an identity Reshape, which
	// gives the matrix product a private tensor header: the backward pass
	// of a product transposes its operands' headers in place (Dense.T()),
	// which on the shared weight tensor would race with other graphs
	// (Conv2d reshapes its filter itself).
	dense := func(x *G.Node, d *denseLayer) (*G.Node, error) {
		w, b := param(d.w), param(d.b)
		w, err := G.Reshape(w, tensor.Shape{d.out, d.in})
		if err != nil {
			return nil, err
		}
		xt, err := G.Transpose(x)
		if err != nil {
			return nil, err
		}
		y, err := G.Mul(w, xt)
		if err != nil {
			return nil, err
		}
		if y, err = G.Transpose(y); err != nil {
			return nil, err
		}
		return G.BroadcastAdd(y, b, nil, []byte{0})
	}
	layer := func(x *G.Node, d *denseLayer, relu bool) (*G.Node, error) {
		if fast {
			return ops.Dense(x, param(d.w), param(d.b), relu)
		}
		y, err := dense(x, d)
		if err == nil && relu {
			y, err = G.Rectify(y)
		}
		return y, err
	}
	if m.spec.FromToHead() {
		gr.logit, err = ops.FromTo(pflat, param(m.polFC.w), param(m.polFC.b), s.Height*s.Width)
	} else {
		gr.logit, err = layer(pflat, &m.polFC, false)
	}
	if err != nil {
		return nil, err
	}
	vh, err := layer(vflat, &m.valFC1, true)
	if err != nil {
		return nil, err
	}
	if vh, err = layer(vh, &m.valFC2, false); err != nil {
		return nil, err
	}
	if s.WDLHead() {
		// The logits are the graph's output: the loss takes them (a
		// softmax cross-entropy), and Forward turns them into
		// probabilities with net.WDL, as every forward pass does.
		gr.wdl = vh
	} else {
		if vh, err = G.Reshape(vh, tensor.Shape{n}); err != nil {
			return nil, err
		}
		if gr.value, err = G.Tanh(vh); err != nil {
			return nil, err
		}
	}
	if slices.Contains(learn, nil) || len(gr.bn) != len(m.convs) {
		return nil, fmt.Errorf("internal error: graph lacks a parameter or has %d BN layers, want %d", len(gr.bn), len(m.convs))
	}

	if !train {
		gr.vm = G.NewTapeMachine(g, G.EvalMode())
		return gr, nil
	}
	if err := gr.addLoss(s); err != nil {
		return nil, err
	}
	if gr.grads, err = G.Grad(gr.loss, learn...); err != nil {
		return nil, fmt.Errorf("gradient: %w", err)
	}
	gr.vm = G.NewTapeMachine(g, G.WithEngine(ops.Engine()))
	return gr, nil
}

// referenceTower builds the residual tower and the heads' convolutions on
// gorgonia's own Conv2d, BatchNorm, Rectify and Add (NCHW), and returns
// each head's flattened activations (n, channels*h*w). Inference graphs
// always use it; training graphs when the model was built with
// ReferenceOps.
func (m *Model) referenceTower(gr *graph, param func(*tensor.Dense) *G.Node, heads []*convLayer) ([]*G.Node, error) {
	s, n := m.spec, gr.n
	convBN := func(x *G.Node, c *convLayer, res *G.Node) (*G.Node, error) {
		w, gamma, beta := param(c.w), param(c.gamma), param(c.beta)
		p := c.k / 2
		y, err := G.Conv2d(x, w, tensor.Shape{c.k, c.k}, []int{p, p}, []int{1, 1}, []int{1, 1})
		if err != nil {
			return nil, err
		}
		y, _, _, op, err := G.BatchNorm(y, gamma, beta, BNMomentum, net.BNEpsilon)
		if err != nil {
			return nil, err
		}
		gr.bn = append(gr.bn, op)
		if res != nil {
			if y, err = G.Add(y, res); err != nil {
				return nil, err
			}
		}
		return G.Rectify(y)
	}
	h, err := convBN(gr.x, &m.input, nil)
	if err != nil {
		return nil, err
	}
	for i := range m.blocks {
		y, err := convBN(h, &m.blocks[i][0], nil)
		if err != nil {
			return nil, err
		}
		if h, err = convBN(y, &m.blocks[i][1], h); err != nil {
			return nil, err
		}
	}
	hw := s.Height * s.Width
	flats := make([]*G.Node, len(heads))
	for i, c := range heads {
		y, err := convBN(h, c, nil)
		if err != nil {
			return nil, err
		}
		if flats[i], err = G.Reshape(y, tensor.Shape{n, c.out * hw}); err != nil {
			return nil, err
		}
	}
	return flats, nil
}

// fastTower is referenceTower on net/train/ops: the same network in padded NHWC
// on the tile kernels, for training graphs.
func (m *Model) fastTower(gr *graph, param func(*tensor.Dense) *G.Node, heads []*convLayer) ([]*G.Node, error) {
	s := m.spec
	b := ops.Board{N: gr.n, H: s.Height, W: s.Width}
	var last *ops.BN
	// convBN returns the batch norm's output and the convolution's node.
	convBN := func(x *G.Node, c *convLayer, res *G.Node, inputGrad bool) (z, y *G.Node, err error) {
		w, gamma, beta := param(c.w), param(c.gamma), param(c.beta)
		if y, err = ops.Conv(x, w, b, c.k, inputGrad, m.convPrecision); err != nil {
			return nil, nil, err
		}
		z, bn, err := ops.BatchNorm(y, gamma, beta, res, b, BNMomentum, net.BNEpsilon)
		if err != nil {
			return nil, nil, err
		}
		gr.bn, last = append(gr.bn, bn), bn
		return z, y, nil
	}
	x, err := ops.Pad(gr.x, b)
	if err != nil {
		return nil, err
	}
	h, _, err := convBN(x, &m.input, nil, false)
	if err != nil {
		return nil, err
	}
	for i := range m.blocks {
		a, conv, err := convBN(h, &m.blocks[i][0], nil, true)
		if err != nil {
			return nil, err
		}
		if h, _, err = convBN(a, &m.blocks[i][1], h, true); err != nil {
			return nil, err
		}
		// The block input's two gradients are added by its first
		// convolution, not by gorgonia.
		if err := ops.AddResidualGradient(conv, last); err != nil {
			return nil, err
		}
	}
	flats := make([]*G.Node, len(heads))
	for i, c := range heads {
		y, _, err := convBN(h, c, nil, true)
		if err != nil {
			return nil, err
		}
		if flats[i], err = ops.Flatten(y, b); err != nil {
			return nil, err
		}
	}
	return flats, nil
}

// syncStats copies the model's running statistics into the graph's BN ops.
// It must run after the graph's tape machine exists (creating a training
// machine resets them). Callers hold m.mu (read or write).
func (m *Model) syncStats(gr *graph) error {
	for i, c := range m.convs[:len(gr.bn)] {
		if err := gr.bn[i].SetStats(c.mean, c.vr); err != nil {
			return fmt.Errorf("train: BN statistics: %w", err)
		}
	}
	return nil
}

// getGraph returns an idle inference graph for batch n, building one if
// none is idle.
func (m *Model) getGraph(n int) (*graph, error) {
	m.poolMu.Lock()
	if l := m.pool[n]; len(l) > 0 {
		gr := l[len(l)-1]
		m.pool[n] = l[:len(l)-1]
		m.poolMu.Unlock()
		return gr, nil
	}
	m.poolMu.Unlock()
	// Creating a tape machine writes the engine field of every value bound
	// to the graph, the shared weight tensors included: build exclusively.
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.build(n, false)
}

func (m *Model) putGraph(gr *graph) {
	m.poolMu.Lock()
	m.pool[gr.n] = append(m.pool[gr.n], gr)
	m.poolMu.Unlock()
}

// ReleaseInference drops the idle inference graphs (and the activations
// they keep alive); later Forward calls build new ones.
func (m *Model) ReleaseInference() {
	m.poolMu.Lock()
	m.pool = map[int][]*graph{}
	m.poolMu.Unlock()
}

// Forward runs the network in evaluation mode (BN with the running
// statistics) on n positions, planes [n][c][h][w], and returns the policy
// logits [n][actions] and the values [n] in [-1, 1] (W - L with the WDL
// head). It is safe for concurrent use (see Model). Batches are padded
// to a power of two and split into chunks of at most MaxInferBatch.
func (m *Model) Forward(planes []float32, n int) (policy, value []float32, err error) {
	policy, value, _, err = m.ForwardWDL(planes, n)
	return policy, value, err
}

// ForwardWDL is Forward that also returns, with the WDL head, each
// position's probabilities of a win, a draw and a loss [n][3] (nil with
// the scalar head).
func (m *Model) ForwardWDL(planes []float32, n int) (policy, value, wdl []float32, err error) {
	s := m.spec
	size := s.Channels * s.Height * s.Width
	if n < 1 {
		return nil, nil, nil, fmt.Errorf("train: forward of %d positions", n)
	}
	if len(planes) != n*size {
		return nil, nil, nil, fmt.Errorf("train: forward of %d positions needs %d plane values, got %d", n, n*size, len(planes))
	}
	policy = make([]float32, n*s.Actions)
	value = make([]float32, n)
	if s.WDLHead() {
		wdl = make([]float32, 3*n)
	}
	for lo := 0; lo < n; lo += MaxInferBatch {
		hi := min(lo+MaxInferBatch, n)
		var w []float32
		if wdl != nil {
			w = wdl[3*lo : 3*hi]
		}
		if err := m.forward(planes[lo*size:hi*size], hi-lo, policy[lo*s.Actions:hi*s.Actions], value[lo:hi], w); err != nil {
			return nil, nil, nil, err
		}
	}
	return policy, value, wdl, nil
}

// forward runs one chunk of k <= MaxInferBatch positions.
func (m *Model) forward(planes []float32, k int, policy, value, wdl []float32) error {
	b := 1 << bits.Len(uint(k-1)) // next power of two >= k
	gr, err := m.getGraph(b)
	if err != nil {
		return err
	}
	xs := gr.xv.Float32s()
	copy(xs, planes)
	clear(xs[len(planes):])

	m.mu.RLock()
	err = m.syncStats(gr)
	if err == nil {
		err = gr.vm.RunAll()
	}
	if err == nil {
		copy(policy, gr.logit.Value().Data().([]float32))
		if gr.wdl != nil {
			logits := gr.wdl.Value().Data().([]float32)
			for i := range value {
				value[i] = net.WDL(logits[3*i:3*i+3], wdl[3*i:3*i+3])
			}
		} else {
			copy(value, gr.value.Value().Data().([]float32))
		}
	}
	m.mu.RUnlock()
	gr.vm.Reset()
	if err != nil {
		// Do not reuse a graph whose run failed.
		return fmt.Errorf("train: forward: %w", err)
	}
	m.putGraph(gr)
	return nil
}
