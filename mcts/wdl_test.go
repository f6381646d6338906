package mcts

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tabula-zero/tabula/game/connect4"
)

// wdlForwarder is a network with the WDL head for Connect Four: uniform
// logits, and for each position win, draw and loss probabilities drawn
// from a hash of its planes. It records what it returned with the
// position's ply (the stones on the board), so that a test can average
// them from the root's view.
type wdlForwarder struct {
	wdl   bool // has the head
	evals []recordedWDL
}

type recordedWDL struct {
	ply     int
	w, d, l float32
}

func (f *wdlForwarder) HasWDL() bool { return f.wdl }

func (f *wdlForwarder) Forward(planes []float32, n int, policy, value []float32) error {
	return f.ForwardWDL(planes, n, policy, value, make([]float32, 3*n))
}

func (f *wdlForwarder) ForwardWDL(planes []float32, n int, policy, value, wdl []float32) error {
	size := len(planes) / n
	clear(policy)
	for i := range n {
		h, stones := uint64(1469598103934665603), 0
		for j, x := range planes[i*size : (i+1)*size] {
			if x != 0 {
				h = (h ^ uint64(j)) * 1099511628211
				stones++
			}
		}
		r := rand.New(rand.NewPCG(h, 7))
		d := 0.05 + 0.9*r.Float32()
		w := (1 - d) * r.Float32()
		l := 1 - d - w
		wdl[3*i], wdl[3*i+1], wdl[3*i+2] = w, d, l
		value[i] = w - l
		f.evals = append(f.evals, recordedWDL{stones, w, d, l})
	}
	return nil
}

// The root's WDL is the mean of the evaluations backed up through it,
// each from the root's side (W and L swapped a ply below it), in the
// one-at-a-time, batched and Gumbel searches; W - L is the root value.
// No game ends within the searched plies, so every visit is an
// evaluation.
func TestRootWDLIsMeanOfEvaluations(t *testing.T) {
	for _, c := range []struct {
		name     string
		capacity int
		gumbel   bool
	}{{"puct", 1, false}, {"batched", 4, false}, {"gumbel", 1, true}} {
		t.Run(c.name, func(t *testing.T) {
			f := &wdlForwarder{wdl: true}
			cfg := DefaultConfig()
			cfg.Gumbel = c.gumbel
			ev := NewNetBatchEvaluator(f, connect4.Encoder{}, c.capacity)
			tree := NewTree(cfg, ev, connect4.New(), rand.New(rand.NewPCG(1, 2)))
			res, err := tree.Search(context.Background(), 60, false)
			if err != nil {
				t.Fatal(err)
			}
			if !res.HasWDL {
				t.Fatal("no WDL from an evaluator with the WDL head")
			}
			if got, want := int(tree.root.visits), len(f.evals); got != want {
				t.Fatalf("%d root visits, %d evaluations: a visit was no evaluation", got, want)
			}
			var w, d, l float64
			for _, e := range f.evals {
				if e.ply%2 == 1 {
					e.w, e.l = e.l, e.w
				}
				w, d, l = w+float64(e.w), d+float64(e.d), l+float64(e.l)
			}
			n := float64(len(f.evals))
			w, d, l = w/n, d/n, l/n
			got := res.WDL
			if math.Abs(float64(got.Win)-w) > 1e-4 || math.Abs(float64(got.Draw)-d) > 1e-4 || math.Abs(float64(got.Loss)-l) > 1e-4 {
				t.Errorf("root WDL %+v, the mean of %d evaluations %.5f %.5f %.5f", got, len(f.evals), w, d, l)
			}
			if math.Abs(float64(got.Win-got.Loss-res.Value)) > 1e-4 {
				t.Errorf("W - L = %v, root value %v", got.Win-got.Loss, res.Value)
			}
		})
	}
}

// A network without the WDL head gives no WDL, through the tree and the
// raw policy; with the head, the raw policy's WDL is its evaluation's.
func TestWDLOnlyWithTheHead(t *testing.T) {
	for _, head := range []bool{false, true} {
		f := &wdlForwarder{wdl: head}
		ev := NewNetEvaluator(f, connect4.Encoder{})
		if ev.Draws() != head {
			t.Errorf("head %v: Draws() = %v", head, ev.Draws())
		}
		m := NewMover(DefaultConfig(), ev, 1)
		res, err := m.Search(context.Background(), connect4.New(), Limits{Sims: 10})
		if err != nil {
			t.Fatal(err)
		}
		if res.HasWDL != head {
			t.Errorf("head %v: search HasWDL %v", head, res.HasWDL)
		}
		f.evals = nil
		raw, err := m.Search(context.Background(), connect4.New(), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if raw.HasWDL != head {
			t.Errorf("head %v: raw policy HasWDL %v", head, raw.HasWDL)
		}
		if head {
			e := f.evals[0]
			if math.Abs(float64(raw.WDL.Win-e.w)) > 1e-6 || math.Abs(float64(raw.WDL.Draw-e.d)) > 1e-6 || math.Abs(float64(raw.WDL.Loss-e.l)) > 1e-6 {
				t.Errorf("raw policy WDL %+v, its evaluation %+v", raw.WDL, e)
			}
		}
	}
}
