package mcts

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/game/gametest"
)

// fakeNet computes logits and values from the planes alone, row by row,
// so batched and single evaluation must agree exactly.
type fakeNet struct {
	size, actions int
	calls         int
}

func (f *fakeNet) Forward(planes []float32, n int, policy, value []float32) error {
	f.calls++
	for i := 0; i < n; i++ {
		var s float32
		for j, x := range planes[i*f.size : (i+1)*f.size] {
			s += x * float32(j%7+1)
		}
		for a := 0; a < f.actions; a++ {
			policy[i*f.actions+a] = float32(math.Sin(float64(s) + float64(a)))
		}
		value[i] = float32(math.Tanh(float64(s) / 50))
	}
	return nil
}

// direct evaluates one position with the fake net through the batch-1
// evaluator, no batcher.
func direct(f *fakeNet, enc game.Encoder, p game.Position, moves []game.Move) ([]float32, float32) {
	priors := make([]float32, len(moves))
	v, err := NewNetEvaluator(f, enc).Evaluate(p, moves, priors)
	if err != nil {
		panic(err)
	}
	return priors, v
}

func TestBatcherMatchesDirect(t *testing.T) {
	g, _ := game.Lookup("connect4")
	c, h, w := g.Encoder.Shape()
	f := &fakeNet{size: c * h * w, actions: g.Encoder.ActionSize()}
	b, err := NewBatcher(f, g.Encoder, BatchConfig{MaxBatch: 16, FlushAfter: time.Millisecond, CacheSize: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	loop := make(chan error, 1)
	go func() { loop <- b.Run(ctx) }()
	positions := gametest.RandomPositions(connect4.New(), 20, 20, 1)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for gor := 0; gor < 32; gor++ {
		wg.Add(1)
		go func(gor int) {
			defer wg.Done()
			ref := &fakeNet{size: f.size, actions: f.actions}
			for i := gor % 5; i < len(positions); i += 3 {
				p := positions[i].Clone()
				moves := p.GenerateMoves(nil)
				if len(moves) == 0 {
					continue
				}
				priors := make([]float32, len(moves))
				v, err := b.Evaluate(p, moves, priors)
				if err != nil {
					errs <- err
					return
				}
				wantP, wantV := direct(ref, g.Encoder, p, moves)
				if v != wantV {
					errs <- errors.New("value differs from the direct evaluation")
					return
				}
				for k := range priors {
					if priors[k] != wantP[k] {
						errs <- errors.New("priors differ from the direct evaluation")
						return
					}
				}
			}
		}(gor)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := b.Stats()
	t.Logf("requests %d, cache hits %.0f%%, mean batch %.1f", st.Requests, 100*st.HitRate(), st.MeanBatch())
	if st.CacheHits == 0 || st.MeanBatch() <= 1 {
		t.Errorf("expected cache hits and batches above 1: %+v", st)
	}
	if st.Positions+st.CacheHits != st.Requests {
		t.Errorf("positions %d + hits %d != requests %d", st.Positions, st.CacheHits, st.Requests)
	}
	cancel()
	if err := <-loop; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
	p := connect4.New()
	if _, err := b.Evaluate(p, p.GenerateMoves(nil), make([]float32, 7)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Evaluate after stop: %v", err)
	}
}

// TestSelfPlayThroughBatcher: games searched concurrently through one
// batcher give the same moves as the same games searched alone.
func TestSelfPlayThroughBatcher(t *testing.T) {
	g, _ := game.Lookup("connect4")
	c, h, w := g.Encoder.Shape()
	f := &fakeNet{size: c * h * w, actions: g.Encoder.ActionSize()}
	play := func(ev Evaluator, seed uint64) []game.Move {
		r := rng(seed)
		tr := NewTree(DefaultConfig(), ev, connect4.New(), r)
		var ms []game.Move
		for !tr.Position().Status().Over() {
			res, err := tr.Search(context.Background(), 32, true)
			if err != nil {
				t.Error(err)
				return nil
			}
			m := Pick(res, 1, r)
			ms = append(ms, m)
			tr.Advance(m)
		}
		return ms
	}
	b, _ := NewBatcher(f, g.Encoder, BatchConfig{MaxBatch: 8})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go b.Run(ctx)
	results := make([][]game.Move, 6)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func(i int) { defer wg.Done(); results[i] = play(b, uint64(i)) }(i)
	}
	wg.Wait()
	for i := range results {
		alone, _ := NewBatcher(&fakeNet{size: f.size, actions: f.actions}, g.Encoder, BatchConfig{MaxBatch: 1})
		ctx2, cancel2 := context.WithCancel(context.Background())
		go alone.Run(ctx2)
		want := play(alone, uint64(i))
		cancel2()
		if len(want) != len(results[i]) {
			t.Fatalf("game %d differs when played alone", i)
		}
		for k := range want {
			if want[k] != results[i][k] {
				t.Fatalf("game %d differs at ply %d", i, k)
			}
		}
	}
}
