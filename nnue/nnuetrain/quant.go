package nnuetrain

import (
	"math"

	"github.com/tabula-zero/tabula/nnue"
)

// intNet is a quantised network's integers, evaluated as package nnue
// evaluates them (its pure-Go kernels' arithmetic: int16 accumulators
// that wrap, activations clipped to [0, 127], sums shifted right by
// nnue.HiddenShift), from a sample's features without a xiangqi.Position.
// It is got from the network's Float values, each times its scale: the
// file's integers (TestIntNetMatchesNNUE holds it to Net.EvaluateFull).
type intNet struct {
	sizes nnue.Sizes
	ftW   []int16
	ftB   []int16
	w1    []int8
	b1    []int32
	w2    []int8
	b2    []int32
	w3    []int8
	b3    int32
}

func intNetOf(n *nnue.Net) *intNet {
	f := n.Float()
	q := &intNet{sizes: f.Sizes}
	r := func(x float32, scale float64) float64 { return math.Round(float64(x) * scale) }
	q16 := func(src []float32) []int16 {
		dst := make([]int16, len(src))
		for i, x := range src {
			dst[i] = int16(r(x, nnue.FTScale))
		}
		return dst
	}
	q8 := func(src []float32, scale float64) []int8 {
		dst := make([]int8, len(src))
		for i, x := range src {
			dst[i] = int8(r(x, scale))
		}
		return dst
	}
	q32 := func(src []float32, scale float64) []int32 {
		dst := make([]int32, len(src))
		for i, x := range src {
			dst[i] = int32(r(x, scale))
		}
		return dst
	}
	const hiddenBias = nnue.FTScale * nnue.HiddenWeightScale
	const outW = float64(nnue.OutputScale*nnue.OutputDiv) / nnue.FTScale
	q.ftW, q.ftB = q16(f.FTWeights), q16(f.FTBias)
	q.w1, q.b1 = q8(f.W1, nnue.HiddenWeightScale), q32(f.B1, hiddenBias)
	q.w2, q.b2 = q8(f.W2, nnue.HiddenWeightScale), q32(f.B2, hiddenBias)
	q.w3 = q8(f.W3, outW)
	q.b3 = int32(r(f.B3, nnue.OutputScale*nnue.OutputDiv))
	return q
}

type intScratch struct {
	acc []int16 // 2*L1
	x   []int32 // 2*L1, clipped
	h1  []int32 // L2
}

func newIntScratch(s nnue.Sizes) intScratch {
	return intScratch{acc: make([]int16, 2*s.L1), x: make([]int32, 2*s.L1), h1: make([]int32, s.L2)}
}

// eval returns the evaluation in centi-units from the side to move's
// view of the position whose side to move has the features us and the
// other side them.
func (q *intNet) eval(us, them []uint16, sc *intScratch) int {
	l1 := q.sizes.L1
	for h, feats := range [2][]uint16{us, them} {
		a := sc.acc[h*l1 : h*l1+l1]
		copy(a, q.ftB)
		for _, f := range feats {
			row := q.ftW[int(f)*l1 : int(f)*l1+l1]
			for i := range a {
				a[i] += row[i]
			}
		}
	}
	for i, a := range sc.acc {
		sc.x[i] = int32(min(max(a, 0), nnue.FTScale))
	}
	n := 2 * l1
	for o := range sc.h1 {
		row := q.w1[o*n : o*n+n]
		s := q.b1[o]
		for i, x := range sc.x {
			s += x * int32(row[i])
		}
		sc.h1[o] = clampAct(s >> nnue.HiddenShift)
	}
	l2 := q.sizes.L2
	out := q.b3
	for j := range q.sizes.L3 {
		row := q.w2[j*l2 : j*l2+l2]
		s := q.b2[j]
		for i, h := range sc.h1 {
			s += h * int32(row[i])
		}
		out += clampAct(s>>nnue.HiddenShift) * int32(q.w3[j])
	}
	return int(out / nnue.OutputDiv)
}

func clampAct(x int32) int32 { return min(max(x, 0), nnue.FTScale) }
