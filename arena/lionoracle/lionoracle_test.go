package lionoracle

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
	"github.com/tabula-zero/tabula/internal/liondata"
	"github.com/tabula-zero/tabula/internal/testnet"
)

func setLines(t *testing.T) []liondata.Line {
	t.Helper()
	lines, err := liondata.Open(0)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// listPlayer plays, in each position of the set, the first move of a list
// the line gives (pick), looked up by the position's text.
type listPlayer struct {
	byText map[string]liondata.Line
	pick   func(liondata.Line) string
}

func (p *listPlayer) Name() string                        { return "list" }
func (p *listPlayer) Close() error                        { return nil }
func (p *listPlayer) NewGame(game.Position, uint64) error { return nil }
func (p *listPlayer) Move(_ context.Context, pos game.Position, _ []game.Move) (game.Move, error) {
	l := p.byText[pos.String()]
	return pos.ParseMove(p.pick(l))
}

func listSpec(t *testing.T, lines []liondata.Line, pick func(liondata.Line) string) *arena.Spec {
	by := map[string]liondata.Line{}
	for _, l := range lines {
		by[l.Text] = l
	}
	s, err := arena.NewFuncSpec("list", "lion", func() (arena.Player, error) { return &listPlayer{by, pick}, nil })
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkSums checks that every group's buckets add up to the totals.
func checkSums(t *testing.T, r Report) {
	t.Helper()
	for _, g := range Groups {
		var n, o, k int
		for _, a := range r.By[g.Name] {
			n, o, k = n+a.Positions, o+a.Optimal, k+a.OutcomeKept
		}
		if n != r.All.Positions || o != r.All.Optimal || k != r.All.OutcomeKept {
			t.Errorf("group %s sums to %d/%d/%d, the totals are %+v", g.Name, n, o, k, r.All)
		}
	}
}

// TestMeasureBookkeeping: a player of the optimal moves scores every
// position; one of the slower wins keeps the outcome of the wins but is
// never optimal there.
func TestMeasureBookkeeping(t *testing.T) {
	lines := setLines(t)
	r, err := Measure(context.Background(), listSpec(t, lines, func(l liondata.Line) string { return l.Optimal[0] }), lines, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(lines); r.All.Positions != n || r.All.Optimal != n || r.All.OutcomeKept != n {
		t.Fatalf("optimal player: %+v, want %d/%d", r.All, n, n)
	}
	checkSums(t, r)
	var slow []liondata.Line
	for _, l := range lines {
		if len(l.Kept) > 0 {
			slow = append(slow, l)
		}
	}
	r, err = Measure(context.Background(), listSpec(t, slow, func(l liondata.Line) string { return l.Kept[0] }), slow, 2)
	if err != nil {
		t.Fatal(err)
	}
	if w := r.By["class"]["win"]; len(slow) < 100 || r.All.Optimal != 0 || r.All.OutcomeKept != len(slow) || w.Positions != len(slow) {
		t.Fatalf("slower wins on %d positions: %+v, wins %+v", len(slow), r.All, w)
	}
}

// TestAlphaBetaShortWins: alpha-beta to 4 plies sees every win in 3 of the
// set, and its move there is one of the set's optimal moves (an
// independent search agreeing with the table's truth).
func TestAlphaBetaShortWins(t *testing.T) {
	var short []liondata.Line
	for _, l := range setLines(t) {
		if l.Value.Outcome == game.Win && l.Value.Plies == 3 {
			short = append(short, l)
		}
	}
	ab, err := arena.ParsePlayer("ab:depth=4", "lion")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Measure(context.Background(), ab, short, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(short) < 50 || r.All.Optimal != len(short) {
		t.Fatalf("ab:depth=4 on %d wins in 3: %+v", len(short), r.All)
	}
	checkSums(t, r)
	rnd, _ := arena.ParsePlayer("random", "lion")
	if _, err := Measure(context.Background(), rnd, short, 1); err != nil {
		t.Fatal(err)
	}
	if c4, _ := arena.ParsePlayer("random", "connect4"); c4 != nil {
		if _, err := Measure(context.Background(), c4, short, 1); err == nil || !strings.Contains(err.Error(), "lion player") {
			t.Errorf("a connect4 player: %v", err)
		}
	}
}

// constEval values every position v.
type constEval float32

func (c constEval) Evaluate(_ game.Position, moves []game.Move, priors []float32) (float32, error) {
	for i := range priors {
		priors[i] = 1 / float32(len(moves))
	}
	return float32(c), nil
}

// TestMeasureValues: a value head that says "draw" everywhere agrees on
// exactly the draws and is off by 1 on every decided position.
func TestMeasureValues(t *testing.T) {
	lines := setLines(t)[:600]
	r, err := MeasureValues(context.Background(), constEval(0), lines)
	if err != nil {
		t.Fatal(err)
	}
	draws, decided := 0, 0
	for _, l := range lines {
		if l.Value.Outcome == game.Draw {
			draws++
		} else {
			decided++
		}
	}
	if r.All.Positions != len(lines) || r.All.Agree != draws || r.All.AbsError != float64(decided) {
		t.Fatalf("constant 0: %+v, want %d agreed, error %d", r.All, draws, decided)
	}
	if d := r.By["class"]["draw"]; d.Agree != d.Positions || d.AbsError != 0 {
		t.Errorf("draws: %+v", d)
	}
	// A network runs through the same path (its numbers are its own).
	s, err := arena.ParsePlayer("net:"+testnet.Checkpoint(t, t.TempDir(), "lion", 1)+",sims=8", "lion")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Run(context.Background(), &out, Options{Player: s, Positions: 40, Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"40 positions", "raw policy: optimal", "with 8 simulations: optimal", "value head: outcome agreed", "class     draw"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestPerfectPlayerFullTable needs the full table (TABULA_LION_TB): the
// tb: player's moves are all optimal on the whole set.
func TestPerfectPlayerFullTable(t *testing.T) {
	path := os.Getenv(tablebase.EnvFile)
	if path == "" {
		t.Skip("needs the full Lion tablebase in $" + tablebase.EnvFile + ": " + tablebase.BuildHint)
	}
	s, err := arena.ParsePlayer("tb:"+path, "lion")
	if err != nil {
		t.Fatal(err)
	}
	lines := setLines(t)
	r, err := Measure(context.Background(), s, lines, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.All.Optimal != len(lines) {
		t.Fatalf("tb: %+v", r.All)
	}
}
