package net

import (
	"fmt"
	"math/rand/v2"
)

// Grow returns p as a network of the larger shape to (more filters, more
// blocks, or both; every other part of the spec equal) that computes the
// same function, so that a run can go on from a trained network with more
// capacity (Net2Net: Chen, Goodfellow and Shlens, 2016).
//
// Wider: each new channel of the tower copies an old one (its filters and
// batch norm), the same for a block's inner channels, and the layers that
// read a copied channel split its weight among the copies. The split is
// random (shares drawn from seed that sum to one), so that the copies see
// different gradients and grow apart; a plain halving would leave them
// equal for ever. Deeper: new blocks go after the old ones with their
// second batch norm's scale at zero, so that they pass the tower through
// until training moves that scale (zero-initialised residuals).
//
// Keeping the function is also the limit of this: a new block's
// convolutions get no gradient while its scale is zero, and that scale's
// gradient is the correlation of random features with the error, so on
// Xiangqi new blocks stayed inert and copied channels near-copies through
// 2,200 steps (docs/notebook/xiangqi-selfplay.md). It carries a network
// over; it does not give it capacity quickly.
//
// p is not modified; in exact arithmetic the result's outputs are p's
// (the splits round to within a few ulps).
func Grow(p *Params, to Spec, seed uint64) (*Params, error) {
	from := p.Spec
	same := from
	same.Blocks, same.Filters = to.Blocks, to.Filters
	if same != to {
		return nil, fmt.Errorf("net: a %+v network cannot grow into %+v: only blocks and filters may change", from, to)
	}
	if to.Blocks < from.Blocks || to.Filters < from.Filters {
		return nil, fmt.Errorf("net: a network of %d blocks of %d filters cannot shrink to %d of %d", from.Blocks, from.Filters, to.Blocks, to.Filters)
	}
	if err := to.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x67726f77))
	tower := copyMap(rng, from.Filters, to.Filters)
	g := &Params{Spec: to, FromTo: cloneFromTo(p.FromTo), PolicyFC: cloneDense(p.PolicyFC),
		ValueFC1: cloneDense(p.ValueFC1), ValueFC2: cloneDense(p.ValueFC2)}
	g.Input = widen(rng, p.Input, tower, identity(p.Input.In))
	for _, b := range p.Blocks {
		inner := copyMap(rng, from.Filters, to.Filters)
		g.Blocks = append(g.Blocks, Block{A: widen(rng, b.A, inner, tower), B: widen(rng, b.B, tower, inner)})
	}
	for range to.Blocks - from.Blocks {
		b := Block{A: newConvBN(rng, to.Filters, to.Filters, 3), B: newConvBN(rng, to.Filters, to.Filters, 3)}
		clear(b.B.Gamma)
		g.Blocks = append(g.Blocks, b)
	}
	g.PolicyConv = widen(rng, p.PolicyConv, identity(p.PolicyConv.Out), tower)
	g.ValueConv = widen(rng, p.ValueConv, identity(p.ValueConv.Out), tower)
	return g, nil
}

// copyMap maps the channels of a layer widened from n to m: the first n
// are themselves, each further one a copy of a random old one.
func copyMap(rng *rand.Rand, n, m int) []int {
	src := identity(n)
	for range m - n {
		src = append(src, rng.IntN(n))
	}
	return src
}

func identity(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// widen returns c with output channel o a copy of c's out[o], reading
// input channel i as c's in[i]: the weight from an old input channel is
// split among its copies in random shares that sum to one (per output
// channel), so the sum over the copies, which carry equal values, is the
// old weight.
func widen(rng *rand.Rand, c ConvBN, out, in []int) ConvBN {
	kk := c.K * c.K
	w := ConvBN{Out: len(out), In: len(in), K: c.K, W: make([]float32, len(out)*len(in)*kk)}
	copies := make([][]int, c.In) // the new input channels of each old one
	for i, src := range in {
		copies[src] = append(copies[src], i)
	}
	share := make([]float32, len(in))
	for o, so := range out {
		for _, cs := range copies {
			if len(cs) == 1 {
				share[cs[0]] = 1
				continue
			}
			sum := 0.0
			for _, i := range cs {
				u := 0.5 + rng.Float64()
				share[i] = float32(u)
				sum += u
			}
			for _, i := range cs {
				share[i] = float32(float64(share[i]) / sum)
			}
		}
		for i, si := range in {
			dst := w.W[(o*len(in)+i)*kk : (o*len(in)+i+1)*kk]
			for k, x := range c.W[(so*c.In+si)*kk : (so*c.In+si+1)*kk] {
				dst[k] = x * share[i]
			}
		}
	}
	for _, so := range out {
		w.Gamma = append(w.Gamma, c.Gamma[so])
		w.Beta = append(w.Beta, c.Beta[so])
		w.Mean = append(w.Mean, c.Mean[so])
		w.Var = append(w.Var, c.Var[so])
	}
	return w
}

func cloneDense(d Dense) Dense {
	return Dense{Out: d.Out, In: d.In, W: append([]float32(nil), d.W...), B: append([]float32(nil), d.B...)}
}

func cloneFromTo(f FromTo) FromTo {
	if f.W == nil {
		return FromTo{}
	}
	return FromTo{C: f.C, W: append([]float32(nil), f.W...), B: append([]float32(nil), f.B...)}
}
