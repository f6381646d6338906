package onnx

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all" // registers every game
	"github.com/tabula-zero/tabula/net"
)

// tinySpec is a small network with a non-square board, so that swapped
// height and width or a wrong flatten order show up.
var tinySpec = net.Spec{
	Game: "connect4", EncoderVersion: 1,
	Channels: 3, Height: 4, Width: 5, Actions: 7,
	Blocks: 2, Filters: 8, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 6,
}

// fromToSpec is tinySpec with the from-to policy head (an action for
// every pair of its 20 squares).
func fromToSpec() net.Spec {
	s := tinySpec
	s.Actions, s.PolicyHead, s.PolicyChannels = 400, net.PolicyFromTo, 3
	return s
}

// randomParams returns a network whose BN statistics and biases are far
// from their initial values, so that a wrong BN fold or a missing bias
// changes the outputs.
func randomParams(t testing.TB, spec net.Spec, seed uint64) *net.Params {
	t.Helper()
	p, err := net.NewParams(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	p.Randomize(seed)
	// Keep tanh out of saturation so that the value output tests the
	// value head.
	for i := range p.ValueFC2.W {
		p.ValueFC2.W[i] *= 0.05
	}
	return p
}

// randomSamples returns n samples of random binary-ish planes with p's
// reference outputs.
func randomSamples(p *net.Params, n int, seed uint64) []Sample {
	s := p.Spec
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]Sample, n)
	for i := range out {
		planes := make([]float32, s.Channels*s.Height*s.Width)
		for j := range planes {
			switch rng.IntN(3) {
			case 0:
				planes[j] = 1
			case 1:
				planes[j] = float32(rng.NormFloat64())
			}
		}
		pol, val := p.Reference(planes, 1)
		out[i] = Sample{FEN: "random", Shape: [3]int{s.Channels, s.Height, s.Width}, Planes: planes, Policy: pol, Value: val[0]}
	}
	return out
}

// maxDiff returns the largest absolute difference of equally long slices
// (+Inf when the lengths differ or a value is NaN).
func maxDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var m float64
	for i := range a {
		d := math.Abs(float64(a[i]) - float64(b[i]))
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		m = max(m, d)
	}
	return m
}

// preset returns a registered game with its preset's encoder and its
// freshly initialised preset network with randomised BN statistics.
func preset(t testing.TB, name string, seed uint64) (game.Game, *net.Params) {
	t.Helper()
	g, err := game.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := configs.PresetSpec(g.Name)
	if err != nil {
		t.Fatal(err)
	}
	if g, err = g.WithEncoder(spec.EncoderVersion); err != nil { // the preset's encoder
		t.Fatal(err)
	}
	return g, randomParams(t, spec, seed)
}

// presetWDL is preset with the win/draw/loss value head; its logits are
// spread (not scaled down as the scalar head's are), so that the three
// probabilities differ.
func presetWDL(t testing.TB, name string, seed uint64) (game.Game, *net.Params) {
	t.Helper()
	g, p := preset(t, name, seed)
	spec := p.Spec
	spec.ValueHead = net.ValueWDL
	w, err := net.NewParams(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	w.Randomize(seed)
	for i := range w.ValueFC2.W {
		w.ValueFC2.W[i] *= 0.2
	}
	return g, w
}
