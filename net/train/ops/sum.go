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
func Engine() tensor.Engine { return sumEngine{} }

type sumEngine struct{ tensor.StdEng }

// minParallelSum is the size below which a sum stays on one core.
const minParallelSum = 1 << 14

// Add computes a + b into the reuse tensor if one is given, into a if the
// operation may overwrite it, and otherwise as StdEng does.
func (e sumEngine) Add(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
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
	addParallel(dst.Float32s(), ad.Float32s(), bd.Float32s())
	return dst, nil
}

// addParallel writes dst = x + y in contiguous ranges on every core.
func addParallel(dst, x, y []float32) {
	n := len(dst)
	parts := splits(n / 4096)
	parallel.For(parts, func(p int) {
		lo, hi := n*p/parts, n*(p+1)/parts
		d, a, b := dst[lo:hi], x[lo:hi], y[lo:hi]
		for i := range d {
			d[i] = a[i] + b[i]
		}
	})
}
