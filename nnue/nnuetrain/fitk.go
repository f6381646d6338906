package nnuetrain

import "math"

// FitK returns the K that best predicts the games' results from the
// search's scores, sigmoid(score/K) against (result+1)/2 in squared error
// (Texel's method's scale), over at most maxSamples of samples spread
// evenly, with that error; 0, 0 for no samples. It is where -k's default
// comes from (docs/nnue.md), and what the command reports of its data.
func FitK(samples []Sample, maxSamples int) (k, mse float64) {
	if len(samples) == 0 {
		return 0, 0
	}
	stride := max(1, len(samples)/max(maxSamples, 1))
	errAt := func(k float64) float64 {
		var sum float64
		n := 0
		for i := 0; i < len(samples); i += stride {
			s := &samples[i]
			d := sigmoid(float64(s.Score)/k) - (float64(s.Result)+1)/2
			sum += d * d
			n++
		}
		return sum / float64(n)
	}
	// Golden-section search on log K over [10, 10^5] centi-units: the
	// error is unimodal in K for any data with both signs of scores.
	lo, hi := math.Log(10), math.Log(1e5)
	const phi = 0.6180339887498949
	a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
	fa, fb := errAt(math.Exp(a)), errAt(math.Exp(b))
	for hi-lo > 1e-4 {
		if fa <= fb {
			hi, b, fb = b, a, fa
			a = hi - phi*(hi-lo)
			fa = errAt(math.Exp(a))
		} else {
			lo, a, fa = a, b, fb
			b = lo + phi*(hi-lo)
			fb = errAt(math.Exp(b))
		}
	}
	k = math.Exp((lo + hi) / 2)
	return k, errAt(k)
}
