package arena

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/rollout"
)

// rolloutConfig parses spec for gameName and returns its players'
// configuration.
func rolloutConfig(t *testing.T, spec, gameName string) rollout.Config {
	t.Helper()
	s, err := ParsePlayer(spec, gameName)
	if err != nil {
		t.Fatalf("%q: %v", spec, err)
	}
	pl, err := s.New()
	if err != nil {
		t.Fatalf("%q: New: %v", spec, err)
	}
	rp, ok := pl.(*rolloutPlayer)
	if !ok {
		t.Fatalf("%q: player %T", spec, pl)
	}
	return rp.s.Config()
}

func TestParseRolloutPlayers(t *testing.T) {
	def := func(alg string) rollout.Config {
		c, err := rollout.DefaultConfig(alg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, c := range []struct {
		spec, game string
		want       func(*rollout.Config)
	}{
		{"uct:c=0.7,playouts=20000", "xiangqi", func(c *rollout.Config) { c.C, c.PlayoutCap = 0.7, 200 }},
		{"mast:k=16,c=0.9,movetime=2000", "xiangqi", func(c *rollout.Config) { c.MoveTime, c.Playouts, c.PlayoutCap = 2*time.Second, 0, 200 }},
		{"ppap:alpha=0.04,p=1,c=0.4,playouts=20000", "xiangqi", func(c *rollout.Config) { c.PlayoutCap = 200 }},
		{"ppafp", "xiangqi", func(c *rollout.Config) { c.PlayoutCap = 200 }},
		{"mcts-ms:depth=6,threshold=20,movetime=2000", "lion", func(c *rollout.Config) { c.MoveTime, c.Playouts, c.PlayoutCap = 2*time.Second, 0, 100 }},
		{"solver:movetime=1000", "lion", func(c *rollout.Config) { c.MoveTime, c.Playouts, c.PlayoutCap = time.Second, 0, 100 }},
		{"mcts-mr:depth=1", "lion", func(c *rollout.Config) { c.PlayoutCap = 100 }},
		{"mcts-mb:depth=3", "connect4", func(*rollout.Config) {}},
		{"uct", "connect4", func(*rollout.Config) {}},
		{"uct:movetime=500ms,playouts=100,maxplies=0,reuse=false,nodes=1000", "lion", func(c *rollout.Config) {
			c.MoveTime, c.Playouts, c.PlayoutCap, c.Reuse, c.MaxNodes = 500*time.Millisecond, 100, 0, false, 1000
		}},
		{"ppa:alpha=0.5,k=2,c=1", "connect4", func(c *rollout.Config) { c.Alpha, c.K, c.C = 0.5, 2, 1 }},
		{"ppaf:alpha=0.32", "lion", func(c *rollout.Config) { c.Alpha, c.PlayoutCap = 0.32, 100 }},
		{"solver:a=2,c=0.3", "connect4", func(c *rollout.Config) { c.A, c.C = 2, 0.3 }},
	} {
		kind, _, _ := strings.Cut(c.spec, ":")
		want := def(kind)
		c.want(&want)
		if got := rolloutConfig(t, c.spec, c.game); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: config\n%+v, want\n%+v", c.spec, got, want)
		}
	}
	// The theses' tuned defaults.
	for _, c := range []struct {
		spec           string
		C, alpha, p, k float64
		depth, thresh  int
	}{
		{"uct", math.Sqrt2, 1, 1, 1, 0, 0},
		{"ppap", 0.4, 0.04, 1, 1, 0, 0},
		{"ppafp", 0.4, 0.32, 2, 1, 0, 0},
		{"mast", 0.9, 1, 1, 16, 0, 0},
		{"mcts-mr", rollout.CSolver, 1, 1, 1, 1, 0},
		{"mcts-ms", rollout.CSolver, 1, 1, 1, 6, 20},
		{"mcts-mb", rollout.CSolver, 1, 1, 1, 3, 0},
	} {
		got := rolloutConfig(t, c.spec, "lion")
		if got.C != c.C || got.Alpha != c.alpha || got.Penalty != c.p || got.K != c.k || got.Depth != c.depth || got.Threshold != c.thresh || got.Playouts != rollout.DefaultPlayouts || !got.Reuse {
			t.Errorf("%q: defaults %+v", c.spec, got)
		}
	}
}

func TestParseRolloutErrors(t *testing.T) {
	for _, c := range []struct{ spec, game, want string }{
		{"uct:depth=3", "lion", `unknown key "depth" for uct`},
		{"mast:alpha=1", "lion", `unknown key "alpha" for mast`},
		{"ppa:p=2", "lion", `unknown key "p" for ppa`},
		{"solver:threshold=5", "lion", `unknown key "threshold"`},
		{"mast:k=x", "lion", `k="x" is not a number`},
		{"uct:c=-1", "lion", "c=-1 out of range"},
		{"uct:c=NaN", "lion", `c="NaN" is not a number`},
		{"ppap:p=0", "lion", "p=0 out of range"},
		{"mcts-ms:threshold=0", "lion", "threshold=0 out of range"},
		{"mcts-mr:depth=33", "lion", "depth=33 out of range"},
		{"mcts-mb:depth=two", "lion", `depth="two" is not an integer`},
		{"uct:playouts=0", "lion", "playouts=0 out of range"},
		{"uct:movetime=fast", "lion", "neither milliseconds nor a duration"},
		{"uct:reuse=maybe", "lion", `reuse="maybe" is not true or false`},
		{"uct:maxplies=-1", "lion", "maxplies=-1 out of range"},
		{"uct:3", "lion", `unexpected argument "3"`},
		{"uct:c=1,c=2", "lion", "given twice"},
		{"ppaf", "connect4", "game connect4 has no move features for ppaf"},
		{"ppafp:alpha=1", "connect4", "no move features"},
		{"nrpa", "lion", `unknown kind "nrpa"`},
	} {
		_, err := ParsePlayer(c.spec, c.game)
		if err == nil {
			t.Errorf("%q: accepted", c.spec)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "arena: ") {
			t.Errorf("%q: error %q, want it to start with \"arena: \" and mention %q", c.spec, err, c.want)
		}
	}
	_, err := ParsePlayer("nrpa", "lion")
	if err == nil || !strings.Contains(err.Error(), "mcts-ms") {
		t.Errorf("the unknown-kind error does not list the rollout kinds: %v", err)
	}
}

// Rollout players play whole matches, reproducibly from the seed, and
// play legal moves from every game's start.
func TestRolloutMatch(t *testing.T) {
	for _, gn := range []string{"connect4", "lion", "xiangqi"} {
		s := spec(t, "uct:playouts=30", gn)
		pl, _ := s.New()
		g, _ := game.Lookup(gn)
		pos, _ := g.New(nil)
		if err := pl.NewGame(pos, 1); err != nil {
			t.Fatal(err)
		}
		if mv, err := pl.Move(context.Background(), pos.Clone(), nil); err != nil || !game.IsLegal(pos, mv) {
			t.Errorf("%s: move %v, %v", gn, mv, err)
		}
	}
	run := func() []Record {
		m := Match{Game: "lion", A: spec(t, "mcts-mr:playouts=200", "lion"), B: spec(t, "uct:playouts=200", "lion"),
			Games: 4, Concurrency: 2, OpeningPlies: 2, Seed: 3, PlyCap: 120}
		res, err := RunMatch(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		checkPairs(t, res.Records)
		for i := range res.Records {
			replay(t, res.Records[i], 0)
			res.Records[i].Millis, res.Records[i].Time = 0, time.Time{}
		}
		return res.Records
	}
	if a, b := run(), run(); !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different rollout games")
	}
}
