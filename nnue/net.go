package nnue

import (
	"fmt"
	"math"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// Quantisation scales (Stockfish's and nnue-pytorch's scheme). A float 1.0
// of the feature transformer (weights, biases, accumulators) is FTScale; a
// clipped activation in [0, 1] is a byte in [0, 127]. Hidden weights are
// int8 at HiddenWeightScale, so a float weight lies within
// +-MaxHiddenWeight; hidden biases are int32 at FTScale*HiddenWeightScale,
// and a hidden layer's int32 sums shifted right by HiddenShift are back at
// FTScale. The output is y * OutputScale centi-units: its weights are int8
// at OutputScale*OutputDiv/FTScale (within +-MaxOutputWeight), its bias int32
// at OutputScale*OutputDiv, and the int32 sum divided by OutputDiv is the
// evaluation.
const (
	FTScale           = 127
	HiddenWeightScale = 64
	HiddenShift       = 6 // log2(HiddenWeightScale)
	OutputScale       = 600
	OutputDiv         = 16

	MaxHiddenWeight = 127.0 / HiddenWeightScale
	MaxOutputWeight = 127.0 * FTScale / (OutputScale * OutputDiv)
	// MaxFTWeight bounds a feature transformer weight or bias; the trainer
	// should keep the accumulators (bias plus up to MaxActive rows) within
	// it too, since they are int16.
	MaxFTWeight = 32767.0 / FTScale
)

// Sizes are the layer widths: the feature transformer's output per
// perspective (L1) and the two hidden layers (L2, L3). The first dense
// layer reads 2*L1 bytes.
type Sizes struct {
	L1, L2, L3 int
}

// DefaultSizes are the widths a new network gets.
var DefaultSizes = Sizes{L1: 256, L2: 16, L3: 32}

// Size limits: L1 a multiple of 64 (the kernels' block of int16s), L2 a
// multiple of 4 (the first dense layer's outputs come in fours).
const (
	maxL1 = 2048
	maxL2 = 256
	maxL3 = 256
)

// Check reports whether s is a shape this package runs.
func (s Sizes) Check() error {
	switch {
	case s.L1 < 64 || s.L1 > maxL1 || s.L1%64 != 0:
		return fmt.Errorf("nnue: L1 %d is not a multiple of 64 in [64, %d]", s.L1, maxL1)
	case s.L2 < 4 || s.L2 > maxL2 || s.L2%4 != 0:
		return fmt.Errorf("nnue: L2 %d is not a multiple of 4 in [4, %d]", s.L2, maxL2)
	case s.L3 < 1 || s.L3 > maxL3:
		return fmt.Errorf("nnue: L3 %d is outside [1, %d]", s.L3, maxL3)
	}
	return nil
}

func (s Sizes) String() string { return fmt.Sprintf("%dx2-%d-%d-1", s.L1, s.L2, s.L3) }

// Net is a quantised network, read-only once made: positions share it.
// Get one from Load, Decode, Quantize or NewRandom.
type Net struct {
	sizes Sizes
	notes string

	ftW []int16 // [NumFeatures][L1]
	ftB []int16 // [L1]
	w1  []int8  // [L2][2*L1]: side to move's L1 inputs, then the other's
	b1  []int32 // [L2]
	w2  []int8  // [L3][L2]
	b2  []int32 // [L3]
	w3  []int8  // [L3]
	b3  int32

	// The second dense layer laid out for the first's kernel (derived
	// from w2 and b2 by finish): inputs padded with zero weights to
	// l2p = a multiple of 64, outputs with zero rows to l3p = a multiple
	// of 4.
	w2p      []int8  // [l3p][l2p]
	b2p      []int32 // [l3p]
	l2p, l3p int
}

// Sizes returns the layer widths.
func (n *Net) Sizes() Sizes { return n.sizes }

// Notes returns the free text the network was saved with.
func (n *Net) Notes() string { return n.notes }

// SetNotes sets the free text Save writes into the header (how the network
// was made).
func (n *Net) SetNotes(s string) { n.notes = s }

func newNet(s Sizes) *Net {
	l2p, l3p := (s.L2+63)/64*64, (s.L3+3)/4*4
	return &Net{
		l2p:   l2p,
		l3p:   l3p,
		w2p:   make([]int8, l3p*l2p),
		b2p:   make([]int32, l3p),
		sizes: s,
		ftW:   make([]int16, NumFeatures*s.L1),
		ftB:   make([]int16, s.L1),
		w1:    make([]int8, s.L2*2*s.L1),
		b1:    make([]int32, s.L2),
		w2:    make([]int8, s.L3*s.L2),
		b2:    make([]int32, s.L3),
		w3:    make([]int8, s.L3),
	}
}

// finish derives the padded second layer once w2 and b2 are set.
func (n *Net) finish() {
	l2 := n.sizes.L2
	for j := range n.sizes.L3 {
		copy(n.w2p[j*n.l2p:], n.w2[j*l2:(j+1)*l2])
	}
	copy(n.b2p, n.b2)
}

// scratch holds one forward pass's intermediate values, so that Evaluate
// allocates nothing.
type scratch struct {
	in []uint8 // 2*L1 clipped accumulators
	s1 []int32 // L2 sums
	h1 []uint8 // L2 activations, padded with zeros to l2p
	s2 []int32 // l3p sums
}

func (n *Net) newScratch() *scratch {
	return &scratch{in: make([]uint8, 2*n.sizes.L1), s1: make([]int32, n.sizes.L2), h1: make([]uint8, n.l2p), s2: make([]int32, n.l3p)}
}

// forward evaluates from the two accumulators, the side to move's first, in
// centi-units from the side to move's view.
func (n *Net) forward(k *kernels, us, them []int16, sc *scratch) int {
	l1 := n.sizes.L1
	k.crelu(sc.in[:l1], us)
	k.crelu(sc.in[l1:], them)
	k.dense(sc.s1, sc.in, n.w1, n.b1)
	for i, s := range sc.s1 {
		sc.h1[i] = uint8(clampAct(s >> HiddenShift))
	}
	k.dense(sc.s2, sc.h1, n.w2p, n.b2p)
	out := n.b3
	for j, w := range n.w3 {
		out += clampAct(sc.s2[j]>>HiddenShift) * int32(w)
	}
	return int(out / OutputDiv)
}

// clampAct is the clipped ReLU of a value at FTScale.
func clampAct(x int32) int32 { return min(max(x, 0), FTScale) }

// EvaluateFull evaluates p from scratch (no incremental state), as
// Position.Evaluate does (centi-units from the side to move's view, within
// +-MaxEval): the reference the accumulators are tested against, and an
// evaluation for callers that see positions one at a time. It allocates.
func (n *Net) EvaluateFull(p *xiangqi.Position) int {
	var acc [2][]int16
	var feats [MaxActive]uint16
	k := activeKernels
	for c := range 2 {
		acc[c] = make([]int16, n.sizes.L1)
		fs := AppendFeatures(feats[:0], p, game.Color(c))
		k.update(acc[c], n.ftB, n.ftW, fs, nil)
	}
	us := p.SideToMove()
	return min(max(n.forward(k, acc[us], acc[us^1], n.newScratch()), -MaxEval), MaxEval)
}

// checkFinite reports the first value of xs that is not finite.
func checkFinite(name string, xs []float32) error {
	for i, x := range xs {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("nnue: %s[%d] is %v", name, i, x)
		}
	}
	return nil
}
