package mcts

import (
	"context"
	"math"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/connect4"
)

// keyEval is a deterministic stand-in for a network with uneven priors
// drawn from the position key.
type keyEval struct{}

func (keyEval) Evaluate(p game.Position, moves []game.Move, priors []float32) (float32, error) {
	var sum float32
	for i, m := range moves {
		x := (p.Key() ^ uint64(m)*0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
		priors[i] = 0.05 + float32(x>>40%1000)/1000
		sum += priors[i]
	}
	for i := range moves {
		priors[i] /= sum
	}
	return float32(int(p.Key()%601)-300) / 1000, nil
}

func totalVisits(r Result) int {
	n := 0
	for _, v := range r.Visits {
		n += v
	}
	return n
}

func TestMoverReusesTree(t *testing.T) {
	ctx := context.Background()
	s := NewMover(DefaultConfig(), keyEval{}, 1)
	p := connect4.New()
	r1, err := s.Search(ctx, p, Limits{Sims: 200})
	if err != nil {
		t.Fatal(err)
	}
	p.Make(r1.Best)
	p.Make(connect4.ColumnMove(0))
	r2, err := s.Search(ctx, p, Limits{Sims: 200})
	if err != nil {
		t.Fatal(err)
	}
	if n := totalVisits(r2); n <= 200 {
		t.Fatalf("after reuse the root children have %d visits, want more than the 200 new ones", n)
	}
	// A fresh mover from the same position sees only the new simulations.
	r3, err := NewMover(DefaultConfig(), keyEval{}, 1).Search(ctx, p, Limits{Sims: 200})
	if err != nil {
		t.Fatal(err)
	}
	if n := totalVisits(r3); n != 200 {
		t.Fatalf("fresh tree: %d visits, want 200", n)
	}
	// An unrelated position starts a new tree.
	q, _ := connect4.Parse("7777")
	r4, err := s.Search(ctx, q, Limits{Sims: 50})
	if err != nil {
		t.Fatal(err)
	}
	if n := totalVisits(r4); n != 50 {
		t.Fatalf("unrelated position: %d visits, want 50", n)
	}
}

func TestMoverRawPolicy(t *testing.T) {
	p := connect4.New()
	r, err := NewMover(DefaultConfig(), keyEval{}, 1).Search(context.Background(), p, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	priors := make([]float32, len(r.Moves))
	keyEval{}.Evaluate(p, r.Moves, priors)
	best := 0
	for i := range priors {
		if priors[i] > priors[best] {
			best = i
		}
	}
	if r.Best != r.Moves[best] || len(r.PV) != 1 || r.PV[0] != r.Best || totalVisits(r) != 0 {
		t.Fatalf("raw policy plays %d (pv %v, %d visits), the prior's argmax is %d", r.Best, r.PV, totalVisits(r), r.Moves[best])
	}
}

// An interruptible search gives the same tree as one search of the same
// simulations, stops where Done says, and answers after its context ends.
func TestMoverInterruptible(t *testing.T) {
	ctx := context.Background()
	p, _ := connect4.Parse("4453")
	whole, err := NewMover(DefaultConfig(), keyEval{}, 1).Search(ctx, p, Limits{Sims: 100})
	if err != nil {
		t.Fatal(err)
	}
	chunks := 0
	parts, err := NewMover(DefaultConfig(), keyEval{}, 1).Search(ctx, p, Limits{Sims: 100, Interruptible: true,
		Progress: func(Result) { chunks++ }})
	if err != nil {
		t.Fatal(err)
	}
	if parts.Simulations != 100 || totalVisits(parts) != totalVisits(whole) || parts.Best != whole.Best {
		t.Fatalf("in chunks: %d sims, %d visits, best %d; at once: %d visits, best %d",
			parts.Simulations, totalVisits(parts), parts.Best, totalVisits(whole), whole.Best)
	}
	if chunks < 2 {
		t.Fatalf("%d progress calls for 100 simulations", chunks)
	}
	deep, err := NewMover(DefaultConfig(), keyEval{}, 1).Search(ctx, p, Limits{Interruptible: true,
		Done: func(r Result) bool { return r.Simulations >= 3*chunkSims }})
	if err != nil || deep.Simulations != 3*chunkSims {
		t.Fatalf("Done after three chunks: %d simulations, %v", deep.Simulations, err)
	}
	// Unbounded, ended by its context: the result so far, not an error.
	stop, cancel := context.WithCancel(ctx)
	r, err := NewMover(DefaultConfig(), keyEval{}, 1).Search(stop, p, Limits{Interruptible: true,
		Progress: func(r Result) {
			if r.Simulations >= 5*chunkSims {
				cancel()
			}
		}})
	if err != nil || r.Simulations != 5*chunkSims || r.Best == game.NoMove {
		t.Fatalf("stopped search: %d simulations, best %d, %v", r.Simulations, r.Best, err)
	}
	// Ended before it began: the raw policy.
	r, err = NewMover(DefaultConfig(), keyEval{}, 1).Search(stop, p, Limits{Interruptible: true})
	if err != nil || r.Simulations != 0 || r.Best == game.NoMove {
		t.Fatalf("search stopped at once: %+v, %v", r, err)
	}
	// Without Interruptible a context that ends fails the search.
	if _, err := NewMover(DefaultConfig(), keyEval{}, 1).Search(stop, p, Limits{Sims: 10}); err != context.Canceled {
		t.Fatalf("cancelled search: %v", err)
	}
	g := DefaultConfig()
	g.Gumbel = true
	if _, err := NewMover(g, keyEval{}, 1).Search(ctx, p, Limits{Sims: 16, Interruptible: true}); err == nil {
		t.Fatal("an interruptible Gumbel search was accepted")
	}
}

// The network evaluator's priors are the softmax over the legal moves'
// logits, computed here in float64.
func TestNetEvaluatorMasksIllegalMoves(t *testing.T) {
	g, _ := game.Lookup("connect4")
	c, h, w := g.Encoder.Shape()
	f := &fakeNet{size: c * h * w, actions: g.Encoder.ActionSize()}
	p, _ := connect4.Parse("4444441") // column 4 full
	moves := p.GenerateMoves(nil)
	if len(moves) != 6 {
		t.Fatalf("%d legal moves, want 6", len(moves))
	}
	priors := make([]float32, len(moves))
	v, err := NewNetEvaluator(f, g.Encoder).Evaluate(p, moves, priors)
	if err != nil {
		t.Fatal(err)
	}
	planes := make([]float32, f.size)
	g.Encoder.Encode(p, planes)
	logits, value := make([]float32, f.actions), make([]float32, 1)
	f.Forward(planes, 1, logits, value)
	var sum float64
	for _, m := range moves {
		sum += math.Exp(float64(logits[g.Encoder.ActionIndex(p, m)]))
	}
	for i, m := range moves {
		want := math.Exp(float64(logits[g.Encoder.ActionIndex(p, m)])) / sum
		if math.Abs(float64(priors[i])-want) > 1e-6 {
			t.Errorf("prior of %s = %v, want %v", p.FormatMove(m), priors[i], want)
		}
	}
	if v != value[0] {
		t.Fatalf("value %v, want %v", v, value[0])
	}
}

func TestMostVisited(t *testing.T) {
	r := Result{Moves: []game.Move{10, 11, 12, 13}, Visits: []int{5, 9, 9, 1}, Policy: []float32{0.1, 0.2, 0.6, 0.1}}
	for _, c := range []struct {
		allowed []game.Move
		want    game.Move
	}{
		{nil, 12},                 // 11 and 12 tie on visits; 12 has more policy
		{[]game.Move{10, 13}, 10}, // the best allowed
		{[]game.Move{13}, 13},
		{[]game.Move{99}, game.NoMove},
	} {
		if got := r.MostVisited(c.allowed); got != c.want {
			t.Errorf("allowed %v: %d, want %d", c.allowed, got, c.want)
		}
	}
}
