package alphabeta_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// checkThreads checks the per-thread node counts of a search with n
// threads: one count per thread, each positive, summing to Nodes.
func checkThreads(t *testing.T, r alphabeta.Result, n int) {
	t.Helper()
	if len(r.ThreadNodes) != n {
		t.Fatalf("%d thread node counts, want %d", len(r.ThreadNodes), n)
	}
	var sum uint64
	for i, c := range r.ThreadNodes {
		if c == 0 {
			t.Errorf("thread %d searched no node", i)
		}
		sum += c
	}
	if sum != r.Nodes {
		t.Errorf("thread nodes %v sum to %d, result has %d", r.ThreadNodes, sum, r.Nodes)
	}
}

func TestThreadsOption(t *testing.T) {
	for _, n := range []int{-1, alphabeta.MaxThreads + 1} {
		o := alphabeta.DefaultOptions()
		o.Threads = n
		if _, err := alphabeta.New(o); err == nil || !strings.Contains(err.Error(), "threads out of range") {
			t.Errorf("Threads=%d: error %v", n, err)
		}
	}
	// One thread (the default, 0, or 1) reports one count.
	for _, n := range []int{0, 1} {
		o := alphabeta.DefaultOptions()
		o.Threads = n
		r := newSearcher(t, o).Search(context.Background(), xiangqi.New(xiangqi.DefaultRules), alphabeta.Limits{Depth: 3}, nil)
		checkThreads(t, r, 1)
	}
}

// With two threads every mate of a subset of the test file is found at
// Fairy-Stockfish's distance, and the move played is legal and a mating
// move: the helper's TT entries never corrupt the main thread's result.
func TestThreadsMates(t *testing.T) {
	for name, o := range map[string]alphabeta.Options{"classic": alphabeta.DefaultOptions(), "xiangqi": alphabeta.DefaultOptionsFor("xiangqi")} {
		o.Threads = 2
		s := newSearcher(t, o)
		for _, c := range every(xiangqiMates(t), 6) {
			p, fen, n := c.position(t), c.fen, c.n
			s.Clear()
			r := s.Search(context.Background(), p, alphabeta.Limits{Depth: mateDepth(n, name != "classic")}, nil)
			checkThreads(t, r, 2)
			if !game.IsLegal(p, r.Move) {
				t.Errorf("%s %s: illegal move %v", name, fen, r.Move)
				continue
			}
			if !alphabeta.IsMate(r.Score) || alphabeta.MateIn(r.Score) != n {
				t.Errorf("%s %s: score %s, want mate %d", name, fen, alphabeta.FormatScore(r.Score), n)
			}
			// The move keeps the mate: a one-thread search after it finds
			// the defender mated in n-1.
			p.Make(r.Move)
			if n == 1 {
				if st := p.Status(); st.Result != game.Loss {
					t.Errorf("%s %s: %s does not mate: %+v", name, fen, p.FormatMove(r.Move), st)
				}
				continue
			}
			q := newSearcher(t, alphabeta.DefaultOptions()).Search(context.Background(), p, alphabeta.Limits{Depth: 2*n + 1}, nil)
			if !alphabeta.IsMate(-q.Score) || alphabeta.MateIn(-q.Score) != n-1 {
				t.Errorf("%s %s: after %s the score is %s, want mated in %d", name, fen, p.FormatMove(r.Move), alphabeta.FormatScore(q.Score), n-1)
			}
		}
	}
}

// Both threads search a fixed-depth search of the start position, and the
// main thread's result is a legal move with a PV that starts with it.
func TestThreadsFixedDepth(t *testing.T) {
	o := alphabeta.DefaultOptionsFor("xiangqi")
	o.Threads = 2
	p := xiangqi.New(xiangqi.DefaultRules)
	key := p.Key()
	var infos int
	r := newSearcher(t, o).Search(context.Background(), p, alphabeta.Limits{Depth: 6}, func(i alphabeta.Info) {
		infos++
		if i.Depth != infos || i.Nodes == 0 {
			t.Errorf("info %d: depth %d nodes %d", infos, i.Depth, i.Nodes)
		}
	})
	checkThreads(t, r, 2)
	if p.Key() != key {
		t.Fatal("the position was not restored")
	}
	if r.Depth != 6 || infos != 6 {
		t.Errorf("depth %d after %d infos, want 6", r.Depth, infos)
	}
	if !game.IsLegal(p, r.Move) || len(r.PV) == 0 || r.PV[0] != r.Move {
		t.Errorf("move %v pv %v", r.Move, r.PV)
	}
	if alphabeta.IsMate(r.Score) {
		t.Errorf("score %s at the start", alphabeta.FormatScore(r.Score))
	}
}

// Multi-PV on a clock with two threads: the helper runs while the main
// thread scores the root moves, and every root move is scored.
func TestThreadsMultiPV(t *testing.T) {
	o := alphabeta.DefaultOptionsFor("xiangqi")
	o.Threads = 2
	p := xiangqi.New(xiangqi.DefaultRules)
	r := newSearcher(t, o).Search(context.Background(), p, alphabeta.Limits{Time: 50 * time.Millisecond, MultiPV: true}, nil)
	checkThreads(t, r, 2)
	if legal := p.GenerateMoves(nil); r.RootDepth < 1 || len(r.RootScores) != len(legal) {
		t.Fatalf("%d root scores at depth %d for %d legal moves", len(r.RootScores), r.RootDepth, len(legal))
	}
	if !game.IsLegal(p, r.Move) {
		t.Fatalf("illegal move %v", r.Move)
	}
}

// The node limit bounds the nodes of all threads (polled every 1024 nodes
// of the main thread, so with some slack).
func TestThreadsNodeLimit(t *testing.T) {
	o := alphabeta.DefaultOptionsFor("xiangqi")
	o.Threads = 2
	const limit = 100_000
	r := newSearcher(t, o).Search(context.Background(), xiangqi.New(xiangqi.DefaultRules), alphabeta.Limits{Nodes: limit}, nil)
	checkThreads(t, r, 2)
	if r.Nodes < limit || r.Nodes > 2*limit {
		t.Errorf("%d nodes (%v) for a limit of %d", r.Nodes, r.ThreadNodes, limit)
	}
}

// Many short searches with four threads, stopped every way (depth, nodes,
// time, a cancelled context), on positions along random games: every move
// is legal, every thread works, and no helper outlives its search. Run
// under -race this is the test of the shared TT.
func TestThreadsStress(t *testing.T) {
	before := runtime.NumGoroutine()
	o := alphabeta.DefaultOptionsFor("xiangqi")
	o.Threads = 4
	o.HashMiB = 1 // a small table: many replacements and collisions
	s := newSearcher(t, o)
	rng := rand.New(rand.NewPCG(1, 2))
	searches := 0
	for game_ := 0; game_ < 3; game_++ {
		p := xiangqi.New(xiangqi.DefaultRules)
		s.Clear()
		for ply := 0; ply < 30 && !p.Status().Over(); ply++ {
			ctx, cancel := context.WithCancel(context.Background())
			var lim alphabeta.Limits
			switch searches % 4 {
			case 0:
				lim.Depth = 1 + rng.IntN(4)
			case 1:
				lim.Nodes = uint64(500 + rng.IntN(20000))
			case 2:
				lim.Time = time.Duration(1+rng.IntN(10)) * time.Millisecond
			case 3:
				time.AfterFunc(time.Duration(rng.IntN(5))*time.Millisecond, cancel)
			}
			key := p.Key()
			r := s.Search(ctx, p, lim, nil)
			cancel()
			searches++
			checkThreads(t, r, 4)
			if p.Key() != key {
				t.Fatal("the position was not restored")
			}
			if !game.IsLegal(p, r.Move) {
				t.Fatalf("search %d: illegal move %v", searches, r.Move)
			}
			// Play a random move half the time, the search's otherwise.
			m := r.Move
			if rng.IntN(2) == 0 {
				ms := p.GenerateMoves(nil)
				m = ms[rng.IntN(len(ms))]
			}
			p.Make(m)
		}
	}
	// Helpers have returned when Search does; their goroutines end soon
	// after.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after %d searches, %d before", n, searches, before)
	}
}

// BenchmarkXiangqiThreads reports the time to depth 10 from the Xiangqi
// start position with one and two threads (fresh tables each run).
func BenchmarkXiangqiThreads(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads%d", n), func(b *testing.B) {
			var nodes uint64
			for b.Loop() {
				o := alphabeta.DefaultOptionsFor("xiangqi")
				o.Threads = n
				s, _ := alphabeta.New(o)
				r := s.Search(context.Background(), xiangqi.New(xiangqi.DefaultRules), alphabeta.Limits{Depth: 10}, nil)
				nodes += r.Nodes
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}
