package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// fromToLoss is the test's loss sum_r,i,j dy[r][i*hw+j] * (f_i^T W f_j +
// b[i*hw+j]) in float64, straight from the definition.
func fromToLoss(f, w, b, dy []float32, n, c, hw int) float64 {
	var loss float64
	for r := range n {
		fr := f[r*c*hw:]
		for i := range hw {
			for j := range hw {
				y := float64(b[i*hw+j])
				for a := range c {
					for d := range c {
						y += float64(fr[a*hw+i]) * float64(w[a*c+d]) * float64(fr[d*hw+j])
					}
				}
				loss += float64(dy[r*hw*hw+i*hw+j]) * y
			}
		}
	}
	return loss
}

// TestFromTo checks the head's output against its definition and every
// gradient against central differences of the definition's loss (exact
// up to rounding: the loss is quadratic in each value). The board is 2x3
// so that a swapped from and to, or a transposed W, shows.
func TestFromTo(t *testing.T) {
	const n, c, hw = 3, 4, 6
	rng := rand.New(rand.NewPCG(1, 2))
	vals := func(k int) []float32 {
		s := make([]float32, k)
		for i := range s {
			s[i] = float32(rng.NormFloat64())
		}
		return s
	}
	fv, wv, bv, dyv := vals(n*c*hw), vals(c*c), vals(hw*hw), vals(n*hw*hw)
	g := G.NewGraph()
	node := func(v []float32, shape ...int) *G.Node {
		return G.NewTensor(g, G.Float32, len(shape), G.WithShape(shape...), G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))))
	}
	f, w, b, r := node(fv, n, c*hw), node(wv, c, c), node(bv, hw*hw), node(dyv, n, hw*hw)
	must := mustNode(t)
	y := must(FromTo(f, w, b, hw))
	loss := must(G.Sum(must(G.HadamardProd(y, r))))
	grads, err := G.Grad(loss, f, w, b)
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g)
	for step := range 2 { // the second run reuses the op's buffers
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		out := y.Value().Data().([]float32)
		for k := range n * hw * hw {
			one := make([]float32, n*hw*hw)
			one[k] = 1
			if want := fromToLoss(fv, wv, bv, one, n, c, hw); math.Abs(float64(out[k])-want) > 1e-4*math.Max(1, math.Abs(want)) {
				t.Fatalf("step %d: y[%d] = %v, want %v", step, k, out[k], want)
			}
		}
		for gi, in := range [][]float32{fv, wv, bv} {
			got := grads[gi].Value().Data().([]float32)
			for k := range in {
				orig := in[k]
				in[k] = orig + 0.5
				up := fromToLoss(fv, wv, bv, dyv, n, c, hw)
				in[k] = orig - 0.5
				down := fromToLoss(fv, wv, bv, dyv, n, c, hw)
				in[k] = orig
				if want := up - down; math.Abs(float64(got[k])-want) > 1e-4*math.Max(1, math.Abs(want)) {
					t.Fatalf("step %d: gradient of input %d at %d = %v, want %v", step, gi, k, got[k], want)
				}
			}
		}
		vm.Reset()
	}
}

func TestFromToShapes(t *testing.T) {
	g := G.NewGraph()
	node := func(shape ...int) *G.Node {
		return G.NewTensor(g, G.Float32, len(shape), G.WithShape(shape...), G.WithInit(G.Zeroes()))
	}
	for _, c := range []struct {
		name    string
		f, w, b *G.Node
		hw      int
	}{
		{"features", node(2, 11), node(2, 2), node(25), 5},
		{"weights not square", node(2, 10), node(2, 3), node(25), 5},
		{"bias", node(2, 10), node(2, 2), node(24), 5},
		{"no squares", node(2, 0), node(2, 2), node(0), 0},
	} {
		if _, err := FromTo(c.f, c.w, c.b, c.hw); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
