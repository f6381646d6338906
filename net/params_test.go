package net

import (
	"math"
	"strings"
	"testing"
)

// tinySpec is small enough for exhaustive tests and still has every part:
// two residual blocks, multi-channel heads, a non-square board.
func tinySpec() Spec {
	return Spec{Game: "test", EncoderVersion: 1, Channels: 3, Height: 4, Width: 5, Actions: 7,
		Blocks: 2, Filters: 8, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 6}
}

// fromToSpec is tinySpec with the from-to policy head: an action for
// every pair of its 20 squares.
func fromToSpec() Spec {
	s := tinySpec()
	s.Actions, s.PolicyHead, s.PolicyChannels = 400, PolicyFromTo, 3
	return s
}

// wdlSpec is tinySpec with the win/draw/loss value head.
func wdlSpec() Spec {
	s := tinySpec()
	s.ValueHead = ValueWDL
	return s
}

// randomParams returns parameters with every part non-trivial: random BN
// scale, shift and running statistics, and random dense biases.
func randomParams(t testing.TB, spec Spec, seed uint64) *Params {
	t.Helper()
	p, err := NewParams(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	p.Randomize(seed)
	return p
}

// paramSlices lists p's trainable slices in ParamTensors order.
func paramSlices(p *Params) [][]float32 {
	var s [][]float32
	conv := func(c *ConvBN) { s = append(s, c.W, c.Gamma, c.Beta) }
	dense := func(d *Dense) { s = append(s, d.W, d.B) }
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

func TestParamTensorsMatchParams(t *testing.T) {
	for _, spec := range []Spec{tinySpec(), fromToSpec(), wdlSpec()} {
		testParamTensorsMatchParams(t, spec)
	}
}

func testParamTensorsMatchParams(t *testing.T, spec Spec) {
	p := randomParams(t, spec, 1)
	infos := spec.ParamTensors()
	slices := paramSlices(p)
	if len(infos) != len(slices) {
		t.Fatalf("%d infos, %d slices", len(infos), len(slices))
	}
	seen := map[string]bool{}
	for i, pi := range infos {
		if pi.Size() != len(slices[i]) {
			t.Errorf("%s: size %d, slice %d", pi.Name, pi.Size(), len(slices[i]))
		}
		if seen[pi.Name] {
			t.Errorf("duplicate name %s", pi.Name)
		}
		seen[pi.Name] = true
		wantDecay := strings.HasSuffix(pi.Name, ".w")
		if pi.Decay != wantDecay {
			t.Errorf("%s: decay %v", pi.Name, pi.Decay)
		}
	}
	if infos[0].Name != "input.w" || infos[len(infos)-1].Name != "value.fc2.b" {
		t.Errorf("order: first %s, last %s", infos[0].Name, infos[len(infos)-1].Name)
	}
}

func TestForwardFLOPs(t *testing.T) {
	s := Spec{Channels: 2, Height: 3, Width: 4, Actions: 5, Blocks: 1, Filters: 6, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 7}
	// input 12*6*2*9, tower 2*12*6*6*9, heads 12*6*3, policy fc 5*24,
	// value fc1 7*12, fc2 7.
	want := int64(2 * (12*6*2*9 + 2*12*6*6*9 + 12*6*3 + 5*24 + 7*12 + 7))
	if got := s.ForwardFLOPs(); got != want {
		t.Errorf("ForwardFLOPs = %d, want %d", got, want)
	}
	// The from-to head: W F (12*2*2), then F^T (W F) (12*12*2).
	s.Actions, s.PolicyHead = 144, PolicyFromTo
	want += 2 * (12*2*2 + 12*12*2 - 5*24)
	if got := s.ForwardFLOPs(); got != want {
		t.Errorf("from-to head: ForwardFLOPs = %d, want %d", got, want)
	}
	// The WDL head: fc2 gives three logits, not one.
	s.ValueHead = ValueWDL
	want += 2 * (2 * 7)
	if got := s.ForwardFLOPs(); got != want {
		t.Errorf("WDL head: ForwardFLOPs = %d, want %d", got, want)
	}
}

func TestValueHeadSpec(t *testing.T) {
	s := wdlSpec()
	s.ValueHead = "categorical"
	if _, err := NewParams(s, 1); err == nil || !strings.Contains(err.Error(), `unknown value head "categorical"`) {
		t.Errorf("unknown value head: error %v", err)
	}
	// Parameters of one value head do not pass as the other's.
	p := randomParams(t, wdlSpec(), 3)
	p.Spec = tinySpec()
	if err := p.Check(); err == nil {
		t.Error("WDL parameters pass as a scalar head's")
	}
	q := randomParams(t, tinySpec(), 3)
	q.Spec = wdlSpec()
	if err := q.Check(); err == nil {
		t.Error("scalar-head parameters pass as a WDL head's")
	}
}

// TestReferenceWDL holds the WDL head's outputs to what they mean: three
// probabilities summing to 1 whose W - L is the value, the same policy as
// the scalar head of the same tower, and logits turned into probabilities
// by softmax (a shift of all three logits changes nothing, a larger draw
// logit a larger D).
func TestReferenceWDL(t *testing.T) {
	p := randomParams(t, wdlSpec(), 5)
	n := 4
	planes := make([]float32, n*3*4*5)
	for i := range planes {
		planes[i] = float32(i%7) / 7
	}
	policy, value, wdl := p.ReferenceWDL(planes, n)
	if len(wdl) != 3*n {
		t.Fatalf("wdl has %d entries, want %d", len(wdl), 3*n)
	}
	for i := range n {
		w, d, l := wdl[3*i], wdl[3*i+1], wdl[3*i+2]
		if w < 0 || d < 0 || l < 0 || math.Abs(float64(w+d+l)-1) > 1e-6 {
			t.Errorf("position %d: wdl %v %v %v is not a distribution", i, w, d, l)
		}
		if math.Abs(float64(w-l-value[i])) > 1e-6 {
			t.Errorf("position %d: value %v, W - L = %v", i, value[i], w-l)
		}
	}
	// The scalar head of the same tower and policy gives the same policy.
	scalar := *p
	scalar.Spec = tinySpec()
	scalar.ValueFC2 = Dense{Out: 1, In: p.ValueFC2.In, W: p.ValueFC2.W[:p.ValueFC2.In], B: p.ValueFC2.B[:1]}
	sp, _, none := scalar.ReferenceWDL(planes, n)
	if none != nil {
		t.Error("a scalar head returns WDL probabilities")
	}
	for i := range sp {
		if sp[i] != policy[i] {
			t.Fatalf("policy %d: %v with the WDL head, %v with the scalar head", i, policy[i], sp[i])
		}
	}
	// Raising the draw bias by 1 multiplies D/W and D/L by e.
	up := *p
	up.ValueFC2.B = append([]float32(nil), p.ValueFC2.B...)
	up.ValueFC2.B[1]++
	_, _, wdl2 := up.ReferenceWDL(planes, n)
	for i := range n {
		before := float64(wdl[3*i+1] / wdl[3*i])
		after := float64(wdl2[3*i+1] / wdl2[3*i])
		if math.Abs(after/before-math.E) > 1e-4 {
			t.Errorf("position %d: D/W went from %v to %v with the draw logit up by 1", i, before, after)
		}
	}
}

func TestPolicyHeadSpec(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"unknown head", func(s *Spec) { s.PolicyHead = "attention" }, `unknown policy head "attention"`},
		{"actions not every pair", func(s *Spec) { s.Actions = 399 }, "needs an action for every pair of the 20 squares (400)"},
	} {
		s := fromToSpec()
		c.edit(&s)
		if _, err := NewParams(s, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// Parameters of one head do not pass as the other's.
	p := randomParams(t, fromToSpec(), 3)
	p.Spec = tinySpec()
	p.Spec.PolicyChannels = 3
	if err := p.Check(); err == nil {
		t.Error("from-to parameters pass as a dense head's")
	}
	q := randomParams(t, tinySpec(), 3)
	q.Spec.Actions, q.Spec.PolicyHead = 400, PolicyFromTo
	q.Spec.PolicyChannels = 2
	if err := q.Check(); err == nil {
		t.Error("dense-head parameters pass as a from-to head's")
	}
}

func TestSchedule(t *testing.T) {
	pw := Schedule{Kind: SchedulePiecewise, LR: 0.2, Boundaries: []int64{100, 250}, Values: []float64{0.02, 0.002}}
	cos := Schedule{Kind: ScheduleCosine, LR: 0.1, Warmup: 10, Total: 110, MinLR: 0.001}
	cosNoWarm := Schedule{Kind: ScheduleCosine, LR: 1, Total: 4}
	for _, c := range []struct {
		s    Schedule
		step int64
		want float64
	}{
		{Schedule{LR: 0.3}, 0, 0.3},
		{Schedule{Kind: ScheduleConstant, LR: 0.3}, 1 << 40, 0.3},
		{pw, -5, 0.2},
		{pw, 0, 0.2},
		{pw, 99, 0.2},
		{pw, 100, 0.02},
		{pw, 249, 0.02},
		{pw, 250, 0.002},
		{pw, 1 << 40, 0.002},
		{cos, 0, 0.01},
		{cos, 4, 0.05},
		{cos, 9, 0.1},
		{cos, 10, 0.1},
		{cos, 60, 0.001 + 0.099*0.5},
		{cos, 35, 0.001 + 0.099*0.5*(1+math.Cos(math.Pi/4))},
		{cos, 110, 0.001},
		{cos, 1000, 0.001},
		{cosNoWarm, 0, 1},
		{cosNoWarm, 2, 0.5},
		{cosNoWarm, 4, 0},
	} {
		if err := c.s.Validate(); err != nil {
			t.Fatal(err)
		}
		if got := c.s.At(c.step); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%+v at %d = %v, want %v", c.s, c.step, got, c.want)
		}
	}
}
