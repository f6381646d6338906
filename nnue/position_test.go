package nnue

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// The wrapper keeps every interface the searchers look for on a Xiangqi
// position: none is lost by wrapping.
func TestInterfacesKept(t *testing.T) {
	var _ alphabeta.Position = (*Position)(nil)
	for _, it := range []reflect.Type{
		reflect.TypeFor[alphabeta.Position](),
		reflect.TypeFor[alphabeta.NullMover](),
		reflect.TypeFor[alphabeta.MoveShortage](),
		reflect.TypeFor[alphabeta.QuietOrderer](),
		reflect.TypeFor[alphabeta.ExchangeEvaluator](),
		reflect.TypeFor[alphabeta.QuietChecker](),
		reflect.TypeFor[game.Perfter](),
	} {
		x := reflect.TypeFor[*xiangqi.Position]().Implements(it)
		if n := reflect.TypeFor[*Position]().Implements(it); x && !n {
			t.Errorf("*xiangqi.Position implements %v, *nnue.Position does not", it)
		}
	}
}

// checkAccumulators compares the current entry's accumulators, computed
// incrementally, with ones computed from scratch, and the evaluation with
// the network's full evaluation.
func checkAccumulators(t *testing.T, p *Position, where string) {
	t.Helper()
	v := p.Evaluate()
	for c := range 2 {
		want := make([]int16, p.net.sizes.L1)
		goKernels.update(want, p.net.ftB, p.net.ftW, AppendFeatures(nil, p.Position, game.Color(c)), nil)
		if !slices.Equal(p.acc(p.top, c), want) {
			t.Fatalf("%s: %s: perspective %d's accumulator differs from a refresh", where, p, c)
		}
	}
	if want := p.net.EvaluateFull(p.Position); v != want {
		t.Fatalf("%s: %s: Evaluate %d, from scratch %d", where, p, v, want)
	}
}

// walkCounts tallies what a random walk exercised, so that the test can
// insist it covered each case.
type walkCounts struct{ moves, captures, ownGeneral, nulls, unmakes, evals int }

// randomWalk makes, unmakes, passes and takes back passes at random
// through the wrapper, evaluating at a random third of the nodes (so that
// lazy chains of several plies form) and checking there.
func randomWalk(t *testing.T, p *Position, rng *rand.Rand, steps int, wc *walkCounts) {
	type made struct{ null bool }
	var line []made
	var moves []game.Move
	for range steps {
		r := rng.IntN(100)
		switch {
		case r < 22 && len(line) > 0:
			if line[len(line)-1].null {
				p.UnmakeNull()
			} else {
				p.Unmake()
			}
			line = line[:len(line)-1]
			wc.unmakes++
		case r < 30 && !p.InCheck() && (len(line) == 0 || !line[len(line)-1].null):
			p.MakeNull()
			line = append(line, made{null: true})
			wc.nulls++
		default:
			if p.Status().Over() {
				continue
			}
			moves = p.GenerateMoves(moves[:0])
			if len(moves) == 0 {
				continue
			}
			// Captures and general moves are rarer than the tests need:
			// prefer them.
			m := moves[rng.IntN(len(moves))]
			for _, c := range moves {
				_, ct := p.PieceAt(xiangqi.To(c))
				_, mt := p.PieceAt(xiangqi.From(c))
				if (ct != xiangqi.NoType || mt == xiangqi.King) && rng.IntN(3) == 0 {
					m = c
					break
				}
			}
			if _, ct := p.PieceAt(xiangqi.To(m)); ct != xiangqi.NoType {
				wc.captures++
			}
			if _, mt := p.PieceAt(xiangqi.From(m)); mt == xiangqi.King {
				wc.ownGeneral++
			}
			p.Make(m)
			line = append(line, made{})
			wc.moves++
		}
		if rng.IntN(3) == 0 {
			checkAccumulators(t, p, "random walk")
			wc.evals++
		}
	}
}

// Incremental accumulators equal a refresh from scratch at every node of
// random walks (moves, captures, general moves, passes, take-backs), lazy
// and eager, on every kernel set this CPU runs.
func TestIncrementalMatchesRefresh(t *testing.T) {
	n := NewRandom(11)
	for _, ks := range kernelSets {
		for _, lazy := range []bool{true, false} {
			var wc walkCounts
			rng := rand.New(rand.NewPCG(3, uint64(len(ks.name))))
			for g := range 6 {
				p := New(n, xiangqi.New(xiangqi.DefaultRules))
				p.k = &ks
				p.SetLazy(lazy)
				if g%2 == 1 { // start mid-game too, with the general off its centre
					xp, err := xiangqi.Parse("3k5/4a4/4b4/9/2p1c4/6R2/P3P4/2N6/4A4/3AK1B2 w - - 0 1", xiangqi.DefaultRules)
					if err != nil {
						t.Fatal(err)
					}
					p = New(n, xp)
					p.k = &ks
					p.SetLazy(lazy)
				}
				randomWalk(t, p, rng, 400, &wc)
			}
			t.Logf("%s, lazy %v: %+v", ks.name, lazy, wc)
			if wc.captures < 20 || wc.ownGeneral < 20 || wc.nulls < 20 || wc.unmakes < 100 || wc.evals < 300 {
				t.Errorf("%s: the walks did not cover every case: %+v", ks.name, wc)
			}
		}
	}
}

// Unmaking past the position the wrapper started from (moves made before
// it wrapped) leaves a stack that recomputes, not a wrong one.
func TestUnmakeBelowStart(t *testing.T) {
	xp := xiangqi.New(xiangqi.DefaultRules)
	for _, s := range []string{"h3e3", "h10g8", "h1g3", "c7c6"} {
		m, err := xp.ParseMove(s)
		if err != nil {
			t.Fatal(err)
		}
		xp.Make(m)
	}
	p := New(NewRandom(2), xp)
	checkAccumulators(t, p, "wrapped")
	for range 3 {
		p.Unmake()
		checkAccumulators(t, p, "below the start")
	}
	m, _ := p.ParseMove("b3b5")
	p.Make(m)
	checkAccumulators(t, p, "after a move from below the start")
}

// A checkedPosition checks the accumulators at every evaluation the
// search asks for.
type checkedPosition struct {
	*Position
	t     *testing.T
	evals *int
}

func (c checkedPosition) Evaluate() int {
	checkAccumulators(c.t, c.Position, "search")
	*c.evals++
	return c.Position.Evaluate()
}

func (c checkedPosition) Clone() game.Position {
	return checkedPosition{c.Position.Clone().(*Position), c.t, c.evals}
}

// searchPositions are middle-game and endgame positions for the searches.
var searchPositions = []string{
	xiangqi.StartFEN,
	"r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R w - - 4 3",
	"2bak4/4a4/4b1n2/p3p3p/2p3p2/9/P1P3P1P/2N1C4/4A4/2BAK1B2 w - - 0 1",
	"3k5/4a4/4b4/9/2p1c4/6R2/P3P4/2N6/4A4/3AK1B2 w - - 0 1",
	"4k4/9/9/9/9/9/9/9/4A4/3AK1R2 b - - 0 1",
}

// The alphabeta searcher runs on the wrapper with the engine's Xiangqi
// options (null moves, quiescence with checks, SEE): incremental equals
// refresh at every evaluation, the move is legal, and the search is the
// same lazy and eager.
func TestAlphaBetaOnWrapper(t *testing.T) {
	n := NewRandom(5)
	for _, fen := range searchPositions {
		var results [2]alphabeta.Result
		for i, lazy := range []bool{true, false} {
			xp, err := xiangqi.Parse(fen, xiangqi.DefaultRules)
			if err != nil {
				t.Fatal(err)
			}
			p := New(n, xp)
			p.SetLazy(lazy)
			evals := 0
			s, err := alphabeta.New(alphabeta.DefaultOptionsFor("xiangqi"))
			if err != nil {
				t.Fatal(err)
			}
			depth := 4
			if testing.Short() {
				depth = 3
			}
			results[i] = s.Search(context.Background(), checkedPosition{p, t, &evals}, alphabeta.Limits{Depth: depth}, nil)
			r := results[i]
			if !slices.Contains(xp.GenerateMoves(nil), r.Move) {
				t.Fatalf("%s: search returned %s, not a legal move", fen, xp.FormatMove(r.Move))
			}
			if p.String() != fen || p.top != 0 {
				t.Fatalf("%s: the search left the position at %s, stack entry %d", fen, p, p.top)
			}
			if evals < 100 {
				t.Errorf("%s: only %d evaluations checked", fen, evals)
			}
		}
		a, b := results[0], results[1]
		if a.Move != b.Move || a.Score != b.Score || a.Nodes != b.Nodes || !slices.Equal(a.PV, b.PV) {
			t.Errorf("%s: lazy search %v %d (%d nodes), eager %v %d (%d nodes)", fen, a.PV, a.Score, a.Nodes, b.PV, b.Score, b.Nodes)
		}
	}
}

// Lazy SMP's helpers search clones of the wrapper: the search with two
// threads runs and returns a legal move.
func TestAlphaBetaThreads(t *testing.T) {
	o := alphabeta.DefaultOptionsFor("xiangqi")
	o.Threads = 2
	s, err := alphabeta.New(o)
	if err != nil {
		t.Fatal(err)
	}
	p := New(NewRandom(5), xiangqi.New(xiangqi.DefaultRules))
	r := s.Search(context.Background(), p, alphabeta.Limits{Nodes: 30000}, nil)
	if !slices.Contains(p.GenerateMoves(nil), r.Move) || len(r.ThreadNodes) != 2 || r.ThreadNodes[1] == 0 {
		t.Errorf("two threads: move %s, thread nodes %v", p.FormatMove(r.Move), r.ThreadNodes)
	}
}

// perftCases reads the published counts the xiangqi package tests with.
func perftCases(t *testing.T) [][2]any {
	f, err := os.Open("../game/xiangqi/testdata/perft.epd")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][2]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		parts := strings.Split(line, ";")
		var counts []uint64
		for _, d := range parts[1:] {
			fs := strings.Fields(d)
			n, err := strconv.ParseUint(fs[len(fs)-1], 10, 64)
			if err != nil {
				t.Fatalf("bad count %q", d)
			}
			counts = append(counts, n)
		}
		out = append(out, [2]any{strings.TrimSpace(parts[0]), counts})
	}
	return out
}

// perftChecked counts leaves through the wrapper's Make and Unmake,
// checking the accumulators at every leaf of the last ply when check.
func perftChecked(t *testing.T, p *Position, depth int, check bool) uint64 {
	if depth == 0 {
		if check {
			checkAccumulators(t, p, "perft leaf")
		}
		return 1
	}
	var n uint64
	for _, m := range p.GenerateMoves(nil) {
		p.Make(m)
		n += perftChecked(t, p, depth-1, check)
		p.Unmake()
	}
	return n
}

// Perft through the wrapper equals the published counts (the
// accumulators checked at every leaf of the shallower depths), and the
// wrapper's stack is back where it started.
func TestPerftThroughWrapper(t *testing.T) {
	n := NewRandom(9)
	for _, c := range perftCases(t) {
		fen, counts := c[0].(string), c[1].([]uint64)
		xp, err := xiangqi.Parse(fen, xiangqi.DefaultRules)
		if err != nil {
			t.Fatal(err)
		}
		p := New(n, xp)
		maxDepth := 3
		if testing.Short() {
			maxDepth = 2
		}
		for d := 1; d <= min(maxDepth, len(counts)); d++ {
			if got := perftChecked(t, p, d, d <= 2); got != counts[d-1] {
				t.Errorf("%s: perft(%d) through the wrapper = %d, want %d", fen, d, got, counts[d-1])
			}
			if got := game.PerftGeneric(p, d); got != counts[d-1] {
				t.Errorf("%s: generic perft(%d) = %d, want %d", fen, d, got, counts[d-1])
			}
		}
		if p.String() != fen || p.top != 0 {
			t.Errorf("%s: perft left %s at stack entry %d", fen, p, p.top)
		}
	}
}

// A clone is independent: moves on either leave the other's position and
// evaluation as they were, and each evaluates correctly.
func TestCloneIndependent(t *testing.T) {
	p := New(NewRandom(4), xiangqi.New(xiangqi.DefaultRules))
	rng := rand.New(rand.NewPCG(8, 8))
	var wc walkCounts
	randomWalk(t, p, rng, 30, &wc)
	fen, v := p.String(), p.Evaluate()
	q := p.Clone().(*Position)
	if q.String() != fen || q.Evaluate() != v {
		t.Fatalf("the clone is %s (%d), the original %s (%d)", q, q.Evaluate(), fen, v)
	}
	randomWalk(t, q, rng, 200, &wc)
	if p.String() != fen || p.Evaluate() != v {
		t.Errorf("moves on the clone changed the original: %s (%d), was %s (%d)", p, p.Evaluate(), fen, v)
	}
	qfen, qv := q.String(), q.Evaluate()
	randomWalk(t, p, rng, 200, &wc)
	if q.String() != qfen || q.Evaluate() != qv {
		t.Errorf("moves on the original changed the clone")
	}
	// The clone's history came along: it takes back below its start.
	for range 3 {
		if len(q.GenerateMoves(nil)) == 0 {
			break
		}
		q.Unmake()
		checkAccumulators(t, q, "clone below its start")
	}
	// Wrap copies the caller's position.
	xp := xiangqi.New(xiangqi.DefaultRules)
	w, err := Wrap(p.Net(), xp)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := w.ParseMove("h3e3")
	w.Make(m)
	if xp.String() != xiangqi.StartFEN {
		t.Errorf("a move on the wrapped copy changed the caller's position")
	}
	if _, err := Wrap(p.Net(), nil); err == nil {
		t.Errorf("Wrap of nil did not fail")
	}
}

// Making, evaluating and taking back allocate nothing once the stack has
// grown.
func TestNoAllocations(t *testing.T) {
	p := New(NewRandom(1), xiangqi.New(xiangqi.DefaultRules))
	var moves []game.Move
	line := func() {
		for range 40 {
			moves = p.GenerateMoves(moves[:0])
			if len(moves) == 0 {
				break
			}
			p.Make(moves[len(moves)/2])
			p.Evaluate()
		}
		p.MakeNull()
		p.Evaluate()
		p.UnmakeNull()
		for p.top > 0 {
			p.Unmake()
			p.Evaluate()
		}
	}
	moves = make([]game.Move, 0, xiangqi.MaxMoves)
	line()
	if a := testing.AllocsPerRun(5, line); a != 0 {
		t.Errorf("%.1f allocations a line of 40 plies", a)
	}
}
