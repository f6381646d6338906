package nnuetrain

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The kernels in use (AVX2 where the CPU has it) give the Go twins' bits,
// at every length the trainer calls them with and the odd ones.
func TestKernelsMatchTwins(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for _, n := range []int{1, 7, 8, 31, 32, 33, 64, 100, 128, 512, 1000, 4096} {
		a, b := vec(n), vec(n)
		if got, want := dot(a, b), dotGo(a, b); math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("dot of %d: %v, twin %v", n, got, want)
		}
		var exact float64
		for i := range a {
			exact += float64(a[i]) * float64(b[i])
		}
		if got := dot(a, b); math.Abs(float64(got)-exact) > 1e-4*float64(n) {
			t.Errorf("dot of %d: %v, exactly %v", n, got, exact)
		}
		d1, d2 := vec(n), make([]float32, n)
		copy(d2, d1)
		add(d1, a)
		addGo(d2, a)
		for i := range d1 {
			if math.Float32bits(d1[i]) != math.Float32bits(d2[i]) {
				t.Fatalf("add of %d: [%d] %v, twin %v", n, i, d1[i], d2[i])
			}
		}
		axpy(0.37, b, d1)
		axpyGo(0.37, b, d2)
		for i := range d1 {
			if math.Float32bits(d1[i]) != math.Float32bits(d2[i]) {
				t.Fatalf("axpy of %d: [%d] %v, twin %v", n, i, d1[i], d2[i])
			}
		}
		// Adam: weights near and past the clip, gradients of every size,
		// moments from earlier steps (v >= 0), clipped or not.
		for _, clip := range []float32{0.5, float32(math.Inf(1))} {
			var state [2][4][]float32 // w, g, m, v of the kernel and the twin
			for k := range 4 {
				x := vec(n)
				for i := range x {
					switch k {
					case 1:
						x[i] *= float32(math.Pow(10, float64(rng.IntN(8)-6)))
					case 3:
						x[i] = x[i] * x[i] * 1e-4
					}
				}
				state[0][k], state[1][k] = x, slices.Clone(x)
			}
			a, b := state[0], state[1]
			adam(a[0], a[1], a[2], a[3], 1e-3, clip)
			adamGo(b[0], b[1], b[2], b[3], 1e-3, clip)
			for k := range 4 {
				for i := range a[k] {
					if math.Float32bits(a[k][i]) != math.Float32bits(b[k][i]) {
						t.Fatalf("adam of %d, clip %v: array %d [%d] %v, twin %v", n, clip, k, i, a[k][i], b[k][i])
					}
				}
			}
			for _, x := range a[0] {
				if x > clip || x < -clip {
					t.Fatalf("adam left %v past the clip %v", x, clip)
				}
			}
			for _, x := range a[1] {
				if x != 0 {
					t.Fatal("adam left a gradient")
				}
			}
		}
	}
}
