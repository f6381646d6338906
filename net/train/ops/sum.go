package ops

import (
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/internal/parallel"
)

// Engine is the tensor engine for a training graph's machine
// (G.WithEngine): gorgonia's standard engine, with the Add of two large
// float32 tensors of one size on every core. gorgonia sums the gradients
// of an activation that feeds two ops (a residual block's input feeds its
// first convolution and its last batch norm) with tensor.Add on the
// engine the machine gives every value, one core at a time otherwise.
// An engine belongs to one machine (a graph runs on one goroutine at a
// time): its Add keeps its operands for the loop body, made once.
func Engine() tensor.Engine {
	e := &sumEngine{}
	e.part = e.addPart
	return e
}

type sumEngine struct {
	tensor.StdEng
	dst, x, y []float32 // the sum being made
	parts     int
	part      func(int)
}

// minParallelSum is the size below which a sum stays on one core.
const minParallelSum = 1 << 14

// Add computes a + b into the reuse tensor if one is given, into a if the
// operation may overwrite it, and otherwise as StdEng does.
func (e *sumEngine) Add(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	ad, aok := a.(*tensor.Dense)
	bd, bok := b.(*tensor.Dense)
	if !aok || !bok || ad.Dtype() != tensor.Float32 || bd.Dtype() != tensor.Float32 ||
		ad.Size() != bd.Size() || ad.Size() < minParallelSum || !ad.IsNativelyAccessible() || ad.IsView() || bd.IsView() {
		return e.StdEng.Add(a, b, opts...)
	}
	fo := tensor.ParseFuncOpts(opts...)
	var dst *tensor.Dense
	switch r := fo.Reuse(); {
	case fo.Incr() != nil:
		return e.StdEng.Add(a, b, opts...)
	case r != nil:
		rd, ok := r.(*tensor.Dense)
		if !ok || rd.Dtype() != tensor.Float32 || rd.Size() != ad.Size() || rd.IsView() {
			return e.StdEng.Add(a, b, opts...)
		}
		dst = rd
	case !fo.Safe():
		dst = ad
	default:
		return e.StdEng.Add(a, b, opts...)
	}
	e.dst, e.x, e.y = dst.Float32s(), ad.Float32s(), bd.Float32s()
	e.parts = splits(len(e.dst) / 4096)
	parallel.For(e.parts, e.part)
	e.dst, e.x, e.y = nil, nil, nil
	return dst, nil
}

// addPart is a contiguous range of the sum.
func (e *sumEngine) addPart(p int) {
	n := len(e.dst)
	lo, hi := n*p/e.parts, n*(p+1)/e.parts
	d, a, b := e.dst[lo:hi], e.x[lo:hi], e.y[lo:hi]
	for i := range d {
		d[i] = a[i] + b[i]
	}
}
