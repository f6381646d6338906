package xqset

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// Fairy-Stockfish's own lines, as it prints them.
func TestParseInfo(t *testing.T) {
	for _, c := range []struct {
		line string
		want pvInfo
		ok   bool
	}{
		{"info depth 13 seldepth 18 multipv 2 score cp 5 nodes 603203 nps 275435 hashfull 298 tbhits 0 time 2190 pv h1g3 g7g6", pvInfo{13, 2, Scored{"h1g3", 5}}, true},
		{"info depth 4 seldepth 4 multipv 1 score mate 2 nodes 900 pv b1b10 e10f10", pvInfo{4, 1, Scored{"b1b10", 20000 - 3}}, true},
		{"info depth 4 seldepth 4 multipv 3 score mate -1 nodes 900 pv e10f10 b1b10", pvInfo{4, 3, Scored{"e10f10", -(20000 - 2)}}, true},
		{"info depth 9 seldepth 12 multipv 1 score cp -40 lowerbound nodes 9000 pv a1a2", pvInfo{}, false},
		{"info depth 9 currmove a1a2 currmovenumber 3", pvInfo{}, false},
		{"info string NNUE evaluation disabled", pvInfo{}, false},
		{"info depth 9 score cp 12 pv", pvInfo{}, false},
	} {
		got, ok := parseInfo(c.line)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%q: %+v %v, want %+v %v", c.line, got, ok, c.want, c.ok)
		}
	}
	info := []string{
		"info depth 1 multipv 1 score cp 10 pv a1a2",
		"info depth 1 multipv 2 score cp 5 pv b1b2",
		"info depth 2 multipv 1 score cp 12 pv b1b2",
		"info depth 2 multipv 2 score cp 3 pv a1a2",
		"info depth 3 multipv 1 score cp 30 pv c1c2", // an iteration cut short
	}
	got, err := multiPV(info, 2)
	if err != nil || len(got) != 2 || got[0] != (Scored{"b1b2", 12}) || got[1] != (Scored{"a1a2", 3}) {
		t.Fatalf("multiPV: %v %v, want depth 2's lines", got, err)
	}
	if _, err := multiPV(info, 3); err == nil {
		t.Fatal("multiPV found 3 lines in an output of 2")
	}
}

const sample = `# a comment
rnbakabnr/9/1c2c4/p1p1p3p/6p2/9/P1P1P1P1P/RCN4CN/4A4/2BAK1B1R w - - 0 1	8	fsf-n300	b3b7:64 g1e3:61 b3b5:61 h3g3:-54
1nbakabr1/r6Cn/4c4/p3p3p/2p6/6P2/PcP1PN2P/RCN1B4/4A4/3AK1BR1 w - - 0 1	22	fsf-n300	b3b10:375 h9h5:164

r1bakabC1/5r3/1cn4c1/pC4p1p/2p1p4/6P2/P1P1P3P/2N1B1N1R/9/R2AKAB2 b - - 0 1	13	fsf-n30	a10a9:-353 d10e9:-371
`

func TestReadAndJudge(t *testing.T) {
	lines, err := Read(strings.NewReader(sample), 0)
	if err != nil || len(lines) != 3 {
		t.Fatalf("%d lines, %v", len(lines), err)
	}
	l := lines[0]
	for _, c := range []struct {
		line Line
		move string
		want Verdict
	}{
		{l, "b3b7", Verdict{Best: true, Good: true}}, {l, "g1e3", Verdict{Good: true}},
		{l, "h3g3", Verdict{}}, {l, "a1a2", Verdict{}}, // 118 below: not good, not known to blunder
		{lines[1], "h9h5", Verdict{Blunder: true}}, // 211 below
		{lines[1], "a1a2", Verdict{Blunder: true}}, // unlisted, below a listed blunder
		{lines[2], "a4a5", Verdict{}},              // unlisted, the last listed only 18 below
	} {
		if got := c.line.Judge(c.move); got != c.want {
			t.Errorf("%s in %s: %+v, want %+v", c.move, c.line.FEN, got, c.want)
		}
	}
	if l.Class() != "even" || lines[1].Class() != "ahead" || lines[2].Class() != "behind" || Phase(lines[1].Ply) != "opening" {
		t.Errorf("classes %s %s %s", l.Class(), lines[1].Class(), lines[2].Class())
	}
	if got, _ := Read(strings.NewReader(sample), 2); len(got) != 2 {
		t.Errorf("max 2 read %d", len(got))
	}
	if l.String() != strings.Split(sample, "\n")[1] {
		t.Errorf("String %q", l.String())
	}
	start := "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
	for _, bad := range []struct{ text, want string }{
		{start + "\t0\tx", "4 tab-separated fields"},
		{start + "\t-1\tx\th3e3:1", "ply"},
		{"xyz w - - 0 1\t0\tx\th3e3:1", "FEN"},
		{start + "\t0\tx\th3e4:1", "h3e4"},
		{start + "\t0\tx\th3e3", "MOVE:SCORE"},
		{start + "\t0\tx\th3e3:1 b3e3:2", "must not rise"},
		{start + "\t0\tx\th3e3:1 h3e3:0", "twice"},
		{"# only a comment", "no positions"},
	} {
		_, err := Read(strings.NewReader(bad.text), 0)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want an error naming %q", bad.text, err, bad.want)
		}
	}
}

// movePlayer plays, in each position, the move pick chooses from its line.
type movePlayer struct {
	byFEN map[string]Line
	pick  func(Line) string
}

func (p *movePlayer) Name() string                        { return "pick" }
func (p *movePlayer) Close() error                        { return nil }
func (p *movePlayer) NewGame(game.Position, uint64) error { return nil }
func (p *movePlayer) Move(_ context.Context, pos game.Position, _ []game.Move) (game.Move, error) {
	return pos.ParseMove(p.pick(p.byFEN[pos.String()]))
}

func pickSpec(t *testing.T, lines []Line, pick func(Line) string) *arena.Spec {
	by := map[string]Line{}
	for _, l := range lines {
		by[l.FEN] = l
	}
	s, err := arena.NewFuncSpec("pick", "xiangqi", func() (arena.Player, error) { return &movePlayer{by, pick}, nil })
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A player of the engine's first moves is best everywhere; one of its
// last listed moves is good exactly where the line says so; the
// breakdowns add up.
func TestMeasure(t *testing.T) {
	lines, _, err := Lines("", 300)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 300 {
		t.Fatalf("the embedded set has %d positions", len(lines))
	}
	first, err := Measure(context.Background(), pickSpec(t, lines, func(l Line) string { return l.Moves[0].Move }), lines, 2)
	if err != nil || first.All != (Accuracy{len(lines), len(lines), len(lines), 0}) {
		t.Fatalf("the engine's moves: %+v %v", first.All, err)
	}
	last := func(l Line) string { return l.Moves[len(l.Moves)-1].Move }
	rep, err := Measure(context.Background(), pickSpec(t, lines, last), lines, 3)
	if err != nil {
		t.Fatal(err)
	}
	var want Accuracy
	for _, l := range lines {
		want.add(l.Judge(last(l)))
	}
	if rep.All != want || want.Good == 0 || want.Good == want.Positions {
		t.Fatalf("the last listed moves: %+v, want %+v (some good, some not)", rep.All, want)
	}
	for _, by := range []map[string]Accuracy{rep.Phase, rep.Class, rep.Sources} {
		var sum Accuracy
		for _, a := range by {
			sum.Positions, sum.Best, sum.Good, sum.Blunders = sum.Positions+a.Positions, sum.Best+a.Best, sum.Good+a.Good, sum.Blunders+a.Blunders
		}
		if sum != rep.All {
			t.Errorf("a breakdown adds up to %+v, not %+v", sum, rep.All)
		}
	}
	var out bytes.Buffer
	rep.Write(&out, "last")
	if !strings.Contains(out.String(), "by phase: opening") {
		t.Errorf("report:\n%s", out.String())
	}
	if _, err := Measure(context.Background(), pickSpec(t, lines, func(Line) string { return "a1a2" }), lines, 1); err == nil {
		t.Fatal("a player's illegal move was not reported")
	}
}

// The embedded set against the project's own rules and search: every
// line reads (legal, ordered moves), and where the engine announces a
// mate within five plies, for or against the side to move, the
// project's alpha-beta at that depth finds a mate for the same side
// within that distance.
func TestEmbeddedMates(t *testing.T) {
	lines, _, err := Lines("", 0)
	if err != nil {
		t.Fatal(err)
	}
	ab, err := alphabeta.New(alphabeta.DefaultOptions()) // no forward pruning: a d-ply search finds every mate within d plies
	if err != nil {
		t.Fatal(err)
	}
	mates := 0
	for _, l := range lines {
		s := l.Moves[0].Score
		plies := mateScore - s
		if s < 0 {
			plies = mateScore + s
		}
		if plies > 5 {
			continue
		}
		p, _ := l.Position()
		ab.Clear()
		r := ab.Search(context.Background(), p, alphabeta.Limits{Depth: plies}, nil)
		// The engine's distance is its search's, not always the
		// shortest: the project's finds the same side's mate within it.
		if !alphabeta.IsMate(r.Score) || alphabeta.Mate-max(r.Score, -r.Score) > plies || (r.Score > 0) != (s > 0) {
			t.Errorf("%s: the engine's %s:%d (mate in %d plies), the project's search %d", l.FEN, l.Moves[0].Move, s, plies, r.Score)
		}
		mates++
	}
	if mates == 0 {
		t.Fatal("no mate within five plies in the set: nothing checked")
	}
	t.Logf("%d positions, %d mates within five plies checked", len(lines), mates)
}

func fsf(t *testing.T) string {
	path := DefaultGen.Engine
	if _, err := exec.LookPath(path); err != nil {
		t.Skipf("Fairy-Stockfish is not installed at %s (Debian: apt install fairy-stockfish): %v", path, err)
	}
	return path
}

// A mate in one the test builds, labelled by the engine: the mating move
// first at a mate score, and our rules say it mates.
func TestLabelMateInOne(t *testing.T) {
	engine := fsf(t)
	ctx := context.Background()
	c, err := startEngine(ctx, engine, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := xiangqi.Parse("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1", xiangqi.DefaultRules)
	if err != nil {
		t.Fatal(err)
	}
	l, ok, err := labelPosition(ctx, c, p, GenConfig{Depth: 6, MultiPV: 3}, "test")
	if err != nil || !ok {
		t.Fatalf("%v %v", ok, err)
	}
	if l.Moves[0] != (Scored{"b1b10", mateScore - 1}) || len(l.Moves) != 3 || l.Moves[1].Score >= mateScore-1 {
		t.Fatalf("label %s", l)
	}
	m, _ := p.ParseMove("b1b10")
	p.Make(m)
	if st := p.Status(); !st.Over() || st.Result != game.Loss {
		t.Fatalf("b1b10 leaves %+v", st)
	}
}

// Generation reads back and is the same for the same seed.
func TestGenerateDeterministic(t *testing.T) {
	engine := fsf(t)
	cfg := GenConfig{Engine: engine, Positions: 4, Seed: 5, Depth: 4, MultiPV: 3, Levels: []int{30}}
	var a, b bytes.Buffer
	if err := Generate(context.Background(), cfg, &a, nil); err != nil {
		t.Fatal(err)
	}
	if err := Generate(context.Background(), cfg, &b, nil); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatalf("two generations differ:\n%s\n%s", a.String(), b.String())
	}
	lines, err := Read(&a, 0)
	if err != nil || len(lines) != 4 {
		t.Fatalf("%d lines read back, %v", len(lines), err)
	}
	for _, l := range lines {
		if l.Source != "fsf-n30" || l.Ply < openingMin {
			t.Errorf("line %s", l)
		}
	}
}

// constEval values every position v for its side to move.
type constEval float32

func (c constEval) Evaluate(_ game.Position, _ []game.Move, priors []float32) (float32, error) {
	for i := range priors {
		priors[i] = 1 / float32(len(priors))
	}
	return float32(c), nil
}

// A value head that always says "winning" agrees with the engine exactly
// on the decided positions the engine scores for the side to move.
func TestMeasureValues(t *testing.T) {
	lines, _, err := Lines("", 0)
	if err != nil {
		t.Fatal(err)
	}
	var decided, ahead int
	for _, l := range lines {
		if s := l.Moves[0].Score; s >= DecidedScore || s <= -DecidedScore {
			decided++
			if s > 0 {
				ahead++
			}
		}
	}
	for _, c := range []struct {
		v     constEval
		agree int
	}{{0.5, ahead}, {-0.5, decided - ahead}} {
		va, err := MeasureValues(context.Background(), c.v, lines)
		if err != nil || va.Decided != decided || va.Agree != c.agree || decided == 0 {
			t.Fatalf("value %v: %+v %v, want %d of %d", c.v, va, err, c.agree, decided)
		}
	}
}
