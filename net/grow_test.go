package net

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGrowKeepsTheFunction: a network grown wider, deeper or both gives
// the policy logits and value of the network it grew from (the reference
// forward pass, running batch-norm statistics), for both policy heads.
func TestGrowKeepsTheFunction(t *testing.T) {
	for _, spec := range []Spec{tinySpec(), fromToSpec()} {
		p := randomParams(t, spec, 3)
		rng := rand.New(rand.NewPCG(1, 2))
		planes := make([]float32, 5*spec.Channels*spec.Height*spec.Width)
		for i := range planes {
			planes[i] = float32(rng.IntN(2))
		}
		wantP, wantV := p.Reference(planes, 5)
		for _, grow := range [][2]int{{0, 0}, {0, 5}, {2, 0}, {3, 8}} {
			to := spec
			to.Blocks += grow[0]
			to.Filters += grow[1]
			g, err := Grow(p, to, 7)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Check(); err != nil {
				t.Fatalf("%+v: the grown network fails its check: %v", grow, err)
			}
			gotP, gotV := g.Reference(planes, 5)
			for i := range wantP {
				if d := math.Abs(float64(gotP[i] - wantP[i])); d > 1e-4*(1+math.Abs(float64(wantP[i]))) {
					t.Fatalf("%s +%v: logit %d is %v, was %v", spec.PolicyHead, grow, i, gotP[i], wantP[i])
				}
			}
			for i := range wantV {
				if d := math.Abs(float64(gotV[i] - wantV[i])); d > 1e-5 {
					t.Fatalf("%s +%v: value %d is %v, was %v", spec.PolicyHead, grow, i, gotV[i], wantV[i])
				}
			}
		}
	}
}

// TestGrowBreaksSymmetry: the layers reading a copied channel read it and
// its copy with different weights (else the two would train alike), and
// the grown network does not share memory with the old one.
func TestGrowBreaksSymmetry(t *testing.T) {
	spec := tinySpec()
	p := randomParams(t, spec, 4)
	to := spec
	to.Filters = 2 * spec.Filters
	g, err := Grow(p, to, 9)
	if err != nil {
		t.Fatal(err)
	}
	// Each new tower channel copies an old one: the input convolution's
	// row of the copy is the old row. The policy convolution (1x1) must
	// read the copy and the original with different weights.
	rowLen := spec.Channels * 9
	source := func(j int) int {
		for c := range spec.Filters {
			if slices.Equal(g.Input.W[j*rowLen:(j+1)*rowLen], p.Input.W[c*rowLen:(c+1)*rowLen]) {
				return c
			}
		}
		t.Fatalf("new channel %d copies no old one", j)
		return -1
	}
	differ := false
	for j := spec.Filters; j < to.Filters; j++ {
		c := source(j)
		for o := range spec.PolicyChannels {
			if g.PolicyConv.W[o*to.Filters+j] != g.PolicyConv.W[o*to.Filters+c] {
				differ = true
			}
		}
	}
	if !differ {
		t.Fatal("every copy is read with the weight of its original")
	}
	g.ValueFC2.W[0] += 1
	g.Blocks[0].A.Gamma[0] += 1
	if q := randomParams(t, spec, 4); q.ValueFC2.W[0] != p.ValueFC2.W[0] || q.Blocks[0].A.Gamma[0] != p.Blocks[0].A.Gamma[0] {
		t.Fatal("changing the grown network changed the old one")
	}
}

func TestGrowRefuses(t *testing.T) {
	spec := tinySpec()
	p := randomParams(t, spec, 1)
	for name, to := range map[string]func(s Spec) Spec{
		"fewer filters":         func(s Spec) Spec { s.Filters--; return s },
		"fewer blocks":          func(s Spec) Spec { s.Blocks--; return s },
		"other policy channels": func(s Spec) Spec { s.PolicyChannels++; return s },
		"another game":          func(s Spec) Spec { s.Game = "other"; return s },
		"another value head":    func(s Spec) Spec { s.ValueHidden++; return s },
	} {
		if _, err := Grow(p, to(spec), 1); err == nil {
			t.Errorf("%s: grown", name)
		}
	}
}
