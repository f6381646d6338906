package arena

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/testnet"
)

func spec(t *testing.T, s, gameName string) *Spec {
	t.Helper()
	p, err := ParsePlayer(s, gameName)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkPairs: colours alternate within pairs, and both games of a pair
// start from the same opening.
func checkPairs(t *testing.T, recs []Record) {
	t.Helper()
	for i, r := range recs {
		if r.Index != i {
			t.Fatalf("record %d has index %d", i, r.Index)
		}
		if (r.First == r.A) != (i%2 == 0) || (r.Second == r.B) != (i%2 == 0) {
			t.Errorf("game %d: first %s second %s (A %s)", i, r.First, r.Second, r.A)
		}
		if r.Pair != i/2 {
			t.Errorf("game %d in pair %d", i, r.Pair)
		}
		if i%2 == 1 {
			q := recs[i-1]
			if q.Start != r.Start || q.OpeningPlies != r.OpeningPlies || !reflect.DeepEqual(q.Moves[:q.OpeningPlies], r.Moves[:r.OpeningPlies]) {
				t.Errorf("pair %d: openings differ: %q %v / %q %v", r.Pair, q.Start, q.Moves[:q.OpeningPlies], r.Start, r.Moves[:r.OpeningPlies])
			}
		}
		if len(r.Moves) != r.Plies {
			t.Errorf("game %d: %d moves, %d plies", i, len(r.Moves), r.Plies)
		}
	}
}

// replay checks that a record's moves are legal and end as recorded.
func replay(t *testing.T, r Record, plyCap int) {
	t.Helper()
	g, err := game.Lookup(r.Variant)
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.Start(r.Start, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := game.Play(p, r.Moves...); err != nil {
		t.Fatalf("game %d: %v", r.Index, err)
	}
	st := p.Status()
	switch {
	case st.Over():
		want := ResultDraw
		if st.Result == game.Win && p.SideToMove() == game.First || st.Result == game.Loss && p.SideToMove() == game.Second {
			want = ResultFirstWins
		} else if st.Result != game.Draw {
			want = ResultSecondWins
		}
		if r.Result != want || r.Reason != st.Reason {
			t.Errorf("game %d: recorded %s (%s), the rules say %s (%s)", r.Index, r.Result, r.Reason, want, st.Reason)
		}
	case plyCap > 0 && r.Plies >= plyCap:
		if r.Result != ResultDraw || r.Reason != "ply cap" {
			t.Errorf("game %d: %s (%s) at the ply cap", r.Index, r.Result, r.Reason)
		}
	default:
		t.Errorf("game %d: recorded %s (%s) but the game is not over", r.Index, r.Result, r.Reason)
	}
}

func TestABBeatsRandom(t *testing.T) {
	m := Match{Game: "connect4", A: spec(t, "ab:depth=4", "connect4"), B: spec(t, "random", "connect4"),
		Games: 20, Concurrency: 2, OpeningPlies: 2, Seed: 1}
	res, err := RunMatch(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ab:depth=4 vs random: %s", res.Score)
	if res.Games() != 20 || len(res.Records) != 20 {
		t.Fatalf("%d games, %d records", res.Games(), len(res.Records))
	}
	if res.Score.Score() < 0.9 || res.Wins < 18 {
		t.Fatalf("ab:depth=4 scores only %s against random", res.Score)
	}
	checkPairs(t, res.Records)
	for _, r := range res.Records {
		replay(t, r, 0)
	}
}

func TestSameSeedSameRecords(t *testing.T) {
	run := func(seed uint64, k int) []Record {
		m := Match{Game: "connect4", A: spec(t, "ab:depth=1", "connect4"), B: spec(t, "random", "connect4"),
			Games: 12, Concurrency: k, OpeningPlies: 3, Seed: seed, RecordDir: t.TempDir(), Label: "x"}
		res, err := RunMatch(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		checkPairs(t, res.Records)
		// The file holds the same games (in finishing order).
		file, err := ReadRecords(m.RecordDir)
		if err != nil {
			t.Fatal(err)
		}
		if len(file) != len(res.Records) {
			t.Fatalf("%d records in the file, %d returned", len(file), len(res.Records))
		}
		for i := range res.Records {
			res.Records[i].Millis, res.Records[i].Time = 0, time.Time{}
		}
		return res.Records
	}
	a, b := run(7, 1), run(7, 4)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different records with 1 and 4 workers")
	}
	c := run(8, 4)
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds gave the same records")
	}
}

func TestCancelReturnsFinishedGames(t *testing.T) {
	// Stop after the third finished game: RunMatch returns at once with the
	// games finished so far, all of them in the record file.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	m := Match{Game: "connect4", A: spec(t, "random", "connect4"), B: spec(t, "ab:depth=1", "connect4"),
		Games: 1000, Concurrency: 2, Seed: 3, RecordDir: dir, Label: "c",
		OnGame: func(_ Record, s Score) {
			if s.Games() == 3 {
				cancel()
			}
		}}
	res, err := RunMatch(ctx, m)
	if !errors.Is(err, context.Canceled) || res.Stopped != "cancelled" {
		t.Fatalf("error %v, stopped %q", err, res.Stopped)
	}
	if res.Games() != 3 || len(res.Records) != 3 {
		t.Fatalf("%d games after cancelling at the third", res.Games())
	}
	file, err := ReadRecords(dir)
	if err != nil || len(file) != 3 {
		t.Fatalf("%d records in the file (%v)", len(file), err)
	}

	// A slow search is interrupted promptly.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	m = Match{Game: "xiangqi", A: spec(t, "ab:depth=30", "xiangqi"), B: spec(t, "mcts:sims=10000000", "xiangqi"), Games: 4, Concurrency: 2}
	res, err = RunMatch(ctx2, m)
	if !errors.Is(err, context.DeadlineExceeded) || res.Games() != 0 {
		t.Fatalf("error %v, %d games", err, res.Games())
	}
}

func TestSPRTStopsEarly(t *testing.T) {
	sp := &SPRT{Elo0: 0, Elo1: 200, Alpha: 0.05, Beta: 0.05}
	m := Match{Game: "connect4", A: spec(t, "ab:depth=3", "connect4"), B: spec(t, "random", "connect4"),
		Games: 200, Concurrency: 2, OpeningPlies: 2, Seed: 5, SPRT: sp}
	res, err := RunMatch(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ab:depth=3 vs random: %s, SPRT %+v after %d games", res.Score, *res.SPRT, res.Games())
	if res.Stopped != "sprt" || res.SPRT.Decision != AcceptH1 || res.Games() >= 40 {
		t.Fatalf("stopped %q decision %q after %d games", res.Stopped, res.SPRT.Decision, res.Games())
	}
	if !res.Passes(0.99) {
		t.Fatal("an accepted H1 must pass the gate")
	}

	// Identical deterministic players: every pair is split, the score
	// stays 1/2 and the test never accepts H1.
	m = Match{Game: "connect4", A: spec(t, "ab:depth=2", "connect4"), B: spec(t, "ab:depth=2,name=twin", "connect4"),
		Games: 200, Concurrency: 2, OpeningPlies: 4, Seed: 6, SPRT: sp}
	res, err = RunMatch(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("twins: %s, SPRT %+v after %d games", res.Score, *res.SPRT, res.Games())
	if res.SPRT.Decision == AcceptH1 {
		t.Fatalf("identical players: %s, decision %q", res.Score, res.SPRT.Decision)
	}
	pairs := map[int][]Record{}
	for _, r := range res.Records {
		pairs[r.Pair] = append(pairs[r.Pair], r)
	}
	for k, p := range pairs {
		if len(p) == 2 && (p[0].Result != p[1].Result || p[0].ScoreA()+p[1].ScoreA() != 1) {
			t.Errorf("pair %d of identical players: %s then %s", k, p[0].Result, p[1].Result)
		}
	}
	if res.SPRT.Decision != AcceptH0 {
		t.Fatalf("identical players: no H0 after %d games (LLR %v)", res.Games(), res.SPRT.LLR)
	}
	if res.Passes(0.5) {
		t.Fatal("an accepted H0 must fail the gate")
	}
}

func TestXiangqiRecordsAndPGN(t *testing.T) {
	dir := t.TempDir()
	m := Match{Game: "xiangqi", A: spec(t, "ab:depth=1", "xiangqi"), B: spec(t, "random", "xiangqi"),
		Games: 4, Concurrency: 2, OpeningPlies: 2, Seed: 9, PlyCap: 60, RecordDir: dir, Label: "ab1 vs random"}
	res, err := RunMatch(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	checkPairs(t, res.Records)
	for _, r := range res.Records {
		replay(t, r, 60)
		if r.Plies > 60 {
			t.Errorf("game %d: %d plies past the cap", r.Index, r.Plies)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "ab1_vs_random.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	pgn := string(data)
	for _, want := range []string{`[Variant "xiangqi"]`, `[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"]`, `[White "ab:depth=1"]`, `[Black "random"]`} {
		if !strings.Contains(pgn, want) {
			t.Errorf("PGN lacks %s:\n%s", want, pgn)
		}
	}
	if n := strings.Count(pgn, "[Variant "); n != 4 {
		t.Errorf("%d PGN games, want 4", n)
	}
	// The movetext of the first game is its UCI moves in order.
	r := res.Records[0]
	want := fmt.Sprintf("1. %s %s 2. %s", r.Moves[0], r.Moves[1], r.Moves[2])
	if !strings.Contains(PGN(r), want) {
		t.Errorf("PGN movetext lacks %q:\n%s", want, PGN(r))
	}
	if !strings.HasSuffix(strings.TrimSpace(PGN(r)), r.Result) {
		t.Errorf("PGN does not end with the result %s", r.Result)
	}
}

func TestOpeningsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "openings.txt")
	text := "# Connect Four openings\n\n4453\nmoves 1 7\n44 moves 3\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ops, err := LoadOpenings(path, "connect4", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Opening{{Text: "4453"}, {Moves: []string{"1", "7"}}, {Text: "44", Moves: []string{"3"}}}
	if !reflect.DeepEqual(ops, want) {
		t.Fatalf("openings %+v, want %+v", ops, want)
	}
	m := Match{Game: "connect4", A: spec(t, "ab:depth=2", "connect4"), B: spec(t, "random", "connect4"), Games: 6, Openings: ops, Seed: 1}
	res, err := RunMatch(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	checkPairs(t, res.Records)
	for i, r := range res.Records {
		o := ops[i/2]
		if r.Start != o.Text || !reflect.DeepEqual(r.Moves[:r.OpeningPlies], o.Moves) && len(o.Moves) > 0 {
			t.Errorf("game %d: start %q opening %v, want %s", i, r.Start, r.Moves[:r.OpeningPlies], o)
		}
		replay(t, r, 0)
	}
	for _, bad := range []string{"48x\n", "moves 1 1 1 1 1 1 1\n", "1212121\n", ""} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadOpenings(path, "connect4", nil); err == nil {
			t.Errorf("openings %q accepted", bad)
		}
	}
}

// scripted is a custom player that plays given moves, then misbehaves.
type scripted struct {
	name string
	bad  game.Move
	err  error
}

func (s *scripted) Name() string                        { return s.name }
func (s *scripted) Close() error                        { return nil }
func (s *scripted) NewGame(game.Position, uint64) error { return nil }
func (s *scripted) Move(_ context.Context, p game.Position, _ []game.Move) (game.Move, error) {
	if s.err != nil {
		return game.NoMove, s.err
	}
	return s.bad, nil
}

func TestIllegalMovesAndForfeits(t *testing.T) {
	mk := func(name string, bad game.Move, err error) *Spec {
		s, e := NewFuncSpec(name, "connect4", func() (Player, error) { return &scripted{name: name, bad: bad, err: err}, nil })
		if e != nil {
			t.Fatal(e)
		}
		return s
	}
	rnd := spec(t, "random", "connect4")
	for _, c := range []struct {
		s      *Spec
		reason string
	}{
		{mk("cheat", 99, nil), "cheat played an illegal move"},
		{mk("crash", 0, fmt.Errorf("engine died: %w", ErrForfeit)), "crash forfeits: engine died"},
	} {
		res, err := RunMatch(context.Background(), Match{Game: "connect4", A: c.s, B: rnd, Games: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Losses != 2 {
			t.Errorf("%s: %s, want two losses", c.s.Name(), res.Score)
		}
		for _, r := range res.Records {
			if !strings.Contains(r.Reason, c.reason) {
				t.Errorf("%s: reason %q", c.s.Name(), r.Reason)
			}
		}
	}
	// Any other error ends the match with that error.
	res, err := RunMatch(context.Background(), Match{Game: "connect4", A: mk("broken", 0, errors.New("out of memory")), B: rnd, Games: 10, Concurrency: 2})
	if err == nil || !strings.Contains(err.Error(), "out of memory") || res.Games() != 0 {
		t.Fatalf("error %v after %d games", err, res.Games())
	}
}

func TestMatchErrors(t *testing.T) {
	a := spec(t, "random", "connect4")
	for _, m := range []Match{
		{Game: "connect4", A: a, B: a, Games: 2},
		{Game: "connect4", A: a, B: spec(t, "random", "xiangqi"), Games: 2},
		{Game: "connect4", A: a, B: spec(t, "ab:depth=1", "connect4"), Games: 0},
		{Game: "connect4", A: a, B: spec(t, "ab:depth=1", "connect4"), Games: 2, SPRT: &SPRT{Elo0: 5, Elo1: 0, Alpha: 0.05, Beta: 0.05}},
		{Game: "chess", A: a, B: a, Games: 2},
	} {
		if _, err := RunMatch(context.Background(), m); err == nil {
			t.Errorf("match %+v accepted", m)
		}
	}
}

func TestNetAndABZeroPlayers(t *testing.T) {
	dir := t.TempDir()
	c4 := testnet.Checkpoint(t, dir, "connect4", 4)
	for _, s := range []string{"net:" + c4 + ",sims=16", "net:" + c4 + ",sims=0", "net:" + c4 + ",sims=16,search=gumbel", "abzero:net=" + c4 + ",m=1,depth=2,sims=8",
		"net:" + c4 + ",sims=16,precision=int8", "abzero:net=" + c4 + ",m=1,depth=2,sims=8,precision=int8"} {
		m := Match{Game: "connect4", A: spec(t, s, "connect4"), B: spec(t, "random", "connect4"), Games: 4, Concurrency: 2, OpeningPlies: 2, Seed: 2}
		res, err := RunMatch(context.Background(), m)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		checkPairs(t, res.Records)
		for _, r := range res.Records {
			replay(t, r, 0)
		}
		t.Logf("%s vs random: %s", s, res.Score)
	}
	if _, err := ParsePlayer("net:"+c4+",precision=fp16", "connect4"); err == nil || !strings.Contains(err.Error(), "fp32, int8") {
		t.Errorf("precision=fp16: %v", err)
	}
}

// Records carry each side's mean search work per move: exactly the budget
// of a fresh-tree UCT player (no solver, no early stop), the nodes of an
// alpha-beta player, nothing for a player that does not count it.
func TestRecordsEffort(t *testing.T) {
	m := Match{Game: "connect4", A: spec(t, "uct:playouts=50,reuse=false", "connect4"), B: spec(t, "random", "connect4"),
		Games: 4, Concurrency: 1, OpeningPlies: 2, Seed: 3}
	res, err := RunMatch(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		if r.EffortA != 50 || r.EffortB != 0 {
			t.Errorf("game %d: effort %v / %v, want 50 / 0", r.Index, r.EffortA, r.EffortB)
		}
	}
	m.A, m.B = spec(t, "random", "connect4"), spec(t, "ab:depth=3", "connect4")
	if res, err = RunMatch(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		if r.EffortA != 0 || r.EffortB < 1 {
			t.Errorf("game %d: effort %v / %v, want 0 / alpha-beta's nodes", r.Index, r.EffortA, r.EffortB)
		}
	}
	// Network and mcts players count their simulations (once printed 0).
	ck := testnet.Checkpoint(t, t.TempDir(), "connect4", 1)
	m.A, m.B = spec(t, "net:"+ck+",sims=30", "connect4"), spec(t, "mcts:sims=20", "connect4")
	if res, err = RunMatch(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		if r.EffortA < 1 || r.EffortA > 30 || r.EffortB < 1 || r.EffortB > 20 {
			t.Errorf("game %d: effort %v / %v, want simulations in [1, 30] / [1, 20]", r.Index, r.EffortA, r.EffortB)
		}
	}
	a, b := MeanEffort([]Record{{EffortA: 1, EffortB: 10}, {EffortA: 3, EffortB: 20}})
	if a != 2 || b != 15 {
		t.Errorf("MeanEffort = %v, %v, want 2, 15", a, b)
	}
}

// Networks of two Xiangqi encoders meet in one match, each encoding
// positions its own way (21 planes against 19: the other encoder's
// planes would not fit the network's input), also as Alpha-Beta-Zero's
// network; a network of an encoder the game lacks is refused by name.
func TestNetworksOfTwoEncoders(t *testing.T) {
	dir := t.TempDir()
	v2 := testnet.CheckpointEncoder(t, dir, "xiangqi", 2, 1)
	v3 := testnet.CheckpointEncoder(t, dir, "xiangqi", 3, 2)
	rules := game.Options{"PlyCap": "40"}
	for _, a := range []string{"net:" + v3 + ",sims=4", "abzero:net=" + v3 + ",m=1,depth=1,sims=4"} {
		m := Match{Game: "xiangqi", Rules: rules, A: spec(t, a, "xiangqi"), B: spec(t, "net:"+v2+",sims=4", "xiangqi"),
			Games: 2, Concurrency: 2, OpeningPlies: 2, Seed: 3}
		res, err := RunMatch(context.Background(), m)
		if err != nil {
			t.Fatalf("%s vs encoder 2: %v", a, err)
		}
		if len(res.Records) != 2 {
			t.Fatalf("%s vs encoder 2: %d games", a, len(res.Records))
		}
		for _, r := range res.Records {
			replay(t, r, 40)
		}
	}
	c, err := checkpoints.Load(v3)
	if err != nil {
		t.Fatal(err)
	}
	c.Params.Spec.EncoderVersion = 9
	v9 := filepath.Join(dir, "v9.ckpt")
	if err := checkpoints.Save(v9, c); err != nil {
		t.Fatal(err)
	}
	if _, err := ParsePlayer("net:"+v9, "xiangqi"); err == nil || !strings.Contains(err.Error(), "xiangqi has no encoder version 9") {
		t.Errorf("a network of encoder 9: %v", err)
	}
}

// Random openings drawn distinct: Connect Four has 7 x 7 = 49 two-ply
// openings, so 100 pairs find all of them and no more, and a match of
// deterministic players from two plies plays 98 different games; from
// four plies, which RunMatch draws itself, 200.
func TestDistinctOpenings(t *testing.T) {
	g, err := game.Lookup("connect4")
	if err != nil {
		t.Fatal(err)
	}
	ops, distinct, err := DistinctOpenings(g, nil, 2, 100, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 100 || distinct != 49 {
		t.Fatalf("%d openings, %d distinct; want 100 and 49", len(ops), distinct)
	}
	seen := map[string]bool{}
	for _, o := range ops[:49] {
		if seen[o.String()] {
			t.Fatalf("opening %s repeated among the first 49 pairs", o)
		}
		seen[o.String()] = true
	}
	differentGames := func(res Result) int {
		games := map[string]bool{}
		for _, r := range res.Records {
			games[r.First+strings.Join(r.Moves, "")] = true
		}
		return len(games)
	}
	m := Match{Game: "connect4", A: spec(t, "ab:depth=3", "connect4"), B: spec(t, "ab:depth=2", "connect4"),
		Games: 200, Concurrency: 2, OpeningPlies: 2, Seed: 5}
	res, err := RunMatch(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if res.DistinctOpenings != 49 || differentGames(res) != 98 {
		t.Errorf("two plies: %d distinct openings, %d different games; want 49 and 98", res.DistinctOpenings, differentGames(res))
	}
	for i, r := range res.Records {
		if got, want := strings.Join(r.Moves[:2], " "), strings.Join(ops[i/2].Moves, " "); got != want {
			t.Fatalf("game %d opens %s, DistinctOpenings drew %s", i, got, want)
		}
	}

	m.OpeningPlies = 4
	if res, err = RunMatch(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if res.DistinctOpenings != 100 || differentGames(res) != 200 {
		t.Errorf("four plies: %d distinct openings, %d different games; want 100 and 200", res.DistinctOpenings, differentGames(res))
	}
	m.Openings = ops
	if res, err = RunMatch(context.Background(), m); err != nil || res.DistinctOpenings != 0 {
		t.Errorf("a match with openings: %d distinct drawn, %v", res.DistinctOpenings, err)
	}
	if _, _, err := DistinctOpenings(g, nil, 60, 1, 5); err == nil {
		t.Error("60 plies of Connect Four: no error")
	}
}
