package infer

import (
	"fmt"
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
