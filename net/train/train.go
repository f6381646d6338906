package train

import (
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"runtime"
	"slices"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/internal/parallel"
	"github.com/tabula-zero/tabula/net"
)

// Batch is one training batch of N samples.
type Batch struct {
	Planes []float32 // [N][c][h][w] encoded positions
	Policy []float32 // [N][actions] target distributions (rows sum to 1 within 1e-3)
	Value  []float32 // [N] outcomes z in [-1, 1], side to move's view
	// WDL holds the targets of a network with the WDL head [N][3]: each
	// sample's distribution over win, draw and loss from the side to
	// move's view (data.WDLTarget). Such a network trains its value head
	// on them, by cross-entropy, and ignores Value; without the head it
	// is not read (nil).
	WDL []float32
	// Legal marks each sample's legal actions [N][actions] (nil: no
	// mask). With it the policy cross-entropy's softmax runs over the
	// legal actions only (lc0's masked policy loss): the network spends
	// nothing on pushing down moves that search never asks about (8,058
	// of Xiangqi's 8,100 from-to actions in a typical position), and
	// illegal actions' logits are left free. Search and play take the
	// softmax over the legal moves anyway. The policy target must lie on
	// legal actions.
	Legal []bool
	N     int
}

// Config configures a Trainer.
type Config struct {
	// Schedule gives the learning rate of every step.
	Schedule net.Schedule
	// Momentum is the SGD momentum in [0, 1); 0 is plain SGD.
	Momentum float64
	// WeightDecay is c in the loss term c*||theta||^2 over the convolution
	// and dense weights (not BN gamma/beta, not biases); c >= 0.
	WeightDecay float64
}

// Validate reports a configuration that cannot train.
func (c Config) Validate() error {
	if err := c.Schedule.Validate(); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if !(c.Momentum >= 0 && c.Momentum < 1) {
		return fmt.Errorf("train: momentum %v not in [0, 1)", c.Momentum)
	}
	if !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0) {
		return fmt.Errorf("train: weight decay %v is not a finite non-negative number", c.WeightDecay)
	}
	return nil
}

// Stats reports one training step. The losses are those of the batch
// before the update (BN in training mode, batch statistics):
// Loss = ValueLoss + PolicyLoss + L2.
type Stats struct {
	Loss       float64
	ValueLoss  float64 // mean (z - v)^2; with the WDL head mean -t . log_softmax(wdl logits)
	PolicyLoss float64 // mean -pi . log_softmax(logits)
	L2         float64 // c * ||theta||^2
	// GradNorm is the Euclidean norm of the gradient of Loss (weight decay
	// included) over all trainable tensors.
	GradNorm float64
	// LR is the learning rate this step used.
	LR float64
	// Step is the number of steps taken, this one included (1 after the
	// first step).
	Step int64
}

// State is the optimizer state in plain form, for checkpoints.
// Together with the model's Params it determines the continuation of
// training bit for bit.
type State struct {
	// Step is the number of steps taken; the next step uses the learning
	// rate Schedule.At(Step).
	Step int64
	// Momentum holds the momentum buffers, one per trainable tensor in
	// Spec.ParamTensors order, each of that tensor's size.
	Momentum [][]float32
}

// Trainer trains a model's weights with SGD with momentum (PyTorch
// convention: v = mu*v + g; w -= lr*v, where g is the gradient of the
// loss including the weight decay term 2*c*w). A Trainer is not safe for
// concurrent use; the model stays usable for Forward during Step.
type Trainer struct {
	m    *Model
	cfg  Config
	step int64
	mom  [][]float32
	grad [][]float32 // scratch: gradient of the last step
	// The update runs over the cores in fixed segments of the parameters,
	// each with its own sums of squares, added in segment order (so the
	// statistics do not depend on the core count either); the loop
	// bodies are made once and read their step's values from cur.
	segs                   []paramSegment
	sq, norm               []float64 // each segment's Σ θ² (decayed tensors only) and Σ g²
	gradPart, momentumPart func(part int)
	cur                    struct {
		gs       [][]float32 // the graph's gradients
		decay    float32
		mu, rate float32
	}
}

// paramSegment is elements [lo, hi) of parameter tensor i.
type paramSegment struct{ i, lo, hi int }

// segmentSize is the elements of a parameter segment: a few microseconds
// of the update's passes, many segments for Xiangqi's 0.4 M parameters
// (a variable for the tests, which cut tensors into many).
var segmentSize = 8192

// NewTrainer returns a trainer with zero momentum at step 0. The model
// must have a training graph (NewModel with trainBatch > 0).
func (m *Model) NewTrainer(cfg Config) (*Trainer, error) {
	if m.train == nil {
		return nil, errors.New("train: model has no training graph (trainBatch 0)")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Schedule = cloneSchedule(cfg.Schedule)
	t := &Trainer{m: m, cfg: cfg}
	for i, pi := range m.infos {
		t.mom = append(t.mom, make([]float32, pi.Size()))
		t.grad = append(t.grad, make([]float32, pi.Size()))
		for lo := 0; lo < pi.Size(); lo += segmentSize {
			t.segs = append(t.segs, paramSegment{i, lo, min(pi.Size(), lo+segmentSize)})
		}
	}
	t.sq, t.norm = make([]float64, len(t.segs)), make([]float64, len(t.segs))
	t.cur.gs = make([][]float32, len(m.infos))
	t.gradPart, t.momentumPart = t.gradSegment, t.momentumSegment
	return t, nil
}

// Config returns the trainer's configuration.
func (t *Trainer) Config() Config {
	c := t.cfg
	c.Schedule = cloneSchedule(c.Schedule)
	return c
}

// State returns a deep copy of the optimizer state.
func (t *Trainer) State() State {
	s := State{Step: t.step, Momentum: make([][]float32, len(t.mom))}
	for i, v := range t.mom {
		s.Momentum[i] = clone32(v)
	}
	return s
}

// Restore replaces the optimizer state with a copy of s.
func (t *Trainer) Restore(s State) error {
	if s.Step < 0 {
		return fmt.Errorf("train: trainer state step %d is negative", s.Step)
	}
	if len(s.Momentum) != len(t.mom) {
		return fmt.Errorf("train: trainer state has %d momentum buffers, the model has %d tensors", len(s.Momentum), len(t.mom))
	}
	for i, v := range s.Momentum {
		if len(v) != len(t.mom[i]) {
			return fmt.Errorf("train: trainer state momentum %d (%s) has %d values, want %d", i, t.m.infos[i].Name, len(v), len(t.mom[i]))
		}
		for _, x := range v {
			if !finite32(x) {
				return fmt.Errorf("train: trainer state momentum %d (%s) is not finite", i, t.m.infos[i].Name)
			}
		}
	}
	for i, v := range s.Momentum {
		copy(t.mom[i], v)
	}
	t.step = s.Step
	return nil
}

// Step trains on one batch of exactly the model's training batch size and
// returns the batch's statistics before the update. On error nothing
// changes (weights, running statistics and optimizer state).
func (t *Trainer) Step(b Batch) (Stats, error) {
	lr := t.cfg.Schedule.At(t.step)
	if !(lr >= 0) || math.IsInf(lr, 0) {
		return Stats{}, fmt.Errorf("train: learning rate %v at step %d", lr, t.step)
	}
	m := t.m
	m.trainMu.Lock()
	defer m.trainMu.Unlock()
	st, err := t.gradients(b)
	if err != nil {
		return Stats{}, err
	}
	mu, rate := float32(t.cfg.Momentum), float32(lr)

	m.mu.Lock()
	t.cur.mu, t.cur.rate = mu, rate
	parallel.For(len(t.segs), t.momentumPart)
	// The training pass moved its BN ops' running statistics; they become
	// the model's.
	for i, c := range m.convs {
		mean, vr := m.train.bn[i].Stats()
		copy(c.mean.Float32s(), float32s(mean))
		copy(c.vr.Float32s(), float32s(vr))
	}
	m.mu.Unlock()

	t.step++
	st.LR = lr
	st.Step = t.step
	return st, nil
}

// gradients runs the training graph on b and leaves the gradient of the
// full loss (weight decay included) in t.grad. It changes neither the
// weights nor the model's running statistics (only the training graph's
// BN ops, which are re-synchronised before every run). The caller holds
// m.trainMu.
func (t *Trainer) gradients(b Batch) (Stats, error) {
	m := t.m
	gr := m.train
	if err := m.loadBatch(b); err != nil {
		return Stats{}, err
	}
	gr.legal.d = b.Legal // read by the loss ops during this run only
	defer func() { gr.legal.d = nil }()

	var st Stats
	m.mu.RLock()
	defer m.mu.RUnlock()
	err := m.syncStats(gr)
	if err == nil {
		err = gr.vm.RunAll()
	}
	defer gr.vm.Reset()
	if err != nil {
		return Stats{}, fmt.Errorf("train: training pass: %w", err)
	}
	if st.ValueLoss, err = scalarValue(gr.vloss); err != nil {
		return Stats{}, err
	}
	if st.PolicyLoss, err = scalarValue(gr.ploss); err != nil {
		return Stats{}, err
	}
	for i := range m.tensors {
		gv := gr.grads[i].Value()
		if gv == nil {
			return Stats{}, fmt.Errorf("train: no gradient for %s", m.infos[i].Name)
		}
		gs, ok := gv.Data().([]float32)
		if !ok || len(gs) != len(t.grad[i]) {
			return Stats{}, fmt.Errorf("train: gradient of %s has the wrong type or size", m.infos[i].Name)
		}
		t.cur.gs[i] = gs
	}
	t.cur.decay = float32(t.cfg.WeightDecay)
	parallel.For(len(t.segs), t.gradPart)
	clear(t.cur.gs)
	var l2, norm float64
	for k := range t.segs {
		l2 += t.sq[k]
		norm += t.norm[k]
	}
	st.L2 = t.cfg.WeightDecay * l2
	st.GradNorm = math.Sqrt(norm)
	st.Loss = st.ValueLoss + st.PolicyLoss + st.L2
	if math.IsNaN(st.Loss) || math.IsInf(st.Loss, 0) || math.IsNaN(st.GradNorm) || math.IsInf(st.GradNorm, 0) {
		return Stats{}, fmt.Errorf("train: non-finite loss %v or gradient norm %v", st.Loss, st.GradNorm)
	}
	return st, nil
}

// gradSegment is part of gradients: a segment's gradient of the full loss,
// the graph's plus weight decay's, and its sums of squares.
func (t *Trainer) gradSegment(part int) {
	sg, c := t.segs[part], t.cur.decay
	gs, dst := t.cur.gs[sg.i][sg.lo:sg.hi], t.grad[sg.i][sg.lo:sg.hi]
	var sq, norm float64
	if t.m.infos[sg.i].Decay && c != 0 {
		ws := t.m.tensors[sg.i].Float32s()[sg.lo:sg.hi]
		for j, x := range ws {
			sq += float64(x) * float64(x)
			dst[j] = gs[j] + 2*c*x
		}
	} else {
		copy(dst, gs)
	}
	for _, g := range dst {
		norm += float64(g) * float64(g)
	}
	t.sq[part], t.norm[part] = sq, norm
}

// momentumSegment is part of Step: the momentum update of a segment.
func (t *Trainer) momentumSegment(part int) {
	sg, mu, rate := t.segs[part], t.cur.mu, t.cur.rate
	ws := t.m.tensors[sg.i].Float32s()[sg.lo:sg.hi]
	g, v := t.grad[sg.i][sg.lo:sg.hi], t.mom[sg.i][sg.lo:sg.hi]
	for j := range ws {
		v[j] = mu*v[j] + g[j]
		ws[j] -= rate * v[j]
	}
}

// loadBatch verifies the sizes and values of a training batch and copies
// it into the training graph's inputs.
func (m *Model) loadBatch(b Batch) error {
	s := m.spec
	if b.N != m.trainBatch {
		return fmt.Errorf("train: batch of %d samples, the training batch is %d", b.N, m.trainBatch)
	}
	size := s.Channels * s.Height * s.Width
	if len(b.Planes) != b.N*size || len(b.Policy) != b.N*s.Actions || len(b.Value) != b.N {
		return fmt.Errorf("train: batch of %d needs %d plane, %d policy and %d value entries, got %d, %d, %d",
			b.N, b.N*size, b.N*s.Actions, b.N, len(b.Planes), len(b.Policy), len(b.Value))
	}
	if s.WDLHead() && len(b.WDL) != 3*b.N {
		return fmt.Errorf("train: batch of %d for a network with the WDL head needs %d win/draw/loss targets, got %d", b.N, 3*b.N, len(b.WDL))
	}
	if b.Legal != nil && len(b.Legal) != b.N*s.Actions {
		return fmt.Errorf("train: batch of %d needs %d legal-action entries, got %d", b.N, b.N*s.Actions, len(b.Legal))
	}
	// The values, sample by sample on every core (Xiangqi's from-to
	// policy is 8,100 entries a sample), copied while they are in cache;
	// the first bad sample's error.
	if len(m.sampleErrs) != b.N {
		m.sampleErrs = make([]error, b.N)
		m.checkPart = m.checkSamples
	}
	m.checking, m.checkParts = b, max(1, min(b.N, 4*runtime.GOMAXPROCS(0)))
	parallel.For(m.checkParts, m.checkPart)
	m.checking = Batch{}
	for i, err := range m.sampleErrs {
		if err != nil {
			clear(m.sampleErrs)
			return fmt.Errorf("train: batch sample %d: %w", i, err)
		}
	}
	return nil
}

// checkSamples is loadBatch's part of parallel.For: a contiguous range
// of samples, checked and copied.
func (m *Model) checkSamples(part int) {
	b, parts, s := m.checking, m.checkParts, m.spec
	i0, i1 := b.N*part/parts, b.N*(part+1)/parts
	for i := i0; i < i1; i++ {
		m.sampleErrs[i] = m.checkSample(b, i)
	}
	size := s.Channels * s.Height * s.Width
	gr := m.train
	copy(gr.xv.Float32s()[i0*size:i1*size], b.Planes[i0*size:i1*size])
	copy(gr.piv.Float32s()[i0*s.Actions:i1*s.Actions], b.Policy[i0*s.Actions:i1*s.Actions])
	if s.WDLHead() {
		copy(gr.zv.Float32s()[3*i0:3*i1], b.WDL[3*i0:3*i1])
	} else {
		copy(gr.zv.Float32s()[i0:i1], b.Value[i0:i1])
	}
}

// checkSample verifies the values of sample i of a batch of the right
// sizes.
func (m *Model) checkSample(b Batch, i int) error {
	s := m.spec
	size := s.Channels * s.Height * s.Width
	for _, x := range b.Planes[i*size : (i+1)*size] {
		if !finite32(x) {
			return fmt.Errorf("plane value %v", x)
		}
	}
	sum, err := targetSum(b.Policy[i*s.Actions : (i+1)*s.Actions])
	if err != nil {
		return fmt.Errorf("policy %w", err)
	}
	if math.Abs(sum-1) > 1e-3 {
		return fmt.Errorf("policy target sums to %v, not 1", sum)
	}
	if b.Legal != nil {
		legal := b.Legal[i*s.Actions : (i+1)*s.Actions]
		for a, p := range b.Policy[i*s.Actions : (i+1)*s.Actions] {
			if p != 0 && !legal[a] {
				return fmt.Errorf("policy target %v on action %d, which the legal mask excludes", p, a)
			}
		}
	}
	if s.WDLHead() {
		sum, err := targetSum(b.WDL[3*i : 3*i+3])
		if err != nil {
			return fmt.Errorf("win/draw/loss %w", err)
		}
		if math.Abs(sum-1) > 1e-3 {
			return fmt.Errorf("win/draw/loss target sums to %v, not 1", sum)
		}
		return nil
	}
	if z := b.Value[i]; !(z >= -1 && z <= 1) {
		return fmt.Errorf("value target %v not in [-1, 1]", z)
	}
	return nil
}

// targetSum returns the sum of a target distribution's row, or an error
// naming a negative or non-finite entry.
func targetSum(row []float32) (float64, error) {
	var sum float64
	for _, p := range row {
		// One comparison pair per entry (a step checks every entry of
		// its batch): NaN fails both, negatives the first, +Inf the second.
		if !(p >= 0 && p <= math.MaxFloat32) {
			return 0, fmt.Errorf("target %v", p)
		}
		sum += float64(p)
	}
	return sum, nil
}

// float32s returns the data of a float32 tensor without boxing it in an
// interface when it is dense.
func float32s(t tensor.Tensor) []float32 {
	if d, ok := t.(*tensor.Dense); ok {
		return d.Float32s()
	}
	return t.Data().([]float32)
}

// finite32 reports whether x is neither infinite nor NaN: its exponent
// bits are not all ones.
func finite32(x float32) bool { return math.Float32bits(x)&0x7f800000 != 0x7f800000 }

func scalarValue(n *G.Node) (float64, error) {
	switch v := n.Value().(type) {
	case *G.F32:
		return float64(*v), nil
	case tensor.Tensor:
		if d, ok := v.Data().([]float32); ok && len(d) == 1 {
			return float64(d[0]), nil
		}
		if d, ok := v.Data().(float32); ok {
			return float64(d), nil
		}
	}
	return 0, fmt.Errorf("train: %s is not a float32 scalar (%T)", n.Name(), n.Value())
}

// addLoss adds the targets and the loss
//
//	mean_i (z_i - v_i)^2 + mean_i -pi_i . log_softmax(logits_i)
//
// to a graph (weight decay is added outside the graph); with the WDL
// head the value term is mean_i -t_i . log_softmax(wdl logits_i) against
// the win/draw/loss targets t (the policy's cross-entropy op over three
// columns, no mask).
func (gr *graph) addLoss(s net.Spec) error {
	n, g := gr.n, gr.g
	gr.piv = tensor.New(tensor.WithShape(n, s.Actions), tensor.Of(tensor.Float32))
	gr.pi = G.NewTensor(g, G.Float32, 2, G.WithShape(n, s.Actions), G.WithName("pi"), G.WithValue(gr.piv))
	var err error
	if s.WDLHead() {
		gr.zv = tensor.New(tensor.WithShape(n, 3), tensor.Of(tensor.Float32))
		gr.z = G.NewTensor(g, G.Float32, 2, G.WithShape(n, 3), G.WithName("wdl"), G.WithValue(gr.zv))
		if gr.vloss, err = G.ApplyOp(&xentOp{}, gr.wdl, gr.z); err != nil {
			return err
		}
	} else {
		gr.zv = tensor.New(tensor.WithShape(n), tensor.Of(tensor.Float32))
		gr.z = G.NewTensor(g, G.Float32, 1, G.WithShape(n), G.WithName("z"), G.WithValue(gr.zv))
		d, err := G.Sub(gr.z, gr.value)
		if err != nil {
			return err
		}
		if d, err = G.Square(d); err != nil {
			return err
		}
		if gr.vloss, err = G.Mean(d); err != nil {
			return err
		}
	}
	gr.legal = &legalMask{}
	if gr.ploss, err = G.ApplyOp(&xentOp{legal: gr.legal}, gr.logit, gr.pi); err != nil {
		return err
	}
	gr.loss, err = G.Add(gr.vloss, gr.ploss)
	return err
}

// legalMask holds the batch's legal actions [n][A] (Batch.Legal) for
// the policy loss while a step runs; with d nil every action counts.
type legalMask struct{ d []bool }

// row returns row i of a mask of width a, or nil when there is no mask.
func (m *legalMask) row(i, a int) []bool {
	if m == nil || m.d == nil {
		return nil
	}
	return m.d[i*a : (i+1)*a]
}

// xentOp is the mean softmax cross-entropy of logits z (n, A) against
// target distributions pi (n, A):
//
//	-(1/n) sum_i sum_a pi[i][a] * (z[i][a] - logsumexp(z[i]))
//
// where the logsumexp runs over the legal actions only when the batch has
// a legal mask (Batch.Legal).
// computed row by row with the row's own maximum and float64 sums. It
// replaces gorgonia's LogSoftMax, whose kernel starts every row's maximum
// from the first row (tensor v0.9.24), and gorgonia's SoftMax/LogSoftMax
// node merging. Its gradient with respect to z is xentGradOp; the targets
// get none. Rows run in parallel (each row's terms in float64, the rows
// summed in order, so the result does not depend on the cores): a
// from-to head has 8100 actions a row (this and the head's parallel rows
// made its training step 1.17x faster, BenchmarkGorgoniaTrain).
type xentOp struct {
	legal *legalMask
	rows  []float64 // each row's cross-entropy, reused
}

func (*xentOp) Arity() int { return 2 }
func (*xentOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t := G.TensorType{Dims: 2, Of: a}
	return hm.NewFnType(t, t, a)
}
func (*xentOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return tensor.ScalarShape(), nil }
func (*xentOp) ReturnsPtr() bool                               { return false }
func (*xentOp) CallsExtern() bool                              { return false }
func (*xentOp) OverwritesInput() int                           { return -1 }
func (*xentOp) WriteHash(h hash.Hash)                          { fmt.Fprint(h, "tabula.xent") }
func (op *xentOp) Hashcode() uint32                            { return opHash(op) }
func (*xentOp) String() string                                 { return "XEnt" }
func (*xentOp) DiffWRT(int) []bool                             { return []bool{true, false} }

func (op *xentOp) Do(vals ...G.Value) (G.Value, error) {
	z, pi, err := xentInputs(vals)
	if err != nil {
		return nil, err
	}
	n, a := z.n, z.a
	if len(op.rows) != n {
		op.rows = make([]float64, n)
	}
	forRows(n, func(i int) {
		zr, pr := z.d[i*a:(i+1)*a], pi.d[i*a:(i+1)*a]
		lse := logSumExp(zr, op.legal.row(i, a))
		var x float64
		for j, p := range pr {
			if p != 0 {
				x -= float64(p) * (float64(zr[j]) - lse)
			}
		}
		op.rows[i] = x
	})
	var total float64
	for _, x := range op.rows {
		total += x
	}
	return G.NewF32(float32(total / float64(n))), nil
}

// forRows calls row(i) for every i < n, in contiguous ranges on every core.
func forRows(n int, row func(i int)) {
	parts := max(1, min(n, 4*runtime.GOMAXPROCS(0)))
	parallel.For(parts, func(part int) {
		for i := n * part / parts; i < n*(part+1)/parts; i++ {
			row(i)
		}
	})
}

func (op *xentOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dz, err := G.ApplyOp(&xentGradOp{legal: op.legal}, inputs[0], inputs[1], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dz, nil}, nil
}

// xentGradOp is the gradient of xentOp with respect to the logits:
// g/n * (softmax(z_i) * sum(pi_i) - pi_i) for the upstream scalar g, the
// softmax over the legal actions with a mask (0 for the others). It
// belongs to one graph and reuses its result from run to run.
type xentGradOp struct {
	legal *legalMask
	out   *tensor.Dense
}

func (*xentGradOp) Arity() int { return 3 }
func (*xentGradOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t := G.TensorType{Dims: 2, Of: a}
	return hm.NewFnType(t, t, a, t)
}
func (*xentGradOp) InferShape(ns ...G.DimSizer) (tensor.Shape, error) {
	if len(ns) != 3 {
		return nil, fmt.Errorf("train: xent gradient takes 3 inputs, got %d", len(ns))
	}
	s, ok := ns[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("train: xent gradient input shape %v", ns[0])
	}
	return s.Clone(), nil
}
func (*xentGradOp) ReturnsPtr() bool      { return false }
func (*xentGradOp) CallsExtern() bool     { return false }
func (*xentGradOp) OverwritesInput() int  { return -1 }
func (*xentGradOp) WriteHash(h hash.Hash) { fmt.Fprint(h, "tabula.xentgrad") }
func (op *xentGradOp) Hashcode() uint32   { return opHash(op) }
func (*xentGradOp) String() string        { return "XEntGrad" }
func (*xentGradOp) DiffWRT(int) []bool    { return []bool{false, false, false} }
func (*xentGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, errors.New("train: no second derivative of the cross-entropy")
}

func (op *xentGradOp) Do(vals ...G.Value) (G.Value, error) {
	if len(vals) != 3 {
		return nil, fmt.Errorf("train: xent gradient takes 3 inputs, got %d", len(vals))
	}
	z, pi, err := xentInputs(vals[:2])
	if err != nil {
		return nil, err
	}
	var g float64
	switch v := vals[2].(type) {
	case *G.F32:
		g = float64(*v)
	case tensor.Tensor:
		d, ok := v.Data().([]float32)
		if f, isScalar := v.Data().(float32); isScalar {
			g = float64(f)
		} else if ok && len(d) == 1 {
			g = float64(d[0])
		} else {
			return nil, fmt.Errorf("train: xent gradient: upstream gradient %v is not a scalar", v.Shape())
		}
	default:
		return nil, fmt.Errorf("train: xent gradient: upstream gradient of type %T", vals[2])
	}
	n, a := z.n, z.a
	if op.out == nil || op.out.Shape()[0] != n || op.out.Shape()[1] != a {
		op.out = tensor.New(tensor.WithShape(n, a), tensor.Of(tensor.Float32))
	}
	out := op.out.Float32s()
	scale := g / float64(n)
	// One exponential per logit: softmax(z)_j = e_j / s with e_j =
	// exp(z_j - max z), kept in out until the row's sums are known.
	forRows(n, func(i int) {
		zr, pr, or := z.d[i*a:(i+1)*a], pi.d[i*a:(i+1)*a], out[i*a:(i+1)*a]
		lr := op.legal.row(i, a)
		mx := rowMax(zr, lr)
		var s, sum float64
		for j, v := range zr {
			if lr != nil && !lr[j] {
				or[j] = 0
				continue
			}
			e := math.Exp(float64(v) - mx)
			or[j] = float32(e)
			s += e
		}
		for _, p := range pr {
			sum += float64(p)
		}
		k := scale * sum / s
		for j, e := range or {
			or[j] = float32(k*float64(e) - scale*float64(pr[j]))
		}
	})
	return op.out, nil
}

type matrix32 struct {
	n, a int
	d    []float32
}

func xentInputs(vals []G.Value) (z, pi matrix32, err error) {
	if len(vals) != 2 {
		return z, pi, fmt.Errorf("train: cross-entropy takes 2 inputs, got %d", len(vals))
	}
	get := func(v G.Value) (matrix32, error) {
		t, ok := v.(tensor.Tensor)
		if !ok || t.Shape().Dims() != 2 {
			return matrix32{}, fmt.Errorf("train: cross-entropy input %T is not a matrix", v)
		}
		dt, ok := t.(*tensor.Dense)
		if !ok || dt.Dtype() != tensor.Float32 {
			return matrix32{}, fmt.Errorf("train: cross-entropy input of type %v, want a float32 dense tensor", t.Dtype())
		}
		d := dt.Float32s()
		s := t.Shape()
		if len(d) != s[0]*s[1] {
			return matrix32{}, fmt.Errorf("train: cross-entropy input is a view")
		}
		return matrix32{s[0], s[1], d}, nil
	}
	if z, err = get(vals[0]); err != nil {
		return
	}
	if pi, err = get(vals[1]); err != nil {
		return
	}
	if z.n != pi.n || z.a != pi.a {
		err = fmt.Errorf("train: cross-entropy of logits (%d, %d) and targets (%d, %d)", z.n, z.a, pi.n, pi.a)
	}
	return
}

// logSumExp returns log(sum(exp(x))) in float64 over the entries legal
// marks (all of them for a nil legal), shifted by their own maximum.
func logSumExp(x []float32, legal []bool) float64 {
	mx := rowMax(x, legal)
	if math.IsInf(mx, 0) {
		return mx
	}
	var s float64
	for j, v := range x {
		if legal == nil || legal[j] {
			s += math.Exp(float64(v) - mx)
		}
	}
	return mx + math.Log(s)
}

// rowMax returns the largest of the entries of x that legal marks (all
// of them for a nil legal), -Inf for none.
func rowMax(x []float32, legal []bool) float64 {
	mx := math.Inf(-1)
	for j, v := range x {
		if legal == nil || legal[j] {
			mx = max(mx, float64(v))
		}
	}
	return mx
}

func opHash(op interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// cloneSchedule copies s's slices, so that a trainer's schedule cannot be
// changed through the caller's.
func cloneSchedule(s net.Schedule) net.Schedule {
	s.Boundaries = slices.Clone(s.Boundaries)
	s.Values = slices.Clone(s.Values)
	return s
}
