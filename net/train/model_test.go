package train

import (
	"fmt"
	"github.com/tabula-zero/tabula/net"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// tinySpec is small enough for exhaustive tests and still has every part:
// two residual blocks, multi-channel heads, a non-square board.
func tinySpec() net.Spec {
	return net.Spec{Game: "test", EncoderVersion: 1, Channels: 3, Height: 4, Width: 5, Actions: 7,
		Blocks: 2, Filters: 8, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 6}
}

// fromToSpec is tinySpec with the from-to policy head: an action for
// every pair of its 20 squares.
func fromToSpec() net.Spec {
	s := tinySpec()
	s.Actions, s.PolicyHead, s.PolicyChannels = 400, net.PolicyFromTo, 3
	return s
}

// wdlSpec is tinySpec with the win/draw/loss value head.
func wdlSpec() net.Spec {
	s := tinySpec()
	s.ValueHead = net.ValueWDL
	return s
}

// randomParams returns parameters with every part non-trivial: random BN
// scale, shift and running statistics, and random dense biases.
func randomParams(t testing.TB, spec net.Spec, seed uint64) *net.Params {
	t.Helper()
	p, err := net.NewParams(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	p.Randomize(seed)
	return p
}

func randomPlanes(rng *rand.Rand, spec net.Spec, n int) []float32 {
	x := make([]float32, n*spec.Channels*spec.Height*spec.Width)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// paramSlices lists p's trainable slices in ParamTensors order.
func paramSlices(p *net.Params) [][]float32 {
	var s [][]float32
	conv := func(c *net.ConvBN) { s = append(s, c.W, c.Gamma, c.Beta) }
	dense := func(d *net.Dense) { s = append(s, d.W, d.B) }
	conv(&p.Input)
	for i := range p.Blocks {
		conv(&p.Blocks[i].A)
		conv(&p.Blocks[i].B)
	}
	conv(&p.PolicyConv)
	if p.Spec.FromToHead() {
		s = append(s, p.FromTo.W, p.FromTo.B)
	} else {
		dense(&p.PolicyFC)
	}
	conv(&p.ValueConv)
	dense(&p.ValueFC1)
	dense(&p.ValueFC2)
	return s
}

// allSlices lists every slice of p, running statistics included, with a
// name for messages.
func allSlices(p *net.Params) (names []string, s [][]float32) {
	for i, pi := range p.Spec.ParamTensors() {
		names = append(names, pi.Name)
		s = append(s, paramSlices(p)[i])
	}
	for i, c := range p.Layers() {
		names = append(names, fmt.Sprintf("layer%d.mean", i), fmt.Sprintf("layer%d.var", i))
		s = append(s, c.Mean, c.Var)
	}
	return names, s
}

// sameBits reports the first difference between a and b, bit for bit.
func sameBits(a, b *net.Params) error {
	if a.Spec != b.Spec {
		return fmt.Errorf("specs differ: %+v vs %+v", a.Spec, b.Spec)
	}
	na, sa := allSlices(a)
	_, sb := allSlices(b)
	for i := range sa {
		if len(sa[i]) != len(sb[i]) {
			return fmt.Errorf("%s: lengths %d and %d", na[i], len(sa[i]), len(sb[i]))
		}
		for j := range sa[i] {
			if math.Float32bits(sa[i][j]) != math.Float32bits(sb[i][j]) {
				return fmt.Errorf("%s[%d]: %v vs %v", na[i], j, sa[i][j], sb[i][j])
			}
		}
	}
	return nil
}

func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

// checkAgainstReference compares eval-mode Forward with the plain-loop
// reference to 1e-4 (relative to magnitudes above 1).
func checkAgainstReference(t *testing.T, m *Model, p *net.Params, x []float32, n int) {
	t.Helper()
	pol, val, wdl, err := m.ForwardWDL(x, n)
	if err != nil {
		t.Fatal(err)
	}
	rp, rv, rw := p.ReferenceWDL(x, n)
	if len(wdl) != len(rw) {
		t.Fatalf("n=%d: %d WDL probabilities, reference %d", n, len(wdl), len(rw))
	}
	for i := range wdl {
		if d := math.Abs(float64(wdl[i] - rw[i])); d > 1e-4 {
			t.Fatalf("n=%d: WDL probability %d: gorgonia %v, reference %v", n, i, wdl[i], rw[i])
		}
	}
	if len(pol) != len(rp) || len(val) != len(rv) {
		t.Fatalf("n=%d: lengths %d/%d, reference %d/%d", n, len(pol), len(val), len(rp), len(rv))
	}
	for i := range pol {
		if d := math.Abs(float64(pol[i] - rp[i])); d > 1e-4*math.Max(1, math.Abs(float64(rp[i]))) {
			t.Fatalf("n=%d: logit %d: gorgonia %v, reference %v", n, i, pol[i], rp[i])
		}
	}
	for i := range val {
		if d := math.Abs(float64(val[i] - rv[i])); d > 1e-4 {
			t.Fatalf("n=%d: value %d: gorgonia %v, reference %v", n, i, val[i], rv[i])
		}
	}
}

func TestForwardMatchesReference(t *testing.T) {
	t.Run("dense head", func(t *testing.T) { testForwardMatchesReference(t, tinySpec()) })
	t.Run("from-to head", func(t *testing.T) { testForwardMatchesReference(t, fromToSpec()) })
	t.Run("WDL head", func(t *testing.T) { testForwardMatchesReference(t, wdlSpec()) })
}

func testForwardMatchesReference(t *testing.T, spec net.Spec) {
	p := randomParams(t, spec, 2)
	m, err := NewModel(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	// 1, non-powers of two (padding), a full chunk, and more than one
	// chunk; repeated sizes reuse cached graphs.
	for _, n := range []int{1, 3, 5, 16, 64, 1, 3, MaxInferBatch + 7} {
		x := randomPlanes(rng, spec, n)
		keep := append([]float32(nil), x...)
		checkAgainstReference(t, m, p, x, n)
		if maxDiff(x, keep) != 0 {
			t.Fatal("Forward modified its input")
		}
	}
}

func TestForwardBatchIndependent(t *testing.T) {
	// Eval mode: a position's output must not depend on its batch mates
	// or the padding.
	spec := tinySpec()
	m, err := NewModel(randomParams(t, spec, 5), 0)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	x := randomPlanes(rng, spec, 5)
	pol, val, err := m.Forward(x, 5)
	if err != nil {
		t.Fatal(err)
	}
	size := spec.Channels * spec.Height * spec.Width
	for i := 0; i < 5; i++ {
		p1, v1, err := m.Forward(x[i*size:(i+1)*size], 1)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(p1, pol[i*spec.Actions:(i+1)*spec.Actions]); d > 1e-5 {
			t.Errorf("position %d: policy differs by %g alone and in a batch", i, d)
		}
		if d := math.Abs(float64(v1[0] - val[i])); d > 1e-5 {
			t.Errorf("position %d: value differs by %g alone and in a batch", i, d)
		}
	}
}

func TestParamsRoundTrip(t *testing.T) {
	testParamsRoundTrip(t, tinySpec())
	testParamsRoundTrip(t, fromToSpec())
	testParamsRoundTrip(t, wdlSpec())
}

func testParamsRoundTrip(t *testing.T, spec net.Spec) {
	p := randomParams(t, spec, 7)
	m, err := NewModel(p, 4)
	if err != nil {
		t.Fatal(err)
	}
	q := m.Params()
	if err := sameBits(p, q); err != nil {
		t.Fatal("NewModel(p).Params() != p: ", err)
	}
	// Deep copies both ways: changing p or q does not reach the model.
	p.Input.W[0] += 1
	q.Input.Mean[0] += 1
	if spec.FromToHead() {
		q.FromTo.W[0] += 1
		q.FromTo.B[0] += 1
	} else {
		q.PolicyFC.B[0] += 1
	}
	if err := sameBits(m.Params(), randomParams(t, spec, 7)); err != nil {
		t.Fatal("model shares memory with its Params: ", err)
	}
}

func TestNewModelErrors(t *testing.T) {
	spec := tinySpec()
	if _, err := NewModel(nil, 0); err == nil {
		t.Error("nil params accepted")
	}
	for _, b := range []int{-1, 1, 1 << 20} {
		if _, err := NewModel(randomParams(t, spec, 1), b); err == nil {
			t.Errorf("training batch %d accepted", b)
		}
	}
	bad := []func(p *net.Params){
		func(p *net.Params) { p.Input.W = p.Input.W[1:] },
		func(p *net.Params) { p.Blocks = p.Blocks[1:] },
		func(p *net.Params) { p.Blocks[1].B.Mean = nil },
		func(p *net.Params) { p.PolicyFC.B = append(p.PolicyFC.B, 0) },
		func(p *net.Params) { p.ValueFC2.W = nil },
		func(p *net.Params) { p.Spec.Filters = 0 },
		func(p *net.Params) { p.ValueConv.Var[0] = -1 },
		func(p *net.Params) { p.Input.Var[1] = float32(math.NaN()) },
		func(p *net.Params) { p.Blocks[0].A.W[5] = float32(math.Inf(1)) },
		func(p *net.Params) { p.PolicyConv.Gamma[0] = float32(math.NaN()) },
		func(p *net.Params) { p.ValueFC1.B[0] = float32(math.NaN()) },
	}
	for i, f := range bad {
		p := randomParams(t, spec, 1)
		f(p)
		if _, err := NewModel(p, 0); err == nil {
			t.Errorf("bad params %d accepted", i)
		} else if !strings.HasPrefix(err.Error(), "train: ") {
			t.Errorf("error %q does not start with \"train: \"", err)
		}
	}
}

func TestForwardErrors(t *testing.T) {
	spec := tinySpec()
	m, err := NewModel(randomParams(t, spec, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	size := spec.Channels * spec.Height * spec.Width
	for _, c := range []struct {
		len, n int
	}{{0, 0}, {size, 0}, {size, -1}, {size - 1, 1}, {size + 1, 1}, {2 * size, 1}, {size, 2}} {
		if _, _, err := m.Forward(make([]float32, c.len), c.n); err == nil {
			t.Errorf("Forward(len %d, n %d) accepted", c.len, c.n)
		} else if !strings.HasPrefix(err.Error(), "train: ") {
			t.Errorf("error %q does not start with \"train: \"", err)
		}
	}
	if _, err := m.NewTrainer(Config{Schedule: net.Schedule{LR: 0.1}}); err == nil {
		t.Error("NewTrainer on an inference-only model accepted")
	}
}

func TestForwardConcurrent(t *testing.T) {
	spec := tinySpec()
	p := randomParams(t, spec, 8)
	m, err := NewModel(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for it := 0; it < 10; it++ {
				n := 1 + rng.IntN(6)
				x := randomPlanes(rng, spec, n)
				pol, val, err := m.Forward(x, n)
				if err != nil {
					errs <- err
					return
				}
				rp, rv := p.Reference(x, n)
				if d := max(maxDiff(pol, rp), maxDiff(val, rv)); d > 1e-4 {
					errs <- fmt.Errorf("worker %d: differs from reference by %g", w, d)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
