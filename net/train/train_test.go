package train

import (
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/gemm"
	"github.com/tabula-zero/tabula/net/train/ops"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// randomBatch returns n samples with random planes, random target
// distributions (softmax of scaled normals) and values in [-0.9, 0.9]
// (and random win/draw/loss distributions with the WDL head).
func randomBatch(rng *rand.Rand, spec net.Spec, n int) Batch {
	b := Batch{N: n, Planes: randomPlanes(rng, spec, n), Policy: make([]float32, n*spec.Actions), Value: make([]float32, n)}
	for i := 0; i < n; i++ {
		randomDistribution(rng, b.Policy[i*spec.Actions:(i+1)*spec.Actions])
		b.Value[i] = float32(1.8*rng.Float64() - 0.9)
	}
	if spec.WDLHead() {
		b.WDL = make([]float32, 3*n)
		for i := 0; i < n; i++ {
			randomDistribution(rng, b.WDL[3*i:3*i+3])
		}
	}
	return b
}

// maskBatch gives b a random legal mask of k actions a row (1 <= k <=
// actions) and moves its policy targets onto them (renormalised).
func maskBatch(rng *rand.Rand, spec net.Spec, b *Batch, k int) {
	a := spec.Actions
	b.Legal = make([]bool, b.N*a)
	for i := 0; i < b.N; i++ {
		legal, pol := b.Legal[i*a:(i+1)*a], b.Policy[i*a:(i+1)*a]
		for _, j := range rng.Perm(a)[:k] {
			legal[j] = true
		}
		var sum float32
		for j := range legal {
			if !legal[j] {
				pol[j] = 0
			}
			sum += pol[j]
		}
		for j := range pol {
			pol[j] /= sum
		}
	}
}

// randomDistribution fills row with the softmax of scaled normals.
func randomDistribution(rng *rand.Rand, row []float32) {
	var sum float64
	e := make([]float64, len(row))
	for j := range e {
		e[j] = math.Exp(1.5 * rng.NormFloat64())
		sum += e[j]
	}
	for j := range row {
		row[j] = float32(e[j] / sum)
	}
}

// ---- float64 training-mode reference -------------------------------------

// ref64 evaluates the training loss in float64 with plain loops: BN with
// the batch statistics (biased variance), the same architecture as
// Params.Reference. kinks receives the sign of every ReLU input, so that a
// finite difference that crosses a kink can be recognised.
type ref64 struct {
	n, h, w int
	kinks   []bool
}

func f64s(s []float32) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// convBN applies convolution and training-mode batch norm to x
// [n][in][h][w].
func (r *ref64) convBN(x []float64, c *net.ConvBN, w []float64, gamma, beta []float64) []float64 {
	hw := r.h * r.w
	out := make([]float64, r.n*c.Out*hw)
	pad := c.K / 2
	for s := 0; s < r.n; s++ {
		for o := 0; o < c.Out; o++ {
			for y := 0; y < r.h; y++ {
				for xx := 0; xx < r.w; xx++ {
					var sum float64
					for i := 0; i < c.In; i++ {
						for ky := 0; ky < c.K; ky++ {
							for kx := 0; kx < c.K; kx++ {
								yy, xs := y+ky-pad, xx+kx-pad
								if yy < 0 || yy >= r.h || xs < 0 || xs >= r.w {
									continue
								}
								sum += w[((o*c.In+i)*c.K+ky)*c.K+kx] * x[((s*c.In+i)*r.h+yy)*r.w+xs]
							}
						}
					}
					out[((s*c.Out+o)*r.h+y)*r.w+xx] = sum
				}
			}
		}
	}
	cnt := float64(r.n * hw)
	for o := 0; o < c.Out; o++ {
		var mean, vr float64
		for s := 0; s < r.n; s++ {
			for _, v := range out[(s*c.Out+o)*hw : (s*c.Out+o+1)*hw] {
				mean += v
			}
		}
		mean /= cnt
		for s := 0; s < r.n; s++ {
			for _, v := range out[(s*c.Out+o)*hw : (s*c.Out+o+1)*hw] {
				vr += (v - mean) * (v - mean)
			}
		}
		vr /= cnt
		scale := gamma[o] / math.Sqrt(vr+net.BNEpsilon)
		for s := 0; s < r.n; s++ {
			seg := out[(s*c.Out+o)*hw : (s*c.Out+o+1)*hw]
			for j := range seg {
				seg[j] = (seg[j]-mean)*scale + beta[o]
			}
		}
	}
	return out
}

func (r *ref64) relu(x []float64) []float64 {
	for i, v := range x {
		r.kinks = append(r.kinks, v > 0)
		if v < 0 {
			x[i] = 0
		}
	}
	return x
}

// dense applies y = W x + b to every row of x [n][in].
func (r *ref64) dense(x []float64, d *net.Dense, w, b []float64) []float64 {
	out := make([]float64, r.n*d.Out)
	for s := 0; s < r.n; s++ {
		for o := 0; o < d.Out; o++ {
			sum := b[o]
			for i := 0; i < d.In; i++ {
				sum += w[o*d.In+i] * x[s*d.In+i]
			}
			out[s*d.Out+o] = sum
		}
	}
	return out
}

// fromTo applies the from-to head to features f [n][c][hw]: the logit of
// i -> j is f_i^T W f_j + b[i*hw+j].
func (r *ref64) fromTo(f []float64, c int, w, b []float64) []float64 {
	hw := r.h * r.w
	out := make([]float64, r.n*hw*hw)
	for s := 0; s < r.n; s++ {
		fs := f[s*c*hw:]
		for i := 0; i < hw; i++ {
			for j := 0; j < hw; j++ {
				sum := b[i*hw+j]
				for a := 0; a < c; a++ {
					for d := 0; d < c; d++ {
						sum += fs[a*hw+i] * w[a*c+d] * fs[d*hw+j]
					}
				}
				out[(s*hw+i)*hw+j] = sum
			}
		}
	}
	return out
}

// loss64 returns the total loss (decay c over the decayed tensors), the
// value and policy parts, and the ReLU sign pattern. ts holds the
// trainable tensors in ParamTensors order (float64), p gives the shapes.
func loss64(p *net.Params, ts [][]float64, b Batch, c float64) (total, vloss, ploss float64, kinks []bool) {
	s := p.Spec
	r := &ref64{n: b.N, h: s.Height, w: s.Width}
	k := 0
	nextConv := func(x []float64, cv *net.ConvBN) []float64 {
		y := r.convBN(x, cv, ts[k], ts[k+1], ts[k+2])
		k += 3
		return y
	}
	nextDense := func(x []float64, d *net.Dense) []float64 {
		y := r.dense(x, d, ts[k], ts[k+1])
		k += 2
		return y
	}
	h := r.relu(nextConv(f64s(b.Planes), &p.Input))
	for i := range p.Blocks {
		y := r.relu(nextConv(h, &p.Blocks[i].A))
		y = nextConv(y, &p.Blocks[i].B)
		for j := range y {
			y[j] += h[j]
		}
		h = r.relu(y)
	}
	var logits []float64
	if f := r.relu(nextConv(h, &p.PolicyConv)); s.FromToHead() {
		logits = r.fromTo(f, s.PolicyChannels, ts[k], ts[k+1])
		k += 2
	} else {
		logits = nextDense(f, &p.PolicyFC)
	}
	v := nextDense(r.relu(nextDense(r.relu(nextConv(h, &p.ValueConv)), &p.ValueFC1)), &p.ValueFC2)
	for i := 0; i < b.N; i++ {
		if s.WDLHead() {
			vloss += xent64(v[3*i:3*i+3], b.WDL[3*i:3*i+3], nil)
		} else {
			d := float64(b.Value[i]) - math.Tanh(v[i])
			vloss += d * d
		}
		var legal []bool
		if b.Legal != nil {
			legal = b.Legal[i*s.Actions : (i+1)*s.Actions]
		}
		ploss += xent64(logits[i*s.Actions:(i+1)*s.Actions], b.Policy[i*s.Actions:(i+1)*s.Actions], legal)
	}
	vloss /= float64(b.N)
	ploss /= float64(b.N)
	var l2 float64
	for i, pi := range s.ParamTensors() {
		if pi.Decay {
			for _, w := range ts[i] {
				l2 += w * w
			}
		}
	}
	return vloss + ploss + c*l2, vloss, ploss, r.kinks
}

// xent64 is -target . log_softmax(logits) in float64, the softmax over
// the legal entries only when legal is not nil.
func xent64(logits []float64, target []float32, legal []bool) float64 {
	var kept []float64
	for j, z := range logits {
		if legal == nil || legal[j] {
			kept = append(kept, z)
		}
	}
	mx := math.Inf(-1)
	for _, z := range kept {
		mx = math.Max(mx, z)
	}
	var se float64
	for _, z := range kept {
		se += math.Exp(z - mx)
	}
	lse := mx + math.Log(se)
	var x float64
	for j, z := range logits {
		if target[j] != 0 {
			x -= float64(target[j]) * (z - lse)
		}
	}
	return x
}

// ---- tests -----------------------------------------------------------------

func TestGradientFiniteDifference(t *testing.T) {
	spec := net.Spec{Game: "test", Channels: 2, Height: 3, Width: 4, Actions: 6,
		Blocks: 1, Filters: 4, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 5}
	t.Run("plain", func(t *testing.T) { testGradientFiniteDifference(t, spec, false) })
	t.Run("legal mask", func(t *testing.T) { testGradientFiniteDifference(t, spec, true) })
	fromTo := spec
	fromTo.Actions, fromTo.PolicyHead = 144, net.PolicyFromTo
	t.Run("from-to head", func(t *testing.T) { testGradientFiniteDifference(t, fromTo, false) })
	t.Run("from-to head, legal mask", func(t *testing.T) { testGradientFiniteDifference(t, fromTo, true) })
	wdl := spec
	wdl.ValueHead = net.ValueWDL
	t.Run("WDL head", func(t *testing.T) { testGradientFiniteDifference(t, wdl, false) })
}

// testGradientFiniteDifference checks a training step's losses against
// the float64 reference and its gradient against central differences of
// the reference's loss, with a random legal mask if masked.
func testGradientFiniteDifference(t *testing.T, spec net.Spec, masked bool) {
	p := randomParams(t, spec, 11)
	const n, decay = 5, 1e-3
	m, err := NewModel(p, n)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := m.NewTrainer(Config{Schedule: net.Schedule{LR: 0.1}, WeightDecay: decay})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(12, 13))
	b := randomBatch(rng, spec, n)
	if masked {
		maskBatch(rng, spec, &b, 1+rng.IntN(spec.Actions))
	}
	m.trainMu.Lock()
	st, err := tr.gradients(b)
	m.trainMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}

	var ts [][]float64
	for _, s := range paramSlices(p) {
		ts = append(ts, f64s(s))
	}
	total, vloss, ploss, kinks := loss64(p, ts, b, decay)
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"loss", st.Loss, total}, {"value loss", st.ValueLoss, vloss}, {"policy loss", st.PolicyLoss, ploss}, {"l2", st.L2, total - vloss - ploss}} {
		if math.Abs(c.got-c.want) > 1e-5*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s: gorgonia %v, float64 reference %v", c.name, c.got, c.want)
		}
	}

	const h = 1e-4
	checked, skipped, worst := 0, 0, 0.0
	for i, pi := range spec.ParamTensors() {
		// A sample of every tensor: up to 6 random elements.
		idx := rng.Perm(pi.Size())
		if len(idx) > 6 {
			idx = idx[:6]
		}
		for _, j := range idx {
			w := ts[i][j]
			ts[i][j] = w + h
			lp, _, _, kp := loss64(p, ts, b, decay)
			ts[i][j] = w - h
			lm, _, _, km := loss64(p, ts, b, decay)
			ts[i][j] = w
			if !slices.Equal(kp, kinks) || !slices.Equal(km, kinks) {
				skipped++ // the step crosses a ReLU kink
				continue
			}
			num := (lp - lm) / (2 * h)
			ana := float64(tr.grad[i][j])
			if d := math.Abs(ana-num) / math.Max(math.Max(math.Abs(ana), math.Abs(num)), 1e-3); d > worst {
				worst = d
			}
			if math.Abs(ana-num) > 1e-2*math.Max(math.Abs(ana), math.Abs(num))+1e-5 {
				t.Errorf("%s[%d]: analytic %.7g, numeric %.7g", pi.Name, j, ana, num)
			}
			checked++
		}
	}
	t.Logf("checked %d elements, skipped %d at ReLU kinks; worst relative error %.2g", checked, skipped, worst)
	if checked < 5*skipped || checked < 50 {
		t.Errorf("only %d elements checked (%d skipped)", checked, skipped)
	}
}

func entropy(b Batch, actions int) float64 {
	var h float64
	for _, p := range b.Policy {
		if p > 0 {
			h -= float64(p) * math.Log(float64(p))
		}
	}
	return h / float64(b.N)
}

func TestOverfit(t *testing.T) {
	spec := net.Spec{Game: "test", Channels: 3, Height: 4, Width: 4, Actions: 8,
		Blocks: 1, Filters: 16, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 32}
	p, err := net.NewParams(spec, 21)
	if err != nil {
		t.Fatal(err)
	}
	const n = 64
	m, err := NewModel(p, n)
	if err != nil {
		t.Fatal(err)
	}
	const steps = 200
	tr, err := m.NewTrainer(Config{
		Schedule: net.Schedule{Kind: net.ScheduleCosine, LR: 0.1, Warmup: 20, Total: steps, MinLR: 0.005},
		Momentum: 0.9,
	})
	if err != nil {
		t.Fatal(err)
	}
	b := randomBatch(rand.New(rand.NewPCG(22, 23)), spec, n)
	h := entropy(b, spec.Actions)
	var st Stats
	for i := 0; i < steps; i++ {
		if st, err = tr.Step(b); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			t.Logf("step %d: loss %.4f value %.4f policy-entropy %.4f grad %.3f lr %.4f", st.Step, st.Loss, st.ValueLoss, st.PolicyLoss-h, st.GradNorm, st.LR)
		}
	}
	t.Logf("final: value MSE %.5f, policy CE %.4f (target entropy %.4f)", st.ValueLoss, st.PolicyLoss, h)
	if st.ValueLoss > 0.01 {
		t.Errorf("value MSE %v after %d steps", st.ValueLoss, steps)
	}
	if st.PolicyLoss-h > 0.05 {
		t.Errorf("policy cross-entropy %v, target entropy %v", st.PolicyLoss, h)
	}

	// Eval mode with the running statistics fits the same data too.
	pol, val, err := m.Forward(b.Planes, n)
	if err != nil {
		t.Fatal(err)
	}
	var mse, ce float64
	for i := 0; i < n; i++ {
		d := float64(val[i] - b.Value[i])
		mse += d * d
		row := pol[i*spec.Actions : (i+1)*spec.Actions]
		lse := logSumExp(row, nil)
		for j, z := range row {
			ce -= float64(b.Policy[i*spec.Actions+j]) * (float64(z) - lse)
		}
	}
	mse, ce = mse/n, ce/n
	t.Logf("eval mode: value MSE %.5f, policy CE %.4f", mse, ce)
	if mse > 0.02 || ce-h > 0.1 {
		t.Errorf("eval mode: value MSE %v, policy CE %v (entropy %v)", mse, ce, h)
	}
}

func TestBNStatisticsTrainAndEval(t *testing.T) {
	spec := tinySpec()
	p, err := net.NewParams(spec, 31)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(p, 8)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := m.NewTrainer(Config{Schedule: net.Schedule{LR: 0.01}, Momentum: 0.9, WeightDecay: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(32, 33))
	for i := 0; i < 5; i++ {
		if _, err := tr.Step(randomBatch(rng, spec, 8)); err != nil {
			t.Fatal(err)
		}
	}
	q := m.Params()
	for i, c := range q.Layers() {
		moved := false
		for j := range c.Mean {
			// Fresh statistics are mean 0, variance 1.
			if c.Mean[j] != 0 && c.Var[j] != 1 {
				moved = true
			}
		}
		if !moved {
			t.Errorf("layer %d: running statistics did not move: mean %v var %v", i, c.Mean, c.Var)
		}
	}
	// The weights moved too, and eval-mode Forward uses the trained
	// weights and the running statistics.
	if err := sameBits(p, q); err == nil {
		t.Fatal("training changed nothing")
	}
	x := randomPlanes(rng, spec, 6)
	checkAgainstReference(t, m, q, x, 6)

	// With the statistics reset the reference differs clearly: eval mode
	// really depends on them.
	fresh := m.Params()
	for _, c := range fresh.Layers() {
		for j := range c.Mean {
			c.Mean[j], c.Var[j] = 0, 1
		}
	}
	pol, _, _ := m.Forward(x, 6)
	rp, _ := fresh.Reference(x, 6)
	if d := maxDiff(pol, rp); d < 1e-3 {
		t.Errorf("Forward ignores the running statistics (differs from fresh-statistics reference by %g)", d)
	}

	// Round trip of the trained model, and its outputs, bit for bit.
	m2, err := NewModel(q, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameBits(m2.Params(), q); err != nil {
		t.Fatal(err)
	}
	p1, v1, _ := m.Forward(x, 6)
	p2, v2, _ := m2.Forward(x, 6)
	if maxDiff(p1, p2) != 0 || maxDiff(v1, v2) != 0 {
		t.Error("rebuilt model gives different outputs")
	}
}

func TestBNRunningStatisticsUpdate(t *testing.T) {
	// One step from mean 0, variance 1: the input layer's running
	// statistics are exactly 0.1*batch + 0.9*old (unbiased variance).
	spec := tinySpec()
	p := randomParams(t, spec, 41)
	const n = 4
	m, err := NewModel(p, n)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := m.NewTrainer(Config{Schedule: net.Schedule{LR: 0}})
	if err != nil {
		t.Fatal(err)
	}
	b := randomBatch(rand.New(rand.NewPCG(42, 43)), spec, n)
	if _, err := tr.Step(b); err != nil {
		t.Fatal(err)
	}
	q := m.Params()
	hw := spec.Height * spec.Width
	c := p.Input
	for o := 0; o < c.Out; o++ {
		// The input convolution's outputs of channel o over the batch.
		var vals []float64
		for s := 0; s < n; s++ {
			for pix := 0; pix < hw; pix++ {
				y, x := pix/spec.Width, pix%spec.Width
				var sum float64
				for i := 0; i < c.In; i++ {
					for ky := 0; ky < 3; ky++ {
						for kx := 0; kx < 3; kx++ {
							yy, xs := y+ky-1, x+kx-1
							if yy < 0 || yy >= spec.Height || xs < 0 || xs >= spec.Width {
								continue
							}
							sum += float64(c.W[((o*c.In+i)*3+ky)*3+kx]) * float64(b.Planes[((s*c.In+i)*spec.Height+yy)*spec.Width+xs])
						}
					}
				}
				vals = append(vals, sum)
			}
		}
		var mean, ss float64
		for _, v := range vals {
			mean += v
		}
		mean /= float64(len(vals))
		for _, v := range vals {
			ss += (v - mean) * (v - mean)
		}
		unbiased := ss / float64(len(vals)-1)
		wantMean := BNMomentum*mean + (1-BNMomentum)*float64(p.Input.Mean[o])
		wantVar := BNMomentum*unbiased + (1-BNMomentum)*float64(p.Input.Var[o])
		if math.Abs(float64(q.Input.Mean[o])-wantMean) > 1e-5 || math.Abs(float64(q.Input.Var[o])-wantVar) > 1e-4*wantVar {
			t.Errorf("channel %d: running mean/var %v/%v, want %v/%v", o, q.Input.Mean[o], q.Input.Var[o], wantMean, wantVar)
		}
	}
	// Learning rate 0: the weights did not move.
	for i, s := range paramSlices(q) {
		if maxDiff(s, paramSlices(p)[i]) != 0 {
			t.Errorf("tensor %d moved with learning rate 0", i)
		}
	}
}

// newTestTrainer builds a model of p with training batch n and its trainer.
func newTestTrainer(t *testing.T, p *net.Params, n int, cfg Config, opts ...net.ModelOption) *Trainer {
	t.Helper()
	m, err := NewModel(p, n, opts...)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := m.NewTrainer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestResumeBitIdentical(t *testing.T) {
	spec := tinySpec()
	p := randomParams(t, spec, 51)
	const n = 8
	cfg := Config{
		Schedule: net.Schedule{Kind: net.ScheduleCosine, LR: 0.05, Warmup: 3, Total: 12, MinLR: 0.001},
		Momentum: 0.9, WeightDecay: 1e-3,
	}
	rng := rand.New(rand.NewPCG(52, 53))
	batches := make([]Batch, 10)
	for i := range batches {
		batches[i] = randomBatch(rng, spec, n)
	}
	newTrainer := func(p *net.Params) *Trainer { return newTestTrainer(t, p, n, cfg) }

	straight := newTrainer(p)
	var want []Stats
	for _, b := range batches {
		st, err := straight.Step(b)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, st)
	}

	first := newTrainer(p)
	for _, b := range batches[:5] {
		if _, err := first.Step(b); err != nil {
			t.Fatal(err)
		}
	}
	saved, state := first.m.Params(), first.State()
	if state.Step != 5 {
		t.Fatalf("state step %d", state.Step)
	}
	first.Step(batches[5]) // must not affect the saved copies

	second := newTrainer(saved)
	if err := second.Restore(state); err != nil {
		t.Fatal(err)
	}
	for i, b := range batches[5:] {
		st, err := second.Step(b)
		if err != nil {
			t.Fatal(err)
		}
		if st != want[5+i] {
			t.Errorf("step %d: resumed %+v, straight %+v", 6+i, st, want[5+i])
		}
	}
	if err := sameBits(second.m.Params(), straight.m.Params()); err != nil {
		t.Fatal("resumed training differs: ", err)
	}
	a, b := second.State(), straight.State()
	if a.Step != b.Step {
		t.Fatalf("steps %d and %d", a.Step, b.Step)
	}
	for i := range a.Momentum {
		for j := range a.Momentum[i] {
			if math.Float32bits(a.Momentum[i][j]) != math.Float32bits(b.Momentum[i][j]) {
				t.Fatalf("momentum %d[%d] differs", i, j)
			}
		}
	}
}

func TestTrainerErrors(t *testing.T) {
	spec := tinySpec()
	p := randomParams(t, spec, 61)
	const n = 4
	m, err := NewModel(p, n)
	if err != nil {
		t.Fatal(err)
	}
	nan, inf := math.NaN(), math.Inf(1)
	for i, cfg := range []Config{
		{Schedule: net.Schedule{LR: nan}},
		{Schedule: net.Schedule{LR: inf}},
		{Schedule: net.Schedule{LR: -0.1}},
		{Schedule: net.Schedule{Kind: "step", LR: 0.1}},
		{Schedule: net.Schedule{Kind: net.SchedulePiecewise, LR: 0.1, Boundaries: []int64{10}, Values: []float64{nan}}},
		{Schedule: net.Schedule{Kind: net.SchedulePiecewise, LR: 0.1, Boundaries: []int64{10, 5}, Values: []float64{0.1, 0.01}}},
		{Schedule: net.Schedule{Kind: net.SchedulePiecewise, LR: 0.1, Boundaries: []int64{10}}},
		{Schedule: net.Schedule{Kind: net.SchedulePiecewise, LR: 0.1, Boundaries: []int64{0}, Values: []float64{0.1}}},
		{Schedule: net.Schedule{Kind: net.ScheduleCosine, LR: 0.1, Warmup: 10, Total: 10}},
		{Schedule: net.Schedule{Kind: net.ScheduleCosine, LR: 0.1, Warmup: -1, Total: 10}},
		{Schedule: net.Schedule{Kind: net.ScheduleCosine, LR: 0.1, Total: 10, MinLR: nan}},
		{Schedule: net.Schedule{LR: 0.1}, Momentum: 1},
		{Schedule: net.Schedule{LR: 0.1}, Momentum: -0.5},
		{Schedule: net.Schedule{LR: 0.1}, Momentum: nan},
		{Schedule: net.Schedule{LR: 0.1}, WeightDecay: nan},
		{Schedule: net.Schedule{LR: 0.1}, WeightDecay: -1},
		{Schedule: net.Schedule{LR: 0.1}, WeightDecay: inf},
	} {
		if _, err := m.NewTrainer(cfg); err == nil {
			t.Errorf("config %d accepted: %+v", i, cfg)
		} else if !strings.HasPrefix(err.Error(), "train: ") {
			t.Errorf("error %q does not start with \"train: \"", err)
		}
	}

	tr, err := m.NewTrainer(Config{Schedule: net.Schedule{LR: 0.1}, Momentum: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(62, 63))
	good := func() Batch { return randomBatch(rng, spec, n) }
	bad := map[string]func(b *Batch){
		"small batch":                        func(b *Batch) { *b = randomBatch(rng, spec, n-1) },
		"large batch":                        func(b *Batch) { *b = randomBatch(rng, spec, n+1) },
		"N mismatch":                         func(b *Batch) { b.N = n - 1 },
		"short planes":                       func(b *Batch) { b.Planes = b.Planes[1:] },
		"long policy":                        func(b *Batch) { b.Policy = append(b.Policy, 0) },
		"short value":                        func(b *Batch) { b.Value = b.Value[:n-1] },
		"nil":                                func(b *Batch) { *b = Batch{N: n} },
		"NaN plane":                          func(b *Batch) { b.Planes[3] = float32(math.NaN()) },
		"Inf plane":                          func(b *Batch) { b.Planes[3] = float32(math.Inf(-1)) },
		"NaN policy":                         func(b *Batch) { b.Policy[2] = float32(math.NaN()) },
		"Inf policy":                         func(b *Batch) { b.Policy[2] = float32(math.Inf(1)) },
		"negative policy":                    func(b *Batch) { b.Policy[0], b.Policy[1] = -0.5, b.Policy[1]+b.Policy[0]+0.5 },
		"policy sum":                         func(b *Batch) { b.Policy[0] += 0.1 },
		"value too large":                    func(b *Batch) { b.Value[1] = 1.5 },
		"NaN value":                          func(b *Batch) { b.Value[1] = float32(math.NaN()) },
		"zero policy rows":                   func(b *Batch) { clear(b.Policy) },
		"short legal mask":                   func(b *Batch) { b.Legal = make([]bool, n*spec.Actions-1) },
		"policy target on an illegal action": func(b *Batch) { b.Legal = make([]bool, n*spec.Actions) },
	}
	before := m.Params()
	stepFails := func(tr *Trainer, good func() Batch, bad map[string]func(b *Batch)) {
		for name, f := range bad {
			b := good()
			f(&b)
			if _, err := tr.Step(b); err == nil {
				t.Errorf("%s accepted", name)
			} else if !strings.HasPrefix(err.Error(), "train: ") {
				t.Errorf("%s: error %q does not start with \"train: \"", name, err)
			}
		}
	}
	stepFails(tr, good, bad)
	if err := sameBits(m.Params(), before); err != nil {
		t.Error("failed steps changed the model: ", err)
	}
	if st := tr.State(); st.Step != 0 {
		t.Errorf("failed steps counted: step %d", st.Step)
	}

	// The trainer keeps its own copy of the schedule: changing the
	// caller's slices afterwards has no effect.
	cfg := Config{Schedule: net.Schedule{Kind: net.SchedulePiecewise, LR: 0.1, Boundaries: []int64{1}, Values: []float64{0.01}}}
	tr2, err := m.NewTrainer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Schedule.Values[0] = math.NaN()
	for i := 0; i < 2; i++ {
		if _, err := tr2.Step(good()); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}

	// Restore errors.
	st := tr.State()
	for name, f := range map[string]func(s *State){
		"negative step":  func(s *State) { s.Step = -1 },
		"missing buffer": func(s *State) { s.Momentum = s.Momentum[1:] },
		"short buffer":   func(s *State) { s.Momentum[2] = s.Momentum[2][1:] },
		"NaN momentum":   func(s *State) { s.Momentum[0][0] = float32(math.NaN()) },
	} {
		s := tr.State()
		f(&s)
		if err := tr.Restore(s); err == nil {
			t.Errorf("Restore with %s accepted", name)
		}
	}
	if err := tr.Restore(st); err != nil {
		t.Fatal(err)
	}
}

func TestStepConcurrentWithForward(t *testing.T) {
	// Forward from several goroutines while training: no errors, and (under
	// -race) no data races. Afterwards Forward equals the reference of the
	// final parameters.
	spec := tinySpec()
	m, err := NewModel(randomParams(t, spec, 71), 4)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := m.NewTrainer(Config{Schedule: net.Schedule{LR: 0.01}, Momentum: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 2))
			for {
				select {
				case <-stop:
					return
				default:
				}
				n := 1 + rng.IntN(4)
				if _, _, err := m.Forward(randomPlanes(rng, spec, n), n); err != nil {
					errs <- err
					return
				}
				_ = m.Params()
			}
		}(w)
	}
	rng := rand.New(rand.NewPCG(72, 73))
	for i := 0; i < 10; i++ {
		if _, err := tr.Step(randomBatch(rng, spec, 4)); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkAgainstReference(t, m, m.Params(), randomPlanes(rng, spec, 3), 3)
}

func TestStatsAndLearningRate(t *testing.T) {
	defer func(n int) { segmentSize = n }(segmentSize)
	segmentSize = 7 // the update's segments cut every tensor, at odd places
	spec := tinySpec()
	m, err := NewModel(randomParams(t, spec, 81), 4)
	if err != nil {
		t.Fatal(err)
	}
	sched := net.Schedule{Kind: net.SchedulePiecewise, LR: 0.05, Boundaries: []int64{2}, Values: []float64{0.01}}
	tr, err := m.NewTrainer(Config{Schedule: sched, Momentum: 0.5, WeightDecay: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(82, 83))
	wantLR := []float64{0.05, 0.05, 0.01, 0.01}
	for i, lr := range wantLR {
		before := m.Params()
		st, err := tr.Step(randomBatch(rng, spec, 4))
		if err != nil {
			t.Fatal(err)
		}
		if st.Step != int64(i+1) || st.LR != lr {
			t.Errorf("step %d: Stats.Step %d LR %v, want LR %v", i+1, st.Step, st.LR, lr)
		}
		if st.L2 <= 0 || st.GradNorm <= 0 || st.ValueLoss <= 0 || st.PolicyLoss <= 0 ||
			math.Abs(st.Loss-st.ValueLoss-st.PolicyLoss-st.L2) > 1e-12 {
			t.Errorf("step %d: stats %+v", i+1, st)
		}
		// L2 is c * the squared norm of the decayed tensors before the step.
		var sq float64
		for j, pi := range spec.ParamTensors() {
			if pi.Decay {
				for _, w := range paramSlices(before)[j] {
					sq += float64(w) * float64(w)
				}
			}
		}
		if math.Abs(st.L2-1e-3*sq) > 1e-9*sq {
			t.Errorf("step %d: L2 %v, want %v", i+1, st.L2, 1e-3*sq)
		}
		// GradNorm is the norm of the step's gradient, decay included.
		var gsq float64
		for _, g := range tr.grad {
			for _, x := range g {
				gsq += float64(x) * float64(x)
			}
		}
		if want := math.Sqrt(gsq); math.Abs(st.GradNorm-want) > 1e-9*want {
			t.Errorf("step %d: GradNorm %v, want %v", i+1, st.GradNorm, want)
		}
	}
}

// TestMomentumUpdateRule checks the update against the documented rule
// v = mu*v + g, w -= lr*v on two consecutive steps.
func TestMomentumUpdateRule(t *testing.T) {
	defer func(n int) { segmentSize = n }(segmentSize)
	segmentSize = 7 // the update's segments cut every tensor, at odd places
	spec := tinySpec()
	m, err := NewModel(randomParams(t, spec, 91), 4)
	if err != nil {
		t.Fatal(err)
	}
	const mu, lr, c = 0.9, 0.03, 1e-2
	tr, err := m.NewTrainer(Config{Schedule: net.Schedule{LR: lr}, Momentum: mu, WeightDecay: c})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(92, 93))
	var v [][]float32
	for _, pi := range spec.ParamTensors() {
		v = append(v, make([]float32, pi.Size()))
	}
	for step := 0; step < 2; step++ {
		b := randomBatch(rng, spec, 4)
		w0 := paramSlices(m.Params())
		m.trainMu.Lock()
		_, err := tr.gradients(b)
		m.trainMu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		g := make([][]float32, len(tr.grad))
		for i := range tr.grad {
			g[i] = append([]float32(nil), tr.grad[i]...)
		}
		if _, err := tr.Step(b); err != nil {
			t.Fatal(err)
		}
		w1 := paramSlices(m.Params())
		for i, pi := range spec.ParamTensors() {
			for j := range w0[i] {
				v[i][j] = mu*v[i][j] + g[i][j]
				want := w0[i][j] - lr*v[i][j]
				if w1[i][j] != want {
					t.Fatalf("step %d %s[%d]: %v, want %v", step, pi.Name, j, w1[i][j], want)
				}
			}
		}
	}
}

// TestSharedTensorsUntouched checks that running graphs leaves the shared
// weight tensors' shapes alone (gorgonia transposes and reshapes tensor
// headers in place in places) and that no weight aliases another.
func TestSharedTensorsUntouched(t *testing.T) {
	spec := tinySpec()
	m, err := NewModel(randomParams(t, spec, 101), 4)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := m.NewTrainer(Config{Schedule: net.Schedule{LR: 0.01}, Momentum: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(102, 103))
	for i := 0; i < 3; i++ {
		if _, err := tr.Step(randomBatch(rng, spec, 4)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := m.Forward(randomPlanes(rng, spec, 3), 3); err != nil {
			t.Fatal(err)
		}
	}
	for i, pi := range spec.ParamTensors() {
		d := m.tensors[i]
		got := d.Shape()
		want := pi.Shape
		if strings.HasSuffix(pi.Name, ".gamma") || strings.HasSuffix(pi.Name, ".beta") {
			want = []int{1, pi.Shape[0], 1, 1}
		}
		if len(got) != len(want) || d.IsView() || d.DataSize() != pi.Size() {
			t.Errorf("%s: shape %v (view %v), want %v", pi.Name, got, d.IsView(), want)
			continue
		}
		for j := range want {
			if got[j] != want[j] {
				t.Errorf("%s: shape %v, want %v", pi.Name, got, want)
				break
			}
		}
	}
}

// followSetup is the small network (16 filters, so the bf16 tiles take
// it) and the schedule the follow tests train for steps from seed.
func followSetup(t *testing.T, seed uint64, steps int64) (net.Spec, *net.Params, Config) {
	t.Helper()
	spec := net.Spec{Game: "test", Channels: 3, Height: 5, Width: 6, Actions: 9,
		Blocks: 2, Filters: 16, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 16}
	p, err := net.NewParams(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	return spec, p, Config{
		Schedule:    net.Schedule{Kind: net.ScheduleCosine, LR: 0.05, Warmup: 20, Total: steps, MinLR: 0.005},
		Momentum:    0.9,
		WeightDecay: 1e-4,
	}
}

// TestFastOpsFollowReference trains three models from the same parameters
// on the same batches: one on net/train/ops, one on gorgonia's own ops, and one
// on gorgonia's ops with every batch's samples in reverse order (the same
// computation, rounded elsewhere: it shows how SGD amplifies rounding).
// Along the reference run, every 10 steps a fast model built from the
// reference's weights computes the same loss and gradients within float32
// rounding; over 200 steps the loss curves stay within 0.5%.
func TestFastOpsFollowReference(t *testing.T) {
	const n, steps = 16, 200
	spec, p, cfg := followSetup(t, 31, steps)
	newTrainer := func(p *net.Params, opts ...net.ModelOption) *Trainer { return newTestTrainer(t, p, n, cfg, opts...) }
	trainers := []*Trainer{newTrainer(p), newTrainer(p, net.ReferenceOps()), newTrainer(p, net.ReferenceOps())}
	rng := rand.New(rand.NewPCG(32, 33))
	var fastGap, noiseGap float64
	for i := 0; i < steps; i++ {
		b := randomBatch(rng, spec, n)
		if i%10 == 0 {
			ref := trainers[1]
			fast := newTrainer(ref.m.Params())
			for _, tr := range []*Trainer{fast, ref} {
				tr.m.trainMu.Lock()
				_, err := tr.gradients(b)
				tr.m.trainMu.Unlock()
				if err != nil {
					t.Fatal(err)
				}
			}
			for k := range fast.grad {
				if d := maxDiff(fast.grad[k], ref.grad[k]); d > 1e-5 {
					t.Errorf("step %d: gradient of %s differs from the reference by %.3g", i, ref.m.infos[k].Name, d)
				}
			}
		}
		var loss [3]float64
		for j, tr := range trainers {
			if j == 2 {
				b = reversed(b, spec)
			}
			st, err := tr.Step(b)
			if err != nil {
				t.Fatal(err)
			}
			loss[j] = st.Loss
		}
		fastGap = max(fastGap, math.Abs(loss[0]-loss[1])/loss[1])
		noiseGap = max(noiseGap, math.Abs(loss[2]-loss[1])/loss[1])
		if fastGap > 5e-3 {
			t.Fatalf("step %d: loss %v, reference %v", i+1, loss[0], loss[1])
		}
	}
	t.Logf("largest relative loss gap in %d steps: fast ops %.3g, reversed batches %.3g", steps, fastGap, noiseGap)
}

// TestBF16FollowsFP32 trains a model with its convolutions in bf16 and
// one in float32 from the same parameters on the same batches: the
// first step's gradients agree as far as bfloat16's rounding allows, and
// the loss curves stay close over 200 steps while both fall.
func TestBF16FollowsFP32(t *testing.T) {
	if !gemm.HasBF16() {
		t.Skip("no AMX-BF16 or AVX512_BF16 here: training.precision bf16 runs float32 (its tiles' Go twin is checked in net/train/ops)")
	}
	const n, steps = 16, 200
	spec, p, cfg := followSetup(t, 41, steps)
	fp32, bf16 := newTestTrainer(t, p, n, cfg), newTestTrainer(t, p, n, cfg, net.BF16Convs())
	rng := rand.New(rand.NewPCG(42, 43))
	// A fixed set of batches, seen again and again, so that the loss falls.
	batches := make([]Batch, 4)
	for i := range batches {
		batches[i] = randomBatch(rng, spec, n)
	}
	for _, tr := range []*Trainer{fp32, bf16} {
		tr.m.trainMu.Lock()
		_, err := tr.gradients(batches[0])
		tr.m.trainMu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
	}
	for k := range fp32.grad {
		var diff, norm float64
		for i, v := range fp32.grad[k] {
			d := float64(bf16.grad[k][i] - v)
			diff, norm = diff+d*d, norm+float64(v)*float64(v)
		}
		// The untrained network's batch norms amplify bfloat16's rounding
		// (0.4%) to about 10% in the tower's gradients; the float32 kernels
		// given the same rounded operands differ from float32 as much.
		if d := math.Sqrt(diff / norm); d > 0.2 {
			t.Errorf("gradient of %s differs from float32's by %.3g of its norm", fp32.m.infos[k].Name, d)
		}
	}
	var gap, first, last [2]float64
	for i := range steps {
		var loss [2]float64
		for j, tr := range []*Trainer{fp32, bf16} {
			st, err := tr.Step(batches[i%len(batches)])
			if err != nil {
				t.Fatal(err)
			}
			loss[j] = st.Loss
		}
		if i < len(batches) {
			first[0], first[1] = first[0]+loss[0], first[1]+loss[1]
		}
		if i >= steps-len(batches) {
			last[0], last[1] = last[0]+loss[0], last[1]+loss[1]
		}
		gap[0] = max(gap[0], math.Abs(loss[1]-loss[0])/loss[0])
	}
	t.Logf("losses over the first and last %d steps: float32 %.4f -> %.4f, bf16 %.4f -> %.4f; largest relative gap %.3g",
		len(batches), first[0], last[0], first[1], last[1], gap[0])
	if gap[0] > 0.05 {
		t.Errorf("the bf16 loss strays %.3g from float32's", gap[0])
	}
	if last[1] > 0.8*first[1] || last[0] > 0.8*first[0] {
		t.Errorf("the loss did not fall: float32 %.4f -> %.4f, bf16 %.4f -> %.4f", first[0], last[0], first[1], last[1])
	}
}

// reversed returns b with its samples in reverse order.
func reversed(b Batch, spec net.Spec) Batch {
	r := Batch{N: b.N, Planes: slices.Clone(b.Planes), Policy: slices.Clone(b.Policy), Value: slices.Clone(b.Value)}
	size := spec.Channels * spec.Height * spec.Width
	for i := 0; i < b.N; i++ {
		j := b.N - 1 - i
		copy(r.Planes[i*size:(i+1)*size], b.Planes[j*size:(j+1)*size])
		copy(r.Policy[i*spec.Actions:(i+1)*spec.Actions], b.Policy[j*spec.Actions:(j+1)*spec.Actions])
		r.Value[i] = b.Value[j]
	}
	return r
}

// TestWDLLearnsDraws trains a small network with the WDL head on a toy
// game of two kinds of positions: drawn ones (every sample a draw) and
// balanced ones (won or lost at random, never drawn). Both have an
// expected score near 0, which a scalar head cannot tell apart; the WDL
// head must learn a high draw probability on the first and a low one on
// the second, from the targets alone.
func TestWDLLearnsDraws(t *testing.T) {
	spec := net.Spec{Game: "test", Channels: 3, Height: 3, Width: 3, Actions: 4,
		Blocks: 1, Filters: 8, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 16, ValueHead: net.ValueWDL}
	p, err := net.NewParams(spec, 31)
	if err != nil {
		t.Fatal(err)
	}
	const n, steps = 32, 150
	m, err := NewModel(p, n)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := m.NewTrainer(Config{Schedule: net.Schedule{LR: 0.05}, Momentum: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(32, 33))
	size := spec.Channels * spec.Height * spec.Width
	// position fills x with a position of the kind: plane 0 marks drawn
	// positions, plane 1 balanced ones, plane 2 is noise.
	position := func(x []float32, drawn bool) {
		clear(x)
		mark := 9
		if drawn {
			mark = 0
		}
		for q := range 9 {
			x[mark+q] = 1
			x[18+q] = float32(rng.NormFloat64())
		}
	}
	// meanDraw is the network's mean W, D and L over 64 fresh positions
	// of a kind.
	meanDraw := func(drawn bool) (w, d, l float64) {
		x := make([]float32, 64*size)
		for i := range 64 {
			position(x[i*size:(i+1)*size], drawn)
		}
		_, _, wdl, err := m.ForwardWDL(x, 64)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 64 {
			w += float64(wdl[3*i]) / 64
			d += float64(wdl[3*i+1]) / 64
			l += float64(wdl[3*i+2]) / 64
		}
		return w, d, l
	}
	_, drawnBefore, _ := meanDraw(true)
	_, balancedBefore, _ := meanDraw(false)
	b := Batch{N: n, Planes: make([]float32, n*size), Policy: make([]float32, n*spec.Actions), Value: make([]float32, n), WDL: make([]float32, 3*n)}
	for range steps {
		clear(b.WDL)
		for i := range n {
			drawn := rng.IntN(2) == 0
			position(b.Planes[i*size:(i+1)*size], drawn)
			clear(b.Policy[i*spec.Actions : (i+1)*spec.Actions])
			b.Policy[i*spec.Actions] = 1
			switch {
			case drawn:
				b.Value[i], b.WDL[3*i+1] = 0, 1
			case rng.IntN(2) == 0:
				b.Value[i], b.WDL[3*i] = 1, 1
			default:
				b.Value[i], b.WDL[3*i+2] = -1, 1
			}
		}
		if _, err := tr.Step(b); err != nil {
			t.Fatal(err)
		}
	}
	wd, drawn, ld := meanDraw(true)
	wb, balanced, lb := meanDraw(false)
	t.Logf("draw probability: drawn positions %.3f -> %.3f, balanced ones %.3f -> %.3f; W - L %.3f and %.3f",
		drawnBefore, drawn, balancedBefore, balanced, wd-ld, wb-lb)
	if drawn < drawnBefore+0.3 || drawn < 0.7 {
		t.Errorf("the draw probability of drawn positions went from %.3f to %.3f", drawnBefore, drawn)
	}
	if balanced > 0.2 {
		t.Errorf("the draw probability of balanced positions is %.3f after training", balanced)
	}
	if math.Abs(wd-ld) > 0.2 || math.Abs(wb-lb) > 0.3 {
		t.Errorf("expected scores %.3f (drawn) and %.3f (balanced), both near 0 in the data", wd-ld, wb-lb)
	}
	// A batch without its WDL targets, or with one that is no
	// distribution, is refused by name.
	wdl := b.WDL
	b.WDL = nil
	if _, err := tr.Step(b); err == nil || !strings.Contains(err.Error(), "needs 96 win/draw/loss targets, got 0") {
		t.Errorf("a batch without WDL targets: %v", err)
	}
	b.WDL = wdl
	b.WDL[4] = 0.5
	if _, err := tr.Step(b); err == nil || !strings.Contains(err.Error(), "batch sample 1: win/draw/loss target sums to") {
		t.Errorf("a WDL target that does not sum to 1: %v", err)
	}
}

// TestWinogradF32FollowsDirect trains a model whose 3x3 convolutions take
// Winograd's float32 products and one on the direct products, from the
// same parameters on the same batches (32 filters): the first step's
// gradients agree to float32's rounding and the losses of 30 steps stay
// within 0.1%.
func TestWinogradF32FollowsDirect(t *testing.T) {
	const n, steps = 16, 30
	spec, _, cfg := followSetup(t, 51, steps)
	spec.Filters = 32 // fits Winograd's products on every kernel's strides
	p, err := net.NewParams(spec, 51)
	if err != nil {
		t.Fatal(err)
	}
	was := ops.SetWinogradF32(false)
	direct := newTestTrainer(t, p, n, cfg)
	ops.SetWinogradF32(true)
	wino := newTestTrainer(t, p, n, cfg)
	ops.SetWinogradF32(was)
	rng := rand.New(rand.NewPCG(52, 53))
	for i := range steps {
		b := randomBatch(rng, spec, n)
		if i == 0 {
			for _, tr := range []*Trainer{wino, direct} {
				tr.m.trainMu.Lock()
				_, err := tr.gradients(b)
				tr.m.trainMu.Unlock()
				if err != nil {
					t.Fatal(err)
				}
			}
			for k := range wino.grad {
				if d := maxDiff(wino.grad[k], direct.grad[k]); d > 1e-5 {
					t.Errorf("gradient of %s differs from the direct products' by %.3g", direct.m.infos[k].Name, d)
				}
			}
		}
		var loss [2]float64
		for j, tr := range []*Trainer{wino, direct} {
			st, err := tr.Step(b)
			if err != nil {
				t.Fatal(err)
			}
			loss[j] = st.Loss
		}
		if math.Abs(loss[0]-loss[1]) > 1e-3*loss[1] {
			t.Fatalf("step %d: loss %v on Winograd's products, %v on the direct ones", i+1, loss[0], loss[1])
		}
	}
}
