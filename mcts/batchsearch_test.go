package mcts

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/game/lion"
)

// batchOf makes an Evaluator a BatchEvaluator: each queued position is
// evaluated at once, its value handed out at Flush. It records the size of
// every batch.
type batchOf struct {
	ev       Evaluator
	capacity int
	values   []float32
	err      error
	sizes    []int
}

func (b *batchOf) Evaluate(p game.Position, moves []game.Move, priors []float32) (float32, error) {
	return b.ev.Evaluate(p, moves, priors)
}

func (b *batchOf) Capacity() int { return b.capacity }

func (b *batchOf) Queue(p game.Position, moves []game.Move, priors []float32) {
	v, err := b.ev.Evaluate(p, moves, priors)
	b.err = errors.Join(b.err, err)
	b.values = append(b.values, v)
}

func (b *batchOf) Flush(values []float32) error {
	defer func() { b.values, b.err = b.values[:0], nil }()
	if len(values) != len(b.values) {
		return errors.New("flush of another size than queued")
	}
	b.sizes = append(b.sizes, len(values))
	copy(values, b.values)
	return b.err
}

// checkTree checks what every finished search leaves: no virtual visit
// left, and each node with children visited once for its expansion plus
// once per visit of a child (a proven node takes its visits without
// passing them on, so it may have more).
func checkTree(t *testing.T, n *node) {
	t.Helper()
	if n.inflight != 0 {
		t.Fatalf("node %v: %d virtual visits left", n.move, n.inflight)
	}
	if len(n.children) == 0 {
		return
	}
	sum := int32(1)
	for i := range n.children {
		sum += n.children[i].visits
		checkTree(t, &n.children[i])
	}
	if sum != n.visits && (n.proven == unknown || sum > n.visits) {
		t.Fatalf("node %v: %d visits, 1 + its children's = %d", n.move, n.visits, sum)
	}
}

func TestBatchSearchInvariants(t *testing.T) {
	lp, _ := lion.New(nil)
	full := 0
	for _, start := range []game.Position{connect4.New(), lp} {
		for _, p := range gametest.RandomPositions(start, 6, 12, 7) {
			if p.Status().Over() {
				continue
			}
			cfg := DefaultConfig()
			cfg.Solver = false
			be := &batchOf{ev: keyEval{}, capacity: 8}
			tr := NewTree(cfg, be, p, rng(5))
			res, err := tr.Search(context.Background(), 400, false)
			if err != nil {
				t.Fatal(err)
			}
			if sum := totalVisits(res); sum != 400 || res.Simulations != 400 {
				t.Fatalf("%s: visits sum to %d over %d simulations, want 400", p, sum, res.Simulations)
			}
			checkTree(t, tr.root)
			if len(be.sizes) > 0 && slices.Max(be.sizes) == 8 {
				full++
			}
			// The same search again is the same search.
			be2 := &batchOf{ev: keyEval{}, capacity: 8}
			res2, err := NewTree(cfg, be2, p, rng(5)).Search(context.Background(), 400, false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Visits, res2.Visits) || res.Best != res2.Best {
				t.Fatalf("%s: two equal batch searches differ: %v and %v", p, res.Visits, res2.Visits)
			}
		}
	}
	if full < 6 {
		t.Fatalf("only %d searches filled a batch", full)
	}
}

// TestBatchSearchEvaluatorFails: a failed batch fails the search and
// leaves no virtual visit behind, every visit accounted for.
func TestBatchSearchEvaluatorFails(t *testing.T) {
	be := &batchOf{ev: keyEval{}, capacity: 8}
	tr := NewTree(DefaultConfig(), be, connect4.New(), rng(1))
	if _, err := tr.Search(context.Background(), 50, false); err != nil {
		t.Fatal(err)
	}
	be.ev = failing{}
	if _, err := tr.Search(context.Background(), 50, false); err == nil {
		t.Fatal("a failing evaluator did not fail the search")
	}
	checkTree(t, tr.root)
}

type failing struct{}

func (failing) Evaluate(game.Position, []game.Move, []float32) (float32, error) {
	return 0, errors.New("no network")
}

// TestNetBatchEvaluatorMatchesSingle: a batch through NetEvaluator gives
// each position what evaluating it alone gives, and a batch queued past
// its capacity fails and is emptied.
func TestNetBatchEvaluatorMatchesSingle(t *testing.T) {
	g, _ := game.Lookup("connect4")
	c, h, w := g.Encoder.Shape()
	f := &fakeNet{size: c * h * w, actions: g.Encoder.ActionSize()}
	e := NewNetBatchEvaluator(f, g.Encoder, 8)
	var ps []game.Position
	for _, p := range gametest.RandomPositions(connect4.New(), 7, 20, 11) {
		if !p.Status().Over() && len(ps) < 8 {
			ps = append(ps, p)
		}
	}
	if len(ps) < 8 {
		t.Fatalf("only %d positions", len(ps))
	}
	priors := make([][]float32, len(ps))
	for i, p := range ps {
		moves := p.GenerateMoves(nil)
		priors[i] = make([]float32, len(moves))
		e.Queue(p, moves, priors[i])
	}
	values := make([]float32, len(ps))
	calls := f.calls
	if err := e.Flush(values); err != nil {
		t.Fatal(err)
	}
	if f.calls != calls+1 {
		t.Fatalf("%d forward passes for one batch", f.calls-calls)
	}
	for i, p := range ps {
		wantP, wantV := direct(f, g.Encoder, p, p.GenerateMoves(nil))
		if values[i] != wantV || !slices.Equal(priors[i], wantP) {
			t.Fatalf("position %d: batch gives %v %v, alone %v %v", i, values[i], priors[i], wantV, wantP)
		}
	}
	for range 9 {
		e.Queue(ps[0], ps[0].GenerateMoves(nil), make([]float32, 7))
	}
	if err := e.Flush(make([]float32, 9)); err == nil {
		t.Fatal("a batch of 9 in an evaluator of 8 did not fail")
	}
	if _, err := e.Evaluate(ps[0], ps[0].GenerateMoves(nil), make([]float32, 7)); err != nil {
		t.Fatalf("the evaluator after a failed batch: %v", err)
	}
}
