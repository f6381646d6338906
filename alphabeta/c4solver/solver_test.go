package c4solver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game/connect4"
)

func newSolver(tb testing.TB, algo string, mib int) *Solver {
	tb.Helper()
	s, err := New(algo, mib)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func mustParse(tb testing.TB, moves string) *connect4.Position {
	tb.Helper()
	p, err := connect4.Parse(moves)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func TestNewUnknownAlgorithm(t *testing.T) {
	_, err := New("minimax", 1)
	if err == nil {
		t.Fatal("New accepted an unknown algorithm")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "c4solver: ") || !strings.Contains(msg, `"minimax"`) {
		t.Errorf("error %q", msg)
	}
	for _, a := range Algorithms() {
		if !strings.Contains(msg, a) {
			t.Errorf("error %q does not list %q", msg, a)
		}
		s, err := New(a, 0)
		if err != nil || s.Algorithm() != a {
			t.Errorf("New(%q): %v", a, err)
		}
	}
	if s := newSolver(t, Fastest, 0); s.TTBytes() != DefaultTTMiB<<20 {
		t.Errorf("default table %d bytes", s.TTBytes())
	}
	if s := newSolver(t, Fastest, 3); s.TTBytes() != 2<<20 {
		t.Errorf("3 MiB table is %d bytes, want 2 MiB", s.TTBytes())
	}
}

// The hand-worked positions of internal/ponsdata/README.md.
func TestHandWorked(t *testing.T) {
	s := newSolver(t, Fastest, 4)
	for _, c := range []struct {
		moves string
		score int
	}{
		{"2252576253462244111563365343671351441", -1},
		{"67152117737262713366376314254", 6},
		{"23163416124767223154467471272416755633", 0},
		{"445566", 18},   // the side to move wins with its 4th stone: 22-4
		{"4455661", -17}, // two threats on the bottom row: lost to the 5th stone
	} {
		if v := s.Solve(mustParse(t, c.moves)); v != c.score {
			t.Errorf("%s: score %d, want %d", c.moves, v, c.score)
		}
	}
}

// Finished positions score from the side to move's view; BestMove and
// Analyze have nothing to play.
func TestFinished(t *testing.T) {
	s := newSolver(t, Fastest, 1)
	won := mustParse(t, "4455667") // first player's four with stone 7
	if v := s.Solve(won); v != -(44-7)/2 {
		t.Errorf("won position scores %d, want %d", v, -(44-7)/2)
	}
	full := mustParse(t, "23163416124767223154467471272416755633") // a draw in L3_R1
	if !fillWithoutFour(full) {
		t.Fatal("no four-free way to fill the board")
	}
	if v := s.Solve(full); v != 0 {
		t.Errorf("full board %s scores %d", full, v)
	}
	for _, p := range []*connect4.Position{won, full} {
		if col, _ := s.BestMove(p); col != -1 {
			t.Errorf("%s: BestMove %d on a finished position", p, col)
		}
		for c, v := range s.Analyze(p) {
			if v != Invalid {
				t.Errorf("%s: Analyze[%d] = %d on a finished position", p, c, v)
			}
		}
	}
}

// checkSet solves every step-th position of set with algo and compares
// with Pons' scores.
func checkSet(t *testing.T, s *Solver, set string, step int, reset bool) {
	t.Helper()
	ps := loadSet(t, set, step)
	bad := 0
	var nodes uint64
	for _, tp := range ps {
		if reset {
			s.Reset()
		}
		n0 := s.Nodes()
		if v := s.Solve(tp.pos); v != tp.score {
			bad++
			if bad <= 10 {
				t.Errorf("%s %s line %d %s: score %d, Pons %d", s.Algorithm(), set, tp.line, tp.moves, v, tp.score)
			}
		}
		nodes += s.Nodes() - n0
	}
	if bad > 0 {
		t.Errorf("%s %s: %d of %d positions wrong", s.Algorithm(), set, bad, len(ps))
	}
	t.Logf("%s %s: %d positions, mean %.0f nodes", s.Algorithm(), set, len(ps), float64(nodes)/float64(len(ps)))
}

// The fastest algorithm against Pons' scores: every position of L3_R1 and
// L2_R1, every 10th of L1_R1 and L2_R2 (TABULA_LONG=1: every position of
// those and of L1_R2).
func TestPonsSets(t *testing.T) {
	s := newSolver(t, Fastest, DefaultTTMiB)
	sample := 10
	if long() {
		sample = 1
	}
	for _, c := range []struct {
		set  string
		step int
	}{
		{"Test_L3_R1", 1},
		{"Test_L2_R1", 1},
		{"Test_L1_R1", sample},
		{"Test_L2_R2", sample},
	} {
		t.Run(c.set, func(t *testing.T) { checkSet(t, s, c.set, c.step, true) })
	}
	if long() {
		t.Run("Test_L1_R2", func(t *testing.T) { checkSet(t, s, "Test_L1_R2", 1, true) })
	}
}

// The algorithm-equivalence invariant: every algorithm, fresh table per
// position, agrees with Pons on a sample of each set; and once more with
// the mirrored lookup and one table kept across the positions.
func TestAlgorithmsAgree(t *testing.T) {
	type tier struct {
		set  string
		step int
	}
	tiers := []tier{{"Test_L3_R1", 50}, {"Test_L2_R1", 50}, {"Test_L2_R2", 100}, {"Test_L1_R1", 100}, {"Test_L1_R2", 100}}
	if testing.Short() {
		tiers = []tier{{"Test_L3_R1", 100}, {"Test_L2_R1", 100}, {"Test_L2_R2", 250}, {"Test_L1_R1", 250}}
	}
	if long() {
		tiers = []tier{{"Test_L3_R1", 5}, {"Test_L2_R1", 5}, {"Test_L2_R2", 10}, {"Test_L1_R1", 10}, {"Test_L1_R2", 50}}
	}
	for _, algo := range Algorithms() {
		t.Run(algo, func(t *testing.T) {
			s := newSolver(t, algo, 16)
			for _, tr := range tiers {
				checkSet(t, s, tr.set, tr.step, true)
			}
		})
		t.Run(algo+"/mirror-shared-table", func(t *testing.T) {
			s := newSolver(t, algo, 16)
			s.SetMirror(true)
			for _, tr := range tiers[:4] {
				checkSet(t, s, tr.set, tr.step*2, false)
			}
		})
	}
}

// scoreAfter returns the exact score of p after column c, from p's side to
// move's view, with a fresh solver.
func scoreAfter(t *testing.T, p *connect4.Position, c int) int {
	t.Helper()
	if p.IsWinningMove(c) {
		return (connect4.Cells + 1 - p.Moves()) / 2
	}
	q := *p
	q.Make(connect4.ColumnMove(c))
	return -newSolver(t, Fastest, 1).Solve(&q)
}

var centreRank = [7]int{5, 3, 1, 0, 2, 4, 6} // position of each column in 4 3 5 2 6 1 7

// BestMove plays a move that keeps the score, the most central such one;
// Analyze gives every child's exact score. (Analyze skips L1_R1: there
// the inferior moves of an "easy" position can take seconds to solve.)
func TestBestMoveAndAnalyze(t *testing.T) {
	div := 1
	if testing.Short() {
		div = 2
	}
	for _, c := range []struct {
		set     string
		step    int
		analyze bool
	}{
		{"Test_L3_R1", 10, true},
		{"Test_L2_R1", 20, true},
		{"Test_L2_R2", 50, true},
		{"Test_L1_R1", 50, false},
	} {
		s := newSolver(t, Fastest, 16)
		set := c.set
		for _, tp := range loadSet(t, set, c.step*div) {
			col, score := s.BestMove(tp.pos)
			if score != tp.score {
				t.Errorf("%s %s: BestMove score %d, Pons %d", set, tp.moves, score, tp.score)
			}
			if col < 0 || !tp.pos.CanPlay(col) {
				t.Fatalf("%s %s: BestMove column %d", set, tp.moves, col)
			}
			if v := scoreAfter(t, tp.pos, col); v != tp.score {
				t.Errorf("%s %s: BestMove column %d scores %d after playing it, want %d", set, tp.moves, col+1, v, tp.score)
			}
			if !c.analyze {
				continue
			}
			a := s.Analyze(tp.pos)
			best := Invalid
			for c, v := range a {
				if !tp.pos.CanPlay(c) {
					if v != Invalid {
						t.Errorf("%s %s: Analyze[%d] = %d for a full column", set, tp.moves, c, v)
					}
					continue
				}
				if w := scoreAfter(t, tp.pos, c); v != w {
					t.Errorf("%s %s: Analyze[%d] = %d, solving the child gives %d", set, tp.moves, c, v, w)
				}
				best = max(best, v)
				if v == tp.score && centreRank[c] < centreRank[col] {
					t.Errorf("%s %s: BestMove %d, but the more central %d also scores %d", set, tp.moves, col+1, c+1, v)
				}
			}
			if best != tp.score {
				t.Errorf("%s %s: best Analyze score %d, Pons %d", set, tp.moves, best, tp.score)
			}
		}
	}
}

func TestCancel(t *testing.T) {
	ps := loadSet(t, "Test_L1_R2", 100)
	s := newSolver(t, Fastest, 16)
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stop now")
	cancel(stop)
	_, err := s.SolveContext(ctx, ps[0].pos)
	if !errors.Is(err, stop) || !strings.HasPrefix(err.Error(), "c4solver: ") {
		t.Fatalf("SolveContext on a cancelled context: %v", err)
	}
	if s.Nodes() > 2*(pollMask+1) {
		t.Errorf("cancelled search went on for %d nodes", s.Nodes())
	}
	if _, _, err := s.BestMoveContext(ctx, ps[0].pos); !errors.Is(err, stop) {
		t.Errorf("BestMoveContext: %v", err)
	}
	if _, err := s.AnalyzeContext(ctx, ps[0].pos); !errors.Is(err, stop) {
		t.Errorf("AnalyzeContext: %v", err)
	}
	// The table keeps only what was proved: the same solver is still exact.
	for _, tp := range ps[:3] {
		if v := s.Solve(tp.pos); v != tp.score {
			t.Errorf("after cancel: %s scores %d, Pons %d", tp.moves, v, tp.score)
		}
	}
}

func TestZeroAllocs(t *testing.T) {
	ps := loadSet(t, "Test_L2_R2", 100)
	s := newSolver(t, Fastest, 4)
	allocs := testing.AllocsPerRun(3, func() {
		for _, tp := range ps[:3] {
			s.Reset()
			s.Solve(tp.pos)
			s.BestMove(tp.pos)
			s.Analyze(tp.pos)
			SearchDepth(tp.pos, 6)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations", allocs)
	}
}

func TestMirrorKey(t *testing.T) {
	for _, moves := range []string{"", "1", "4", "12345", "1122335", "7654321", "2252576253462244111563365343671351441"} {
		var mirrored []byte
		for i := 0; i < len(moves); i++ {
			mirrored = append(mirrored, '1'+'7'-moves[i])
		}
		p, q := mustParse(t, moves), mustParse(t, string(mirrored))
		if got, want := mirrorKey(p.PackedKey()), q.PackedKey(); got != want {
			t.Errorf("%q: mirrorKey %x, mirrored position's key %x", moves, got, want)
		}
	}
}

func TestTable(t *testing.T) {
	tt := newTable(1)
	if len(tt.entries) != 1<<17 {
		t.Fatalf("%d entries", len(tt.entries))
	}
	k := mustParse(t, "4455").PackedKey()
	if _, _, ok := tt.probe(k); ok {
		t.Fatal("hit in an empty table")
	}
	tt.store(k, noLower, 5)
	tt.store(k, -3, noUpper)
	if lo, hi, ok := tt.probe(k); !ok || lo != -3 || hi != 5 {
		t.Fatalf("probe: %d %d %v", lo, hi, ok)
	}
	tt.store(k, -21, 21) // weaker bounds do not loosen the entry
	if lo, hi, _ := tt.probe(k); lo != -3 || hi != 5 {
		t.Fatalf("after weaker store: %d %d", lo, hi)
	}
	// Every other key of the same slot is a miss.
	if _, _, ok := tt.probe(k + 1); ok {
		t.Error("hit for another key")
	}
	tt.reset()
	if _, _, ok := tt.probe(k); ok {
		t.Error("hit after reset")
	}
	tt.gen = genMax << genShift
	tt.store(k, 1, 1)
	tt.reset() // wraps: clears the array
	if tt.gen != 1<<genShift || tt.entries[(k*hashMul&keyMask)>>tt.shift] != 0 {
		t.Error("generation wrap did not clear")
	}
}

// fillWithoutFour plays p to a full board without a four, if it can.
func fillWithoutFour(p *connect4.Position) bool {
	if p.Moves() == connect4.Cells {
		return true
	}
	for c := 0; c < connect4.Width; c++ {
		if !p.CanPlay(c) || p.IsWinningMove(c) {
			continue
		}
		p.Make(connect4.ColumnMove(c))
		if fillWithoutFour(p) {
			return true
		}
		p.Unmake()
	}
	return false
}
