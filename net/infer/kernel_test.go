package infer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomTile builds a tile with random geometry over fresh buffers, for
// panel width nr. With alias set the residual is the output buffer itself,
// as in the second convolution of a residual block.
func randomTile(rng *rand.Rand, nr int, alias bool) *tile {
	nseg := 1 + rng.IntN(3)
	seglen := 1 + rng.IntN(70)
	segstride := rng.IntN(2 * seglen)
	span := (nseg-1)*segstride + seglen
	t := &tile{nseg: nseg, seglen: seglen, segstride: segstride, relu: rng.IntN(2) == 0,
		aoff: make([]int, mr), coff: make([]int, mr)}
	t.a = randSlice(rng, span+rng.IntN(100))
	t.w = randSlice(rng, nseg*seglen*nr)
	t.bias = randSlice(rng, nr)
	t.c = randSlice(rng, mr*nr+rng.IntN(64))
	for r := 0; r < mr; r++ {
		t.aoff[r] = rng.IntN(len(t.a) - span + 1)
	}
	// Distinct output rows (rows of one tile never share outputs).
	for _, r := range rng.Perm(mr) {
		t.coff[r] = r * nr
	}
	shift := rng.IntN(len(t.c) - mr*nr + 1)
	for r := range t.coff {
		t.coff[r] += shift
	}
	switch {
	case alias:
		t.res = t.c
	case rng.IntN(2) == 0:
		t.res = randSlice(rng, len(t.c))
	}
	return t
}

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

func cloneTile(t *tile) *tile {
	u := *t
	u.c = append([]float32(nil), t.c...)
	switch {
	case t.res == nil:
	case &t.res[0] == &t.c[0]:
		u.res = u.c
	default:
		u.res = append([]float32(nil), t.res...)
	}
	return &u
}

// TestKernelsMatchTwin runs every kernel of this build against kernelRef,
// its plain-loop twin, on random tiles.
func TestKernelsMatchTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range kernels {
		for i := 0; i < 500; i++ {
			want := randomTile(rng, k.nr, i%3 == 0)
			got := cloneTile(want)
			kernelRef(want, k.nr)
			k.run(got)
			// Both sum up to 3*70 products of N(0,1) values; float32
			// rounding in a different order (and FMA) stays far below
			// this bound.
			for j := range want.c {
				if d := math.Abs(float64(got.c[j] - want.c[j])); d > 1e-4 {
					t.Fatalf("%s, tile %d (nseg %d, seglen %d, segstride %d, relu %v, residual %v): c[%d] = %g, twin says %g",
						k.name, i, want.nseg, want.seglen, want.segstride, want.relu, want.res != nil, j, got.c[j], want.c[j])
				}
			}
		}
	}
}

func TestCheckTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range kernels {
		for _, spoil := range []func(*tile){
			func(t *tile) { t.aoff[2] = len(t.a) },
			func(t *tile) { t.aoff[5] = -1 },
			func(t *tile) { t.coff[0] = len(t.c) - k.nr + 1 },
			func(t *tile) { t.w = t.w[:len(t.w)-1] },
			func(t *tile) { t.bias = t.bias[:k.nr-1] },
			func(t *tile) { t.aoff = t.aoff[:mr-1] },
			func(t *tile) { t.res = t.res[:0:0] },
		} {
			tl := randomTile(rng, k.nr, true)
			spoil(tl)
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: a tile out of bounds did not panic", k.name)
					}
				}()
				k.run(tl)
			}()
		}
	}
}
