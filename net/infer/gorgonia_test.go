package infer

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/net/train"
)

// TestForwardMatchesGorgonia checks the fast path directly against the
// gorgonia model's eval-mode forward pass (train.Model.Forward), which is
// what training produces the parameters with, to the same tolerance as
// TestForwardMatchesReference.
func TestForwardMatchesGorgonia(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gorgonia graphs")
	}
	specs := append(allSpecs(t)[:3], oddSpecs[0], oddSpecs[2])
	for _, s := range specs {
		p := liveParams(t, s, 11)
		m, err := train.NewModel(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		n, err := New(p, 16)
		if err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int{1, 3, 16} {
			planes := randomPlanes(s, batch, uint64(20+batch))
			wantP, wantV, err := m.Forward(planes, batch)
			if err != nil {
				t.Fatal(err)
			}
			pol := make([]float32, batch*s.Actions)
			val := make([]float32, batch)
			if err := n.Forward(planes, batch, pol, val); err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%s/%s/b=%d", s.Game, n.Kernel(), batch)
			ep := compareTol(t, what+" policy", pol, wantP, policyTol(s))
			ev := compare(t, what+" value", val, wantV)
			t.Logf("%s: max abs error against gorgonia: policy %.2g, value %.2g", what, ep, ev)
		}
		m.ReleaseInference()
	}
}

// TestWDLMatchesGorgonia checks the WDL head of every preset's shape on
// positions of its game's play: the fast path's win, draw and loss
// probabilities and value against the gorgonia model's, and, in 8 bits,
// the tower's features change them little (the head's dense layers stay
// fp32).
func TestWDLMatchesGorgonia(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gorgonia graphs")
	}
	for _, name := range presets {
		s := withWDL(presetSpec(t, name))
		p := liveParams(t, s, 12)
		m, err := train.NewModel(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		n, err := New(p, 16)
		if err != nil {
			t.Fatal(err)
		}
		const batch = 16
		planes := realPlanes(t, s, batch, 40)
		wantP, wantV, wantW, err := m.ForwardWDL(planes, batch)
		if err != nil {
			t.Fatal(err)
		}
		pol, val, wdl := make([]float32, batch*s.Actions), make([]float32, batch), make([]float32, 3*batch)
		if err := n.ForwardWDL(planes, batch, pol, val, wdl); err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("%s/%s", s.Game, n.Kernel())
		compareTol(t, what+" policy", pol, wantP, policyTol(s))
		ev := compare(t, what+" value", val, wantV)
		ew := compare(t, what+" wdl", wdl, wantW)
		t.Logf("%s: max abs error against gorgonia: value %.2g, wdl %.2g", what, ev, ew)
		// Forward's values are ForwardWDL's.
		val2 := make([]float32, batch)
		if err := n.Forward(planes, batch, pol, val2); err != nil || !slices.Equal(val, val2) {
			t.Errorf("%s: Forward's values %v differ from ForwardWDL's %v (%v)", what, val2, val, err)
		}
		m.ReleaseInference()
	}
}
