package pons

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta/c4solver"
	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/measure"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/internal/ponsdata"
)

func ponsLines(t *testing.T, file string, n int) []Line {
	t.Helper()
	f, err := ponsdata.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, err := Read(f, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	return lines
}

// perfect plays the exact solver's best move.
type perfect struct{ s *c4solver.Solver }

func (p *perfect) Name() string                        { return "perfect" }
func (p *perfect) Close() error                        { return nil }
func (p *perfect) NewGame(game.Position, uint64) error { return nil }
func (p *perfect) Move(ctx context.Context, pos game.Position, _ []game.Move) (game.Move, error) {
	col, _, err := p.s.BestMoveContext(ctx, pos.(*connect4.Position))
	if err != nil {
		return game.NoMove, err
	}
	return connect4.ColumnMove(col), nil
}

func TestAccuracy(t *testing.T) {
	lines := append(ponsLines(t, "Test_L3_R1", 30), ponsLines(t, "Test_L2_R1", 20)...)
	n := len(lines)
	perf, err := arena.NewFuncSpec("perfect", "connect4", func() (arena.Player, error) {
		s, err := c4solver.New(c4solver.Fastest, 8)
		return &perfect{s}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	acc, err := Measure(context.Background(), perf, lines, 2)
	if err != nil {
		t.Fatal(err)
	}
	if acc.Positions != n || acc.Optimal != n || acc.OutcomeKept != n {
		t.Fatalf("perfect player: %+v, want %d/%d", acc, n, n)
	}
	// Alpha-beta searching to the end of the game is exact on the end
	// game set.
	ab, err := arena.ParsePlayer("ab:depth=20", "connect4")
	if err != nil {
		t.Fatal(err)
	}
	end := lines[:30]
	acc, err = Measure(context.Background(), ab, end, 2)
	if err != nil {
		t.Fatal(err)
	}
	if acc.Optimal != len(end) {
		t.Errorf("ab:depth=20 on end games: %d/%d optimal", acc.Optimal, len(end))
	}
	rnd, err := arena.ParsePlayer("random", "connect4")
	if err != nil {
		t.Fatal(err)
	}
	acc, err = Measure(context.Background(), rnd, lines, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("random: %d/%d optimal, %d/%d keep the outcome", acc.Optimal, n, acc.OutcomeKept, n)
	if acc.Optimal > n*3/4 || acc.Optimal > acc.OutcomeKept {
		t.Errorf("random: %+v", acc)
	}
	// The same seed gives the same figures with any number of workers.
	acc1, err := Measure(context.Background(), rnd, lines, 1)
	if err != nil || acc1 != acc {
		t.Errorf("random with one worker: %+v (%v), with two %+v", acc1, err, acc)
	}
}

func TestReadPonsErrors(t *testing.T) {
	for _, bad := range []string{"123 4 5\n", "12x 3\n", "1234 x\n", "1111111 0\n", "1212121 3\n"} {
		if _, err := Read(strings.NewReader(bad), 0); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	lines, err := Read(strings.NewReader("\n44 3\n45 -2\n46 0\n"), 2)
	if err != nil || fmt.Sprint(lines) != "[{44 3} {45 -2}]" {
		t.Errorf("%v %v", lines, err)
	}
	x, _ := arena.ParsePlayer("random", "xiangqi")
	if _, err := Measure(context.Background(), x, lines, 1); err == nil {
		t.Error("a xiangqi player accepted")
	}
}

// scoreEval values a position by its exact score (score/22, increasing
// with it), or by a constant.
type scoreEval struct {
	s    *c4solver.Solver
	flat bool
}

func (e scoreEval) Evaluate(p game.Position, moves []game.Move, priors []float32) (float32, error) {
	if e.flat {
		return 0.3, nil
	}
	return float32(e.s.Solve(p.(*connect4.Position))) / 22, nil
}

// TestMeasureValues: a value that follows the exact score orders every
// pair of outcome-keeping moves and picks the optimal move greedily; a
// constant orders only the pairs with a win at once in them.
func TestMeasureValues(t *testing.T) {
	lines := ponsLines(t, "Test_L2_R1", 60)
	s, err := c4solver.New(c4solver.Fastest, 16)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := MeasureValues(context.Background(), scoreEval{s: s}, lines)
	if err != nil {
		t.Fatal(err)
	}
	if exact.Positions != 60 || exact.Pairs < 60 || exact.Ordered != exact.Pairs || exact.GreedyOptimal != 60 || exact.GreedyKept != 60 {
		t.Fatalf("exact values: %+v, want every pair ordered and every greedy move optimal", exact)
	}
	flat, err := MeasureValues(context.Background(), scoreEval{flat: true}, lines)
	if err != nil {
		t.Fatal(err)
	}
	if flat.Pairs != exact.Pairs || flat.OrderedRate() > 0.3 || flat.GreedyOptimal >= 60 {
		t.Fatalf("constant values: %+v (exact: %+v)", flat, exact)
	}
	t.Logf("exact %+v, constant %+v", exact, flat)
}

// Pons' sets are found by name, from the binary, whatever the working
// directory: by the arena's -pons (a name or "embedded") and by a run
// config's evaluation (its set's name); a name that is neither a set nor
// a file is refused with the sets' names.
func TestSetsByNameFromAnyDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	perf, err := arena.NewFuncSpec("perfect", "connect4", func() (arena.Player, error) {
		s, err := c4solver.New(c4solver.Fastest, 8)
		return &perfect{s}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"embedded", "Test_L3_R1"} {
		var out strings.Builder
		if err := (set{}).Run(t.Context(), &out, measure.Options{Player: perf, File: name, Positions: 5, Concurrency: 1}); err != nil {
			t.Fatalf("-pons %s from %s: %v", name, dir, err)
		}
		if !strings.Contains(out.String(), "optimal: 5/5") {
			t.Errorf("-pons %s: perfect play measured\n%s", name, out.String())
		}
	}
	// "embedded" is the set of that name: the same first line.
	for _, name := range []string{"embedded", Embedded} {
		f, err := OpenSet(name)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := Read(f, 1)
		f.Close()
		if want := ponsLines(t, Embedded, 1); err != nil || lines[0] != want[0] {
			t.Errorf("OpenSet(%q) reads %v (%v), want %v", name, lines, err, want)
		}
	}
	err = (set{}).Run(t.Context(), io.Discard, measure.Options{Player: perf, File: "Test_L9_R9", Positions: 5, Concurrency: 1})
	if err == nil || !strings.Contains(err.Error(), "Test_L2_R1") {
		t.Errorf("an unknown set: %v, want an error naming the sets", err)
	}

	got, err := (set{}).Evaluate(t.Context(), "Test_L3_R1", 4, []int{0}, func(int) (*arena.Spec, error) { return perf, nil })
	if err != nil {
		t.Fatalf("the evaluation's set by name from %s: %v", dir, err)
	}
	if rs, ok := got["pons"].([]Result); !ok || len(rs) != 1 || rs[0].Positions != 4 || rs[0].Optimal != 4 {
		t.Errorf("evaluation: %+v", got)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("the working directory holds %v (%v): the sets are not copied out", entries, err)
	}
}
