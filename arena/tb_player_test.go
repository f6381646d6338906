package arena

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
	"github.com/tabula-zero/tabula/internal/liondata"
)

// subTable writes the tablebase of the sub-game with the lions and one
// chick (built in well under a second) and returns its path.
func subTable(t *testing.T) string {
	t.Helper()
	tb, err := tablebase.Build(context.Background(), tablebase.Material{Chicks: 1}, tablebase.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sub.tb")
	if err := tb.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// subPositions returns n random positions of that sub-game that are not
// over: the two lions and a chick (or hen) placed at random, or the chick
// in a hand.
func subPositions(t *testing.T, n int, seed uint64) []*lion.Position {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []*lion.Position
	for len(out) < n {
		var sq [12]byte
		for i := range sq {
			sq[i] = '.'
		}
		for _, pc := range []byte{'L', 'l', "CcHh"[rng.IntN(4)]} {
			s := rng.IntN(12)
			for sq[s] != '.' {
				s = rng.IntN(12)
			}
			sq[s] = pc
		}
		hand := "-"
		if rng.IntN(3) == 0 { // the chick in a hand instead
			for i, c := range sq {
				if c != '.' && c != 'L' && c != 'l' {
					sq[i] = '.'
					hand = string("Cc"[rng.IntN(2)])
				}
			}
		}
		var rows []string
		for r := range 4 {
			rows = append(rows, strings.ReplaceAll(string(sq[3*r:3*r+3]), "...", "3"))
		}
		text := strings.Join(rows, "/")
		text = strings.NewReplacer("..", "2", ".", "1").Replace(text)
		side := "wb"[rng.IntN(2)]
		p, err := lion.Parse(text+" "+string(side)+" "+hand+" 1", nil)
		if err != nil || p.Status().Over() {
			continue
		}
		out = append(out, p)
	}
	return out
}

// TestTBPlayerPlaysPerfectly plays the tb player against itself from
// random positions of a sub-game: every game must end as the table says,
// in exactly the plies it promises (the winner hurrying, the loser
// delaying), and the same seed must give the same game.
func TestTBPlayerPlaysPerfectly(t *testing.T) {
	path := subTable(t)
	s, err := ParsePlayer("tb:"+path+",name=oracle", "lion")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "oracle" {
		t.Fatalf("name %q", s.Name())
	}
	tb, err := tablebase.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	pl, err := s.New()
	if err != nil {
		t.Fatal(err)
	}
	decided := 0
	for i, start := range subPositions(t, 300, 7) {
		want, err := tb.Probe(start)
		if err != nil {
			t.Fatal(err)
		}
		play := func(seed uint64) (string, game.Status, int) {
			p := start.Clone().(*lion.Position)
			if err := pl.NewGame(p, seed); err != nil {
				t.Fatal(err)
			}
			var line []string
			for ply := 0; ply < 60; ply++ {
				if st := p.Status(); st.Over() {
					return strings.Join(line, " "), st, ply
				}
				m, err := pl.Move(context.Background(), p.Clone(), nil)
				if err != nil {
					t.Fatal(err)
				}
				line = append(line, p.FormatMove(m))
				p.Make(m)
			}
			return strings.Join(line, " "), game.Status{}, 60
		}
		line, st, plies := play(uint64(i))
		again, _, _ := play(uint64(i))
		if line != again {
			t.Fatalf("%s: seed %d played %q, then %q", start, i, line, again)
		}
		if want.Outcome == game.Draw {
			if st.Over() && st.Reason != lion.ReasonRepetition {
				t.Errorf("%s: a draw, but the game ended %v after %s", start, st, line)
			}
			continue
		}
		decided++
		// Result is from the side to move at the end: the loser after an
		// odd number of plies when the starter wins.
		wantEnd := want.Outcome
		if plies%2 == 1 {
			wantEnd = map[game.Result]game.Result{game.Win: game.Loss, game.Loss: game.Win}[wantEnd]
		}
		if !st.Over() || plies != want.Plies || st.Result != wantEnd {
			t.Errorf("%s: %v, but the game went %s: %v after %d plies", start, want, line, st, plies)
		}
	}
	if decided < 100 {
		t.Fatalf("only %d decided positions", decided)
	}
}

// TestTBSpecErrors checks that a tb spec names its problem.
func TestTBSpecErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.tb")
	if err := os.WriteFile(junk, make([]byte, 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	path := subTable(t)
	for _, c := range []struct{ spec, game, want string }{
		{"tb:" + filepath.Join(dir, "none.tb"), "lion", "no such file"},
		{"tb:" + filepath.Join(dir, "none.tb"), "lion", "tabula liontb"},
		{"tb:" + junk, "lion", "not a Catch the Lion tablebase"},
		{"tb:" + path, "connect4", "not connect4"},
		{"tb", "lion", "tb needs a tablebase file"},
		{"tb:" + path + ",depth=3", "lion", `unknown key "depth"`},
		{"tb:" + path + ",x", "lion", `unexpected argument "x"`},
	} {
		_, err := ParsePlayer(c.spec, c.game)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s for %s: %v, want an error with %q", c.spec, c.game, err, c.want)
		}
	}
	// A position of other material than the table's is refused in play.
	s, err := ParsePlayer("tb:"+path, "lion")
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := s.New()
	start, _ := lion.New(nil)
	if _, err := pl.Move(context.Background(), start, nil); err == nil || !strings.Contains(err.Error(), "material") {
		t.Errorf("full-game start on a sub-game table: %v", err)
	}
}

// TestTBPlayerFullTable needs the full table (TABULA_LION_TB): the
// perfect player, second from the start, beats random play, alpha-beta to
// depth 4 and 8 and the shipped network with its search.
func TestTBPlayerFullTable(t *testing.T) {
	path := os.Getenv(tablebase.EnvFile)
	if path == "" {
		t.Skip("needs the full Lion tablebase in $" + tablebase.EnvFile + ": " + tablebase.BuildHint)
	}
	tbs, err := ParsePlayer("tb:"+path, "lion")
	if err != nil {
		t.Fatal(err)
	}
	for _, opp := range []string{"random", "ab:depth=4", "ab:depth=8", "net:lion,sims=256"} {
		o, err := ParsePlayer(opp, "lion")
		if err != nil {
			t.Fatal(err)
		}
		// From the start (no random plies), the table second in every
		// game: the odd games of a pair match put B first.
		res, err := RunMatch(context.Background(), Match{Game: "lion", A: o, B: tbs, Games: 4, Concurrency: 2, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records) != 4 {
			t.Fatalf("%d records", len(res.Records))
		}
		for _, r := range res.Records {
			t.Logf("%s - %s: %s (%s, %d plies)", r.First, r.Second, r.Result, r.Reason, r.Plies)
			if r.Second == tbs.Name() && r.Result != ResultSecondWins {
				t.Errorf("tb second against %s: %s (%s, %d plies)", opp, r.Result, r.Reason, r.Plies)
			}
		}
	}
}

// TestTBWinsWonPositions needs the full table (TABULA_LION_TB): from
// every won position of the Lion oracle's test set the perfect player,
// to move, beats alpha-beta at depth 8, within the plies the table
// promises (the loser can only shorten them). A consistency check of the
// table in play: a wrong value or distance anywhere on the way shows.
func TestTBWinsWonPositions(t *testing.T) {
	path := os.Getenv(tablebase.EnvFile)
	if path == "" {
		t.Skip("needs the full Lion tablebase in $" + tablebase.EnvFile + ": " + tablebase.BuildHint)
	}
	if testing.Short() {
		t.Skip("plays a thousand games (-short)")
	}
	lines, err := liondata.Open(0)
	if err != nil {
		t.Fatal(err)
	}
	var won []liondata.Line
	for _, l := range lines {
		if l.Value.Outcome == game.Win {
			won = append(won, l)
		}
	}
	tbs, err := ParsePlayer("tb:"+path, "lion")
	if err != nil {
		t.Fatal(err)
	}
	ab, err := ParsePlayer("ab:depth=8", "lion")
	if err != nil {
		t.Fatal(err)
	}
	var wins atomic.Int64
	err = EachPosition(t.Context(), tbs, len(won), 2, func() (func(context.Context, Player, int) error, error) {
		opp, err := ab.New()
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, pl Player, i int) error {
			l := won[i]
			p, err := lion.Parse(l.Text, nil)
			if err != nil {
				return err
			}
			players := [2]Player{pl, opp}
			for _, x := range players {
				if err := x.NewGame(p, uint64(i)); err != nil {
					return err
				}
			}
			var moves []game.Move
			for ply := 0; ply <= l.Value.Plies; ply++ {
				if st := p.Status(); st.Over() {
					// The side to move at the end lost when the table's
					// side moved last (an odd number of plies).
					if ply%2 == 1 && st.Result == game.Loss {
						wins.Add(1)
						return nil
					}
					t.Errorf("%s (%v): the table's side did not win: %v after %d plies", l.Text, l.Value, st, ply)
					return nil
				}
				m, err := players[ply%2].Move(ctx, p.Clone(), moves)
				if err != nil {
					return err
				}
				p.Make(m)
				moves = append(moves, m)
			}
			t.Errorf("%s (%v): no win within the promised %d plies", l.Text, l.Value, l.Value.Plies)
			return nil
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the table won %d of %d won positions against ab:depth=8", wins.Load(), len(won))
	if int(wins.Load()) != len(won) || len(won) < 1000 {
		t.Errorf("won %d of %d", wins.Load(), len(won))
	}
}
