package nnuetrain

import (
	"math"
	"math/rand/v2"
	"testing"
)

// FitK finds the scale results were drawn with.
func TestFitK(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, want := range []float64{150, 400, 1200} {
		var samples []Sample
		for range 40000 {
			score := int16(rng.NormFloat64() * 600)
			var r int8 = -1
			if rng.Float64() < sigmoid(float64(score)/want) {
				r = 1
			}
			samples = append(samples, Sample{Score: score, Result: r})
		}
		k, mse := FitK(samples, 100000)
		if math.Abs(k-want) > 0.1*want || mse <= 0 {
			t.Errorf("results drawn at K %v: fitted %v (error %v)", want, k, mse)
		}
	}
	if k, mse := FitK(nil, 10); k != 0 || mse != 0 {
		t.Errorf("no samples: %v, %v", k, mse)
	}
}
