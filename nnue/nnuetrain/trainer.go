package nnuetrain

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/nnue"
)

// Config is what a training run is made of. Everything in it but Threads
// shapes the weights; a run resumes only under the same values.
type Config struct {
	Sizes nnue.Sizes
	// Batch is the positions of one step.
	Batch int
	// LR is Adam's step size; LRDecay multiplies it after every epoch.
	LR, LRDecay float64
	// Lambda weighs the score against the game's result in the target:
	// lambda*sigmoid(score/K) + (1-lambda)*(result+1)/2.
	Lambda float64
	// K scales centi-units to the sigmoid's argument: sigmoid(eval/K) is
	// the predicted score of the game.
	K float64
	// Factorize trains each feature's row as the sum of its own, its
	// piece-square's and its piece's (params), exported summed.
	Factorize bool
	// QuantAware runs the dense layers with their weights rounded to the
	// quantised network's steps (W1 and W2 to 1/64), the gradient passed
	// straight through to the float weights, so the network learns to
	// work with the weights it is exported with.
	QuantAware bool
	// Seed draws the initial weights (without -init) and every epoch's
	// order.
	Seed uint64
	// Threads is the goroutines a step runs on (the results do not
	// depend on it).
	Threads int
}

// Defaults, from the measurements in docs/nnue.md on the generator's
// positions (5,000 nodes a move): K is the scale at which the search's
// scores best predict those games' results; lambda 1 (the score alone)
// played as well as 0.9 and better than blends with more of the result,
// which the network learns by heart (one label for all of a game's
// positions); on 401,000 positions batch 16384 reached the lowest
// validation loss and played best (4096 led on 160,000); a rate of 2e-3
// did worse and 3e-3 diverged.
const (
	DefaultBatch   = 16384
	DefaultLR      = 1e-3
	DefaultLRDecay = 0.99
	DefaultLambda  = 1
	DefaultK       = 680
)

// DefaultConfig returns the defaults on every core.
func DefaultConfig() Config {
	return Config{Sizes: nnue.DefaultSizes, Batch: DefaultBatch, LR: DefaultLR, LRDecay: DefaultLRDecay,
		Lambda: DefaultLambda, K: DefaultK, Factorize: true, QuantAware: true, Seed: 1, Threads: runtime.NumCPU()}
}

// MaxBatch bounds Batch; maxBatchWidth bounds Batch*L1, since a step
// keeps 2*L1 floats of every position (2 GB at the bound).
const (
	MaxBatch      = 1 << 20
	maxBatchWidth = 1 << 28
)

func (c *Config) check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if err := c.Sizes.Check(); err != nil {
		errs = append(errs, err)
	}
	if c.Batch < 1 || c.Batch > MaxBatch {
		bad("batch %d: want 1 to %d", c.Batch, MaxBatch)
	} else if n := int64(c.Batch) * int64(c.Sizes.L1); n > maxBatchWidth {
		bad("batch %d at L1 %d: a step would keep %d GB of accumulators; at most %d GB", c.Batch, c.Sizes.L1, n*8>>30, maxBatchWidth*8>>30)
	}
	if !(c.LR > 0 && c.LR < 1) {
		bad("learning rate %v: want 0 < lr < 1", c.LR)
	}
	if !(c.LRDecay > 0 && c.LRDecay <= 1) {
		bad("learning rate decay %v: want 0 < d <= 1", c.LRDecay)
	}
	if !(c.Lambda >= 0 && c.Lambda <= 1) {
		bad("lambda %v: want 0 to 1", c.Lambda)
	}
	if !(c.K >= 1 && c.K <= 1e5) {
		bad("K %v: want 1 to 100000 centi-units", c.K)
	}
	if c.Threads < 1 || c.Threads > 1024 {
		bad("threads %d: want 1 to 1024", c.Threads)
	}
	return errors.Join(errs...)
}

// Adam's constants (Kingma and Ba's defaults).
const (
	beta1   = 0.9
	beta2   = 0.999
	adamEps = 1e-8
)

// Work split of a step. The sample parts and the column blocks are fixed
// sizes, never a share per thread, so that sums run in the same order at
// any thread count.
const (
	partSamples = 256     // positions of one part of the forward-backward pass
	ftBlock     = 32      // columns of one block of the first layer's gradient
	adamChunk   = 1 << 15 // values of one part of the optimizer's pass
	effRows     = 128     // rows of one part of coalescing the factorised rows
	featStride  = 2 * nnue.MaxActive
)

// Trainer trains one network. Not safe for concurrent use; Close ends its
// goroutines.
type Trainer struct {
	cfg  Config
	loss lossFn
	p    params // the weights
	g    []float32
	m, v []float32
	// eff is the feature transformer's rows the network has: p's own
	// rows, or their sums with the virtual ones when factorised (then
	// stale after every update until refreshed).
	eff      []float32
	effStale bool
	// dv is the dense layers' weights as the passes read them: p's, or
	// their rounding when QuantAware (then stale like eff).
	dv denseViews
	// adamT is the steps taken; epoch and step where the run stands (the
	// epoch in progress, 0-based, and its steps done); epochLoss and
	// epochSamples the running sums of the epoch in progress.
	adamT        int64
	epoch, step  int
	epochLoss    float64
	epochSamples int64

	pool   *pool
	parts  []part
	chunks []chunk

	// The step in progress, read by the parts.
	train []Sample
	idx   []uint32
	n     int
	scale float32   // 1/n: the loss is the batch's mean
	lrT   float32   // the step's bias-corrected rate
	feats []uint16  // [Batch][featStride]: each position's features, the side to move's first
	nfeat []uint8   // [Batch][2]: how many of each side
	acc   []float32 // [Batch][2*L1]: the accumulators, then their gradients

	order      []uint32 // the epoch's order of the training samples
	orderEpoch int      // the epoch order was drawn for (-1: none)

	// Validation in progress.
	valid []Sample
	qnet  *intNet

	sampleF, ftF, adamF, validF, effF, virtF func(int)
}

// part is one part's own buffers: its share of the dense gradient and
// the scratch of a forward and backward pass.
type part struct {
	grad []float32 // the gradient from params.dense() on
	gv   gradViews
	sc   scratch
	qs   intScratch
	loss float64
	diff float64 // validation: the quantised evaluations' distance from the float ones
}

type denseViews struct {
	w1, b1, w2, b2, w3 []float32
	b3                 *float32
}

type gradViews struct {
	ftb, w1, b1, w2, b2, w3 []float32
	b3                      *float32
}

type scratch struct {
	acc, x, dx  []float32 // 2*L1
	s1, h1, dh1 []float32 // L2
	s2, h2, dh2 []float32 // L3
}

// chunk is a range of values the optimizer updates as one part, within
// one tensor, with the tensor's clip bound.
type chunk struct {
	lo, hi int
	clip   float32
}

// New returns a trainer starting from init (nil: a network drawn from
// cfg.Seed, see initial). init's sizes must be cfg.Sizes.
func New(cfg Config, init *nnue.FloatNet) (*Trainer, error) {
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("nnuetrain: %w", err)
	}
	if init == nil {
		var err error
		if init, err = initial(cfg.Sizes, cfg.Seed); err != nil {
			return nil, fmt.Errorf("nnuetrain: %w", err)
		}
	} else if init.Sizes != cfg.Sizes {
		return nil, fmt.Errorf("nnuetrain: the initial network is %s, the run asks for %s", init.Sizes, cfg.Sizes)
	}
	p, err := fromFloat(init, cfg.Factorize)
	if err != nil {
		return nil, err
	}
	p.clip()
	return newTrainer(cfg, p), nil
}

// initial is a fresh run's network, drawn from seed so that every unit
// starts inside its clipped ReLU's slope, for every position: feature
// transformer rows small (within +-0.01: random rows large enough to
// matter are noise a run must unlearn, measured in docs/nnue.md) over
// biases in [0.2, 0.6]; dense weights within +-1/sqrt(inputs), each
// layer's biases set so that its sums at the inputs' typical values are
// 0.5, and the output's so that the evaluation starts near 0. A unit
// clipped for every position has no gradient and would never recover.
func initial(s nnue.Sizes, seed uint64) (*nnue.FloatNet, error) {
	f, err := nnue.NewFloat(s)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x696e6974))
	uniform := func(lo, hi float64) float32 { return float32(lo + (hi-lo)*rng.Float64()) }
	for i := range f.FTWeights {
		f.FTWeights[i] = uniform(-0.01, 0.01)
	}
	for i := range f.FTBias {
		f.FTBias[i] = uniform(0.2, 0.6)
	}
	// dense draws a layer's weights and centres its biases on the inputs
	// x: b = 0.5 - w.x, or -w.x for the output (centre 0).
	dense := func(w, b []float32, x []float32, centre float32) {
		a := 1 / math.Sqrt(float64(len(x)))
		for o := range b {
			row := w[o*len(x) : (o+1)*len(x)]
			var sum float32
			for i := range row {
				row[i] = uniform(-a, a)
				sum += row[i] * x[i]
			}
			b[o] = centre - sum
		}
	}
	x := make([]float32, 2*s.L1)
	copy(x, f.FTBias)
	copy(x[s.L1:], f.FTBias)
	dense(f.W1, f.B1, x, 0.5)
	h := make([]float32, max(s.L2, s.L3))
	for i := range h {
		h[i] = 0.5
	}
	dense(f.W2, f.B2, h[:s.L2], 0.5)
	var b3 [1]float32
	dense(f.W3, b3[:], h[:s.L3], 0)
	f.B3 = b3[0]
	return f, nil
}

// newTrainer returns a trainer of checked cfg with the weights p.
func newTrainer(cfg Config, p params) *Trainer {
	t := &Trainer{cfg: cfg, p: p, orderEpoch: -1,
		loss: lossFn{scale: nnue.OutputScale / cfg.K}}
	t.g = make([]float32, p.n)
	t.m = make([]float32, p.n)
	t.v = make([]float32, p.n)
	s := cfg.Sizes
	if p.factor {
		t.eff = make([]float32, nnue.NumFeatures*s.L1)
		t.effStale = true
	} else {
		t.eff = p.FT(p.w)
	}
	t.dv = denseViews{w1: p.W1(p.w), b1: p.B1(p.w), w2: p.W2(p.w), b2: p.B2(p.w), w3: p.W3(p.w), b3: &p.w[p.b3]}
	if cfg.QuantAware {
		c := func(x []float32) []float32 { return slices.Clone(x) }
		b3 := p.w[p.b3]
		t.dv = denseViews{w1: c(p.W1(p.w)), b1: c(p.B1(p.w)), w2: c(p.W2(p.w)), b2: c(p.B2(p.w)), w3: c(p.W3(p.w)), b3: &b3}
		t.effStale = true
	}
	nparts := (cfg.Batch + partSamples - 1) / partSamples
	t.parts = make([]part, nparts)
	for i := range t.parts {
		t.parts[i] = newPart(&t.p)
	}
	// The optimizer's chunks, tensor by tensor.
	for _, r := range [][2]int{{p.ft, p.ftb}, {p.ftb, p.w1}, {p.w1, p.b1}, {p.b1, p.w2}, {p.w2, p.b2}, {p.b2, p.w3}, {p.w3, p.b3},
		{p.b3, p.b3 + 1}, {p.vps, p.vp}, {p.vp, p.n}} {
		for lo := r[0]; lo < r[1]; lo += adamChunk {
			t.chunks = append(t.chunks, chunk{lo: lo, hi: min(lo+adamChunk, r[1]), clip: p.clipOf(lo)})
		}
	}
	t.feats = make([]uint16, cfg.Batch*featStride)
	t.nfeat = make([]uint8, cfg.Batch*2)
	t.acc = make([]float32, cfg.Batch*2*s.L1)
	t.sampleF, t.ftF, t.adamF, t.validF, t.effF, t.virtF = t.samplePart, t.ftPart, t.adamPart, t.validPart, t.effPart, t.virtPart
	t.pool = newPool(cfg.Threads)
	return t
}

func newPart(p *params) part {
	s := p.Sizes
	pt := part{grad: make([]float32, p.denseEnd()-p.dense())}
	d := p.dense()
	view := func(lo, hi int) []float32 { return pt.grad[lo-d : hi-d] }
	pt.gv = gradViews{ftb: view(p.ftb, p.w1), w1: view(p.w1, p.b1), b1: view(p.b1, p.w2),
		w2: view(p.w2, p.b2), b2: view(p.b2, p.w3), w3: view(p.w3, p.b3), b3: &pt.grad[p.b3-d]}
	f := func(n int) []float32 { return make([]float32, n) }
	pt.sc = scratch{acc: f(2 * s.L1), x: f(2 * s.L1), dx: f(2 * s.L1),
		s1: f(s.L2), h1: f(s.L2), dh1: f(s.L2), s2: f(s.L3), h2: f(s.L3), dh2: f(s.L3)}
	pt.qs = newIntScratch(s)
	return pt
}

// Close ends the trainer's goroutines.
func (t *Trainer) Close() {
	if t.pool != nil {
		t.pool.close()
		t.pool = nil
	}
}

// Config returns the trainer's configuration.
func (t *Trainer) Config() Config { return t.cfg }

// Epoch returns the epoch in progress (0-based: the epochs finished) and
// the steps done in it.
func (t *Trainer) Epoch() (epoch, step int) { return t.epoch, t.step }

// Float returns a copy of the weights as a network.
func (t *Trainer) Float() *nnue.FloatNet { return t.p.float() }

// Quantized returns the quantised network of the weights.
func (t *Trainer) Quantized() (*nnue.Net, error) {
	n, err := nnue.Quantize(t.p.float())
	if err != nil {
		return nil, fmt.Errorf("nnuetrain: %w", err)
	}
	return n, nil
}

// LR returns the learning rate of the epoch in progress.
func (t *Trainer) LR() float64 { return t.cfg.LR * math.Pow(t.cfg.LRDecay, float64(t.epoch)) }

// Steps returns the steps of an epoch over n samples.
func (t *Trainer) Steps(n int) int { return (n + t.cfg.Batch - 1) / t.cfg.Batch }

// makeOrder draws the epoch's order of n samples: a shuffle of the
// identity seeded by the run's seed and the epoch alone, so a resumed
// run draws the same one.
func (t *Trainer) makeOrder(n int) {
	if cap(t.order) < n {
		t.order = make([]uint32, n)
	}
	t.order = t.order[:n]
	for i := range t.order {
		t.order[i] = uint32(i)
	}
	rng := rand.New(rand.NewPCG(t.cfg.Seed, 0x65706f6368^uint64(t.epoch)))
	rng.Shuffle(n, func(i, j int) { t.order[i], t.order[j] = t.order[j], t.order[i] })
	t.orderEpoch = t.epoch
}

// MaxSamples bounds the training samples: their indices are uint32 (and
// an int holds the count on 32-bit machines).
const MaxSamples = int(min(math.MaxUint32, uint64(math.MaxInt)))

// TrainEpoch trains on the rest of the epoch in progress: the batches of
// train in the epoch's order from the step the trainer stands at. after,
// when not nil, is called after every step with the samples done and the
// epoch's total; an error from it, or ctx ending, stops the epoch between
// steps (the trainer then stands at the next step: Save keeps it). At
// the epoch's end it returns the mean training loss of the epoch's
// steps, and the trainer stands at the next epoch.
func (t *Trainer) TrainEpoch(ctx context.Context, train []Sample, after func(done, total int) error) (float64, error) {
	if len(train) == 0 {
		return 0, errors.New("nnuetrain: no training samples")
	}
	if len(train) > MaxSamples {
		return 0, fmt.Errorf("nnuetrain: %d training samples; at most %d", len(train), MaxSamples)
	}
	if t.orderEpoch != t.epoch || len(t.order) != len(train) {
		t.makeOrder(len(train))
	}
	steps := t.Steps(len(train))
	if t.step > steps {
		return 0, fmt.Errorf("nnuetrain: the trainer stands at step %d of an epoch of %d", t.step, steps)
	}
	for t.step < steps {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		lo := t.step * t.cfg.Batch
		hi := min(lo+t.cfg.Batch, len(train))
		t.trainStep(train, t.order[lo:hi])
		t.step++
		if after != nil {
			if err := after(hi, len(train)); err != nil {
				return 0, err
			}
		}
	}
	loss := t.epochLoss / float64(max(t.epochSamples, 1))
	t.epoch++
	t.step, t.epochLoss, t.epochSamples = 0, 0, 0
	return loss, nil
}

// trainStep runs one step on the samples idx of train.
func (t *Trainer) trainStep(train []Sample, idx []uint32) {
	t.gradient(train, idx)
	t.adamT++
	lr := t.LR() * math.Sqrt(1-math.Pow(beta2, float64(t.adamT))) / (1 - math.Pow(beta1, float64(t.adamT)))
	t.lrT = float32(lr)
	t.pool.run(len(t.chunks), t.adamF)
	t.effStale = t.p.factor || t.cfg.QuantAware
}

// refresh brings t.eff and t.dv up to date with the weights.
func (t *Trainer) refresh() {
	if !t.effStale {
		return
	}
	if t.p.factor {
		t.pool.run((nnue.NumFeatures+effRows-1)/effRows, t.effF)
	}
	if t.cfg.QuantAware {
		p := &t.p
		round := func(dst, src []float32, scale float64) {
			for i, x := range src {
				dst[i] = float32(math.Round(float64(x)*scale) / scale)
			}
		}
		round(t.dv.w1, p.W1(p.w), nnue.HiddenWeightScale)
		round(t.dv.w2, p.W2(p.w), nnue.HiddenWeightScale)
		round(t.dv.w3, p.W3(p.w), nnue.OutputScale*nnue.OutputDiv/nnue.FTScale)
		round(t.dv.b1, p.B1(p.w), nnue.FTScale*nnue.HiddenWeightScale)
		round(t.dv.b2, p.B2(p.w), nnue.FTScale*nnue.HiddenWeightScale)
		*t.dv.b3 = p.w[p.b3]
	}
	t.effStale = false
}

// effPart coalesces rows [k*effRows, (k+1)*effRows).
func (t *Trainer) effPart(k int) {
	t.p.coalesce(t.eff, k*effRows, min((k+1)*effRows, nnue.NumFeatures))
}

// virtPart sums the gradient of piece k's rows into its virtual rows:
// each of its squares' piece-square row gets its rows of every bucket,
// its piece row every one of them.
func (t *Trainer) virtPart(k int) {
	l1 := t.p.L1
	ft, vps, vp := t.p.FT(t.g), t.p.VPS(t.g), t.p.VP(t.g)
	pc := vp[k*l1 : k*l1+l1]
	clear(pc)
	for ps := k * 90; ps < (k+1)*90; ps++ {
		row := vps[ps*l1 : ps*l1+l1]
		clear(row)
		for f := ps; f < nnue.NumFeatures; f += NumPieceSquares {
			add(row, ft[f*l1:f*l1+l1])
		}
		add(pc, row)
	}
}

// gradient sets t.g to the gradient of the mean loss over the samples
// idx of train (t.g's first layer must be zero: the optimizer leaves it
// so), and adds their losses to the epoch's sums.
func (t *Trainer) gradient(train []Sample, idx []uint32) {
	t.refresh()
	t.train, t.idx, t.n = train, idx, len(idx)
	t.scale = 1 / float32(t.n)
	parts := (t.n + partSamples - 1) / partSamples
	t.pool.run(parts, t.sampleF)
	// The parts' dense gradients and losses, summed in part order.
	dg := t.g[t.p.dense():t.p.denseEnd()]
	copy(dg, t.parts[0].grad)
	t.epochLoss += t.parts[0].loss
	for k := 1; k < parts; k++ {
		add(dg, t.parts[k].grad)
		t.epochLoss += t.parts[k].loss
	}
	t.epochSamples += int64(t.n)
	t.pool.run(t.p.L1/ftBlock, t.ftF)
	if t.p.factor {
		t.pool.run(nnue.NumPieces, t.virtF)
	}
	t.train, t.idx = nil, nil
}

// samplePart is the forward and backward pass of one part's positions:
// their accumulators' gradients into t.acc, the dense layers' into the
// part's buffer.
func (t *Trainer) samplePart(k int) {
	pt := &t.parts[k]
	clear(pt.grad)
	l1 := t.p.L1
	lo, hi := k*partSamples, min((k+1)*partSamples, t.n)
	var loss float64
	for b := lo; b < hi; b++ {
		s := &t.train[t.idx[b]]
		fs := t.feats[b*featStride : (b+1)*featStride]
		us, _ := features(fs[:0], s, game.Color(s.Side))
		them, _ := features(fs[len(us):len(us)], s, game.Color(s.Side^1))
		t.nfeat[2*b], t.nfeat[2*b+1] = uint8(len(us)), uint8(len(them))
		acc := t.acc[b*2*l1 : (b+1)*2*l1]
		y := t.forward(acc, us, them, &pt.sc)
		l, dy := t.loss.eval(y, target(s, t.cfg.Lambda, t.cfg.K))
		loss += l
		t.backward(float32(dy)*t.scale, acc, &pt.sc, &pt.gv)
	}
	pt.loss = loss
}

// forward sets acc to the two accumulators (side to move first) and
// returns the output y; sc keeps the activations for backward. It is
// FloatNet.Forward's arithmetic.
func (t *Trainer) forward(acc []float32, us, them []uint16, sc *scratch) float32 {
	p := &t.p
	l1 := p.L1
	ft := t.eff
	for h, feats := range [2][]uint16{us, them} {
		a := acc[h*l1 : h*l1+l1]
		copy(a, p.FTB(p.w))
		for _, f := range feats {
			add(a, ft[int(f)*l1:int(f)*l1+l1])
		}
	}
	x := sc.x[:len(acc)]
	for i, v := range acc {
		x[i] = min(max(v, 0), 1)
	}
	w1, b1 := t.dv.w1, t.dv.b1
	for o := range sc.s1 {
		s := b1[o] + dot(w1[o*2*l1:(o+1)*2*l1], x)
		sc.s1[o] = s
		sc.h1[o] = min(max(s, 0), 1)
	}
	w2, b2 := t.dv.w2, t.dv.b2
	l2 := p.L2
	for j := range sc.s2 {
		s := b2[j] + dotSmall(w2[j*l2:(j+1)*l2], sc.h1)
		sc.s2[j] = s
		sc.h2[j] = min(max(s, 0), 1)
	}
	return *t.dv.b3 + dotSmall(t.dv.w3, sc.h2)
}

// backward adds the gradients of the position forward saw, whose loss
// has derivative dy by y, into gv, and overwrites acc with the
// accumulators' gradients.
func (t *Trainer) backward(dy float32, acc []float32, sc *scratch, gv *gradViews) {
	p := &t.p
	l1, l2 := p.L1, p.L2
	*gv.b3 += dy
	w3 := t.dv.w3
	for j, h := range sc.h2 {
		gv.w3[j] += dy * h
		d := float32(0)
		if s := sc.s2[j]; s > 0 && s < 1 {
			d = dy * w3[j]
		}
		sc.dh2[j] = d
	}
	w2 := t.dv.w2
	clear(sc.dh1)
	for j, d := range sc.dh2 {
		if d == 0 {
			continue
		}
		gv.b2[j] += d
		axpySmall(d, sc.h1, gv.w2[j*l2:(j+1)*l2])
		axpySmall(d, w2[j*l2:(j+1)*l2], sc.dh1)
	}
	w1 := t.dv.w1
	dx := sc.dx[:len(acc)]
	clear(dx)
	for o, d := range sc.dh1 {
		if s := sc.s1[o]; d == 0 || s <= 0 || s >= 1 {
			continue
		}
		gv.b1[o] += d
		axpy(d, sc.x[:len(acc)], gv.w1[o*2*l1:(o+1)*2*l1])
		axpy(d, w1[o*2*l1:(o+1)*2*l1], dx)
	}
	for i, a := range acc {
		if a <= 0 || a >= 1 {
			dx[i] = 0
		}
	}
	copy(acc, dx)
	ftb := gv.ftb[:l1]
	add(ftb, dx[:l1])
	add(ftb, dx[l1:])
}

// axpySmall is axpy in order, for the small layers.
func axpySmall(a float32, x, dst []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] += float32(a * x[i])
	}
}

// ftPart adds block k of the first layer's columns of every position's
// accumulator gradients into the rows of its active features, position
// by position in batch order.
func (t *Trainer) ftPart(k int) {
	l1 := t.p.L1
	c0 := k * ftBlock
	g := t.p.FT(t.g)
	for b := range t.n {
		fs := t.feats[b*featStride : (b+1)*featStride]
		nu, nt := int(t.nfeat[2*b]), int(t.nfeat[2*b+1])
		acc := t.acc[b*2*l1 : (b+1)*2*l1]
		du, dt := acc[c0:c0+ftBlock], acc[l1+c0:l1+c0+ftBlock]
		for _, f := range fs[:nu] {
			o := int(f)*l1 + c0
			add(g[o:o+ftBlock], du)
		}
		for _, f := range fs[nu : nu+nt] {
			o := int(f)*l1 + c0
			add(g[o:o+ftBlock], dt)
		}
	}
}

// adamPart is Adam's update of chunk k, each value then clipped to its
// tensor's bound; it leaves the chunk's gradient zero for the next step.
func (t *Trainer) adamPart(k int) {
	c := t.chunks[k]
	clip := c.clip
	if clip == 0 {
		clip = float32(math.Inf(1))
	}
	adam(t.p.w[c.lo:c.hi], t.g[c.lo:c.hi], t.m[c.lo:c.hi], t.v[c.lo:c.hi], t.lrT, clip)
}

// Validate returns the mean loss of the float network over samples (0
// for none).
func (t *Trainer) Validate(samples []Sample) float64 {
	loss, _ := t.validate(samples, nil)
	return loss
}

// ValidateQuantized returns the mean loss over samples of n, a quantised
// network of the trainer's sizes, evaluated in integers as nnue plays it,
// and the mean absolute difference of its evaluations from the float
// network's, in centi-units.
func (t *Trainer) ValidateQuantized(n *nnue.Net, samples []Sample) (loss, evalDiff float64, err error) {
	if n.Sizes() != t.cfg.Sizes {
		return 0, 0, fmt.Errorf("nnuetrain: a network of %s, the trainer's is %s", n.Sizes(), t.cfg.Sizes)
	}
	loss, evalDiff = t.validate(samples, intNetOf(n))
	return loss, evalDiff, nil
}

func (t *Trainer) validate(samples []Sample, q *intNet) (loss, evalDiff float64) {
	if len(samples) == 0 {
		return 0, 0
	}
	t.refresh()
	t.valid, t.qnet = samples, q
	t.pool.run(len(t.parts), t.validF)
	for k := range t.parts {
		loss += t.parts[k].loss
		evalDiff += t.parts[k].diff
	}
	t.valid, t.qnet = nil, nil
	return loss / float64(len(samples)), evalDiff / float64(len(samples))
}

// validPart sums the losses of the validation chunks k, k+P, k+2P, ...
// (P parts).
func (t *Trainer) validPart(k int) {
	pt := &t.parts[k]
	var loss, diff float64
	var feats [featStride]uint16
	for lo := k * partSamples; lo < len(t.valid); lo += len(t.parts) * partSamples {
		for b := lo; b < min(lo+partSamples, len(t.valid)); b++ {
			s := &t.valid[b]
			us, _ := features(feats[:0], s, game.Color(s.Side))
			them, _ := features(feats[len(us):len(us)], s, game.Color(s.Side^1))
			y := t.forward(pt.sc.acc, us, them, &pt.sc)
			if t.qnet != nil {
				e := t.qnet.eval(us, them, &pt.qs)
				diff += math.Abs(float64(e) - float64(y)*nnue.OutputScale)
				y = float32(e) / nnue.OutputScale
			}
			l, _ := t.loss.eval(y, target(s, t.cfg.Lambda, t.cfg.K))
			loss += l
		}
	}
	pt.loss, pt.diff = loss, diff
}
