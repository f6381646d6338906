// Package net is the residual policy/value network: its shape (Spec), its
// parameters in plain form (Params), a reference forward pass and the
// learning-rate schedules. It does not link gorgonia: training is
// net/train, fast inference net/infer.
//
// Params is the exchange format between the parts: the gorgonia model
// (net/train) reads and writes it, checkpoints store it, the fast inference path and
// the ONNX exporter consume it. Layouts are row-major and channel-first:
// convolution weights [out][in][k][k], dense weights [out][in], planes
// [n][c][h][w].
package net

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// BNEpsilon is the batch-norm epsilon everywhere (gorgonia, fast path,
// ONNX).
const BNEpsilon = 1e-5

// Spec is the shape of a network.
type Spec struct {
	Game           string
	EncoderVersion int
	// Input planes and action space, from the game's encoder.
	Channels, Height, Width int
	Actions                 int
	// Residual tower: Blocks blocks of Filters channels.
	Blocks, Filters int
	// Heads: 1x1 convolution channels of the policy and value heads, and
	// the value head's hidden layer.
	PolicyChannels, ValueChannels, ValueHidden int
	// PolicyHead is how the policy head turns its convolution's features
	// into logits: "" a dense layer over the whole board, PolicyFromTo a
	// bilinear form of each move's two squares (Params.FromTo; the action
	// space must then be every pair of squares, from*h*w + to).
	PolicyHead string `json:",omitempty"`
	// ValueHead is what the value head predicts: "" one value in [-1, 1]
	// through tanh, ValueWDL the probabilities of a win, a draw and a loss
	// (a softmax over three logits of ValueFC2), whose value for the
	// search is W - L, the expected score.
	ValueHead string `json:",omitempty"`
}

// PolicyFromTo is Spec.PolicyHead's from-to head.
const PolicyFromTo = "fromto"

// FromToHead reports whether the policy head is the from-to head.
func (s Spec) FromToHead() bool { return s.PolicyHead == PolicyFromTo }

// ValueWDL is Spec.ValueHead's win/draw/loss head.
const ValueWDL = "wdl"

// WDLHead reports whether the value head predicts win, draw and loss.
func (s Spec) WDLHead() bool { return s.ValueHead == ValueWDL }

// ValueOutputs is the width of the value head's last layer: 3 logits
// with the WDL head, else 1.
func (s Spec) ValueOutputs() int {
	if s.WDLHead() {
		return 3
	}
	return 1
}

// Validate reports a spec that cannot build a network.
func (s Spec) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{
		{"channels", s.Channels}, {"height", s.Height}, {"width", s.Width}, {"actions", s.Actions},
		{"filters", s.Filters}, {"policy channels", s.PolicyChannels}, {"value channels", s.ValueChannels}, {"value hidden", s.ValueHidden},
	} {
		if f.v <= 0 || f.v > 1<<20 {
			return fmt.Errorf("net: spec %s = %d out of range", f.name, f.v)
		}
	}
	if s.Blocks < 0 || s.Blocks > 100 {
		return fmt.Errorf("net: spec blocks = %d out of range [0, 100]", s.Blocks)
	}
	switch hw := s.Height * s.Width; s.PolicyHead {
	case "":
	case PolicyFromTo:
		if s.Actions != hw*hw {
			return fmt.Errorf("net: the from-to policy head needs an action for every pair of the %d squares (%d), the encoder has %d", hw, hw*hw, s.Actions)
		}
	default:
		return fmt.Errorf("net: unknown policy head %q (want %q or none)", s.PolicyHead, PolicyFromTo)
	}
	if s.ValueHead != "" && s.ValueHead != ValueWDL {
		return fmt.Errorf("net: unknown value head %q (want %q or none)", s.ValueHead, ValueWDL)
	}
	return nil
}

// ConvBN is a bias-free k x k convolution (padding k/2, stride 1) followed
// by batch normalisation with running statistics.
type ConvBN struct {
	Out, In, K int
	W          []float32 // [Out][In][K][K]
	Gamma      []float32 // [Out]
	Beta       []float32 // [Out]
	Mean       []float32 // [Out], running mean
	Var        []float32 // [Out], running variance
}

// Dense is a fully connected layer y = W x + B.
type Dense struct {
	Out, In int
	W       []float32 // [Out][In]
	B       []float32 // [Out]
}

// FromTo is the from-to policy head's bilinear form: with f_i the policy
// convolution's C features on square i of hw, the logit of the action
// from*hw + to is f_from^T W f_to + B[from*hw + to].
type FromTo struct {
	C int
	W []float32 // [C][C]
	B []float32 // [hw*hw]
}

// Block is one residual block: relu(x + bn(conv(relu(bn(conv(x)))))).
type Block struct {
	A, B ConvBN
}

// Params holds every parameter of a network.
//
// Forward pass: x -> relu(Input) -> Blocks -> two heads.
// Policy: relu(PolicyConv) -> flatten [c][h][w] -> PolicyFC -> logits, or
// with the from-to head relu(PolicyConv) -> FromTo -> logits (PolicyFC
// empty).
// Value: relu(ValueConv) -> flatten -> relu(ValueFC1) -> ValueFC2 -> tanh,
// or with the WDL head ValueFC2's three logits (win, draw, loss for the
// side to move) -> softmax, the value W - L.
type Params struct {
	Spec       Spec
	Input      ConvBN
	Blocks     []Block
	PolicyConv ConvBN
	PolicyFC   Dense
	FromTo     FromTo
	ValueConv  ConvBN
	ValueFC1   Dense
	ValueFC2   Dense
}

// NewParams returns freshly initialised parameters: He-normal weights
// (fan-in), zero biases, unit BN scale, zero BN shift, running mean 0 and
// variance 1. The same seed gives the same parameters.
func NewParams(spec Spec, seed uint64) (*Params, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x6e6574))
	hw := spec.Height * spec.Width
	p := &Params{
		Spec:       spec,
		Input:      newConvBN(rng, spec.Filters, spec.Channels, 3),
		PolicyConv: newConvBN(rng, spec.PolicyChannels, spec.Filters, 1),
	}
	if spec.FromToHead() {
		p.FromTo = newFromTo(rng, spec.PolicyChannels, hw)
	} else {
		p.PolicyFC = newDense(rng, spec.Actions, spec.PolicyChannels*hw)
	}
	p.ValueConv = newConvBN(rng, spec.ValueChannels, spec.Filters, 1)
	p.ValueFC1 = newDense(rng, spec.ValueHidden, spec.ValueChannels*hw)
	p.ValueFC2 = newDense(rng, spec.ValueOutputs(), spec.ValueHidden)
	for i := 0; i < spec.Blocks; i++ {
		p.Blocks = append(p.Blocks, Block{A: newConvBN(rng, spec.Filters, spec.Filters, 3), B: newConvBN(rng, spec.Filters, spec.Filters, 3)})
	}
	return p, nil
}

func heNormal(rng *rand.Rand, n, fanIn int) []float32 {
	w := make([]float32, n)
	std := math.Sqrt(2 / float64(fanIn))
	for i := range w {
		w[i] = float32(rng.NormFloat64() * std)
	}
	return w
}

func filled(n int, v float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func newConvBN(rng *rand.Rand, out, in, k int) ConvBN {
	return ConvBN{
		Out: out, In: in, K: k,
		W:     heNormal(rng, out*in*k*k, in*k*k),
		Gamma: filled(out, 1), Beta: filled(out, 0),
		Mean: filled(out, 0), Var: filled(out, 1),
	}
}

func newDense(rng *rand.Rand, out, in int) Dense {
	return Dense{Out: out, In: in, W: heNormal(rng, out*in, in), B: filled(out, 0)}
}

// newFromTo draws W with standard deviation 1/c: the features are ReLU
// outputs of a batch norm, about c/2 of them near 1, so the first logits
// spread about 0.5 (He's 2/c would make them spread about sqrt(c/2)).
func newFromTo(rng *rand.Rand, c, hw int) FromTo {
	w := make([]float32, c*c)
	for i := range w {
		w[i] = float32(rng.NormFloat64() / float64(c))
	}
	return FromTo{C: c, W: w, B: filled(hw*hw, 0)}
}

// Layers lists every convolution of the playing network in forward order
// (input, blocks, policy, value), for code that walks all of them.
func (p *Params) Layers() []*ConvBN {
	ls := []*ConvBN{&p.Input}
	for i := range p.Blocks {
		ls = append(ls, &p.Blocks[i].A, &p.Blocks[i].B)
	}
	return append(ls, &p.PolicyConv, &p.ValueConv)
}

// Denses lists the dense layers of the playing network (policy, value 1
// and 2; the policy layer is empty with the from-to head).
func (p *Params) Denses() []*Dense { return []*Dense{&p.PolicyFC, &p.ValueFC1, &p.ValueFC2} }

// Check verifies that every slice has the length its shape says, so that
// loaded or hand-built parameters cannot index out of range.
func (p *Params) Check() error {
	s := p.Spec
	if err := s.Validate(); err != nil {
		return err
	}
	if len(p.Blocks) != s.Blocks {
		return fmt.Errorf("net: %d blocks, spec says %d", len(p.Blocks), s.Blocks)
	}
	hw := s.Height * s.Width
	type want struct {
		name       string
		c          *ConvBN
		out, in, k int
	}
	convs := []want{
		{"input", &p.Input, s.Filters, s.Channels, 3},
		{"policy conv", &p.PolicyConv, s.PolicyChannels, s.Filters, 1},
		{"value conv", &p.ValueConv, s.ValueChannels, s.Filters, 1},
	}
	for i := range p.Blocks {
		convs = append(convs,
			want{fmt.Sprintf("block %d conv a", i), &p.Blocks[i].A, s.Filters, s.Filters, 3},
			want{fmt.Sprintf("block %d conv b", i), &p.Blocks[i].B, s.Filters, s.Filters, 3})
	}
	for _, c := range convs {
		l := c.c
		if l.Out != c.out || l.In != c.in || l.K != c.k || len(l.W) != c.out*c.in*c.k*c.k ||
			len(l.Gamma) != c.out || len(l.Beta) != c.out || len(l.Mean) != c.out || len(l.Var) != c.out {
			return fmt.Errorf("net: %s has the wrong shape", c.name)
		}
	}
	type wantDense struct {
		name    string
		d       *Dense
		out, in int
	}
	policyOut, policyIn := s.Actions, s.PolicyChannels*hw
	if s.FromToHead() {
		policyOut, policyIn = 0, 0
		f := &p.FromTo
		if f.C != s.PolicyChannels || len(f.W) != f.C*f.C || len(f.B) != hw*hw {
			return errors.New("net: from-to head has the wrong shape")
		}
	} else if p.FromTo.C != 0 || len(p.FromTo.W) != 0 || len(p.FromTo.B) != 0 {
		return errors.New("net: from-to head parameters without the from-to head")
	}
	denses := []wantDense{
		{"policy fc", &p.PolicyFC, policyOut, policyIn},
		{"value fc1", &p.ValueFC1, s.ValueHidden, s.ValueChannels * hw},
		{"value fc2", &p.ValueFC2, s.ValueOutputs(), s.ValueHidden},
	}
	for _, d := range denses {
		if d.d.Out != d.out || d.d.In != d.in || len(d.d.W) != d.out*d.in || len(d.d.B) != d.out {
			return fmt.Errorf("net: %s has the wrong shape", d.name)
		}
	}
	return nil
}

// Randomize sets every batch-norm scale, shift and running statistic and
// every dense bias to random values far from their initial ones (scale in
// [0.5, 1.5), shift and mean N(0, 0.2), variance in [0.5, 2), biases
// N(0, 0.1)), so that tests of BN folding, export and inference exercise
// every parameter; the same seed gives the same values.
func (p *Params) Randomize(seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	for _, c := range p.Layers() {
		randomizeConv(rng, c)
	}
	for _, d := range p.Denses() {
		randomizeDense(rng, d)
	}
	for i := range p.FromTo.B {
		p.FromTo.B[i] = float32(0.1 * rng.NormFloat64())
	}
}

func randomizeConv(rng *rand.Rand, c *ConvBN) {
	for o := 0; o < c.Out; o++ {
		c.Gamma[o] = float32(0.5 + rng.Float64())
		c.Beta[o] = float32(0.2 * rng.NormFloat64())
		c.Mean[o] = float32(0.2 * rng.NormFloat64())
		c.Var[o] = float32(0.5 + 1.5*rng.Float64())
	}
}

func randomizeDense(rng *rand.Rand, d *Dense) {
	for o := range d.B {
		d.B[o] = float32(0.1 * rng.NormFloat64())
	}
}
