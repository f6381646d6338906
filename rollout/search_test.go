package rollout_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/rollout"
)

func newGame(t *testing.T, name string) game.Position {
	t.Helper()
	g, err := game.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// selfPlay plays plies moves of a game between two searchers of cfg
// seeded a and b, and returns the moves.
func selfPlay(t *testing.T, gn string, cfg rollout.Config, a, b uint64, plies int) []string {
	t.Helper()
	p := newGame(t, gn)
	var s [2]*rollout.Searcher
	for i, seed := range []uint64{a, b} {
		var err error
		if s[i], err = rollout.New(cfg, 99); err != nil {
			t.Fatal(err)
		}
		s[i].NewGame(seed)
	}
	var out []string
	for ply := 0; ply < plies && !p.Status().Over(); ply++ {
		res, err := s[ply%2].Search(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.FormatMove(res.Move))
		p.Make(res.Move)
	}
	return out
}

// Every player is seeded: the same seeds give the same games, with the
// tree kept across moves or not.
func TestReproducible(t *testing.T) {
	for _, gn := range []string{"connect4", "lion", "xiangqi"} {
		for _, alg := range rollout.Algorithms {
			if gn == "connect4" && (alg == rollout.PPAF || alg == rollout.PPAFP) {
				continue
			}
			cfg, _ := rollout.DefaultConfig(alg)
			cfg.Playouts, cfg.PlayoutCap = 300, 100
			plies := 8
			if gn == "xiangqi" {
				cfg.Playouts, plies = 40, 4
				if alg == rollout.MR || alg == rollout.MS {
					cfg.Depth, cfg.Playouts = 1, 10
				}
			}
			for _, reuse := range []bool{true, false} {
				cfg.Reuse = reuse
				first := selfPlay(t, gn, cfg, 1, 2, plies)
				if again := selfPlay(t, gn, cfg, 1, 2, plies); !slices.Equal(first, again) {
					t.Errorf("%s %s reuse=%v: same seeds, different games:\n%v\n%v", gn, alg, reuse, first, again)
				}
			}
		}
	}
}

// The tree is kept across the moves of a game: after our move and the
// reply, the new root has the visits it had in the old tree.
func TestTreeReuse(t *testing.T) {
	for _, reuse := range []bool{true, false} {
		cfg, _ := rollout.DefaultConfig(rollout.UCT)
		cfg.Playouts, cfg.Reuse = 5000, reuse
		s, _ := rollout.New(cfg, 1)
		p := newGame(t, "lion")
		first, err := s.Search(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		p.Make(first.Move)
		ms := p.GenerateMoves(nil)
		p.Make(ms[0])
		res, err := s.Search(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if reuse && res.Visits <= res.Playouts {
			t.Errorf("reuse: %d visits after %d playouts: the subtree was not kept", res.Visits, res.Playouts)
		}
		if !reuse && res.Visits != res.Playouts {
			t.Errorf("fresh: %d visits after %d playouts", res.Visits, res.Playouts)
		}
		// The same position again: the whole tree is kept.
		again, _ := s.Search(context.Background(), p)
		if reuse && again.Visits != res.Visits+again.Playouts {
			t.Errorf("same position: %d visits, want %d + %d", again.Visits, res.Visits, again.Playouts)
		}
	}
}

// A move time bounds the search; a cancelled context stops it at once and
// returns a legal move with the context's error.
func TestBudgetAndCancel(t *testing.T) {
	p := newGame(t, "xiangqi")
	cfg, _ := rollout.DefaultConfig(rollout.MAST)
	cfg.Playouts, cfg.MoveTime = 0, 100*time.Millisecond
	s, _ := rollout.New(cfg, 1)
	// The move time ends the search by itself, before a watchdog context.
	wctx, wcancel := context.WithTimeout(context.Background(), time.Minute)
	defer wcancel()
	res, err := s.Search(wctx, p)
	if err != nil || !game.IsLegal(p, res.Move) || res.Playouts == 0 {
		t.Fatalf("movetime search: %v, %+v", err, res)
	}

	for _, alg := range []string{rollout.UCT, rollout.MS} {
		cfg, _ := rollout.DefaultConfig(alg)
		cfg.Playouts = 1 << 30
		s, _ := rollout.New(cfg, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		res, err = s.Search(ctx, p)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: cancelled search returned %v", alg, err)
		}
		if !game.IsLegal(p, res.Move) {
			t.Errorf("%s: cancelled search returned no legal move", alg)
		}
	}
}

func TestSearchErrors(t *testing.T) {
	cfg, _ := rollout.DefaultConfig(rollout.PPAF)
	s, _ := rollout.New(cfg, 1)
	if _, err := s.Search(context.Background(), connect4.New()); err == nil || !strings.Contains(err.Error(), "features") {
		t.Errorf("ppaf on Connect Four: %v, want an error about move features", err)
	}
	over, err := connect4.Parse("1122334")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ = rollout.DefaultConfig(rollout.UCT)
	s, _ = rollout.New(cfg, 1)
	if _, err := s.Search(context.Background(), over); !errors.Is(err, rollout.ErrGameOver) {
		t.Errorf("finished game: %v, want ErrGameOver", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Search(ctx, connect4.New()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestConfig(t *testing.T) {
	for _, alg := range rollout.Algorithms {
		cfg, err := rollout.DefaultConfig(alg)
		if err != nil || cfg.Validate() != nil {
			t.Errorf("%s: default config: %v, %v", alg, err, cfg.Validate())
		}
	}
	if _, err := rollout.DefaultConfig("nrpa"); err == nil {
		t.Error("unknown algorithm accepted")
	}
	bad := []struct {
		alg  string
		mod  func(*rollout.Config)
		want string
	}{
		{rollout.UCT, func(c *rollout.Config) { c.C = -1 }, "c ="},
		{rollout.UCT, func(c *rollout.Config) { c.Playouts, c.MoveTime = 0, 0 }, "budget"},
		{rollout.Solver, func(c *rollout.Config) { c.A = -1 }, "A ="},
		{rollout.MR, func(c *rollout.Config) { c.Depth = 0 }, "depth"},
		{rollout.MB, func(c *rollout.Config) { c.Depth = rollout.MaxDepth + 1 }, "depth"},
		{rollout.MS, func(c *rollout.Config) { c.Threshold = 0 }, "threshold"},
		{rollout.PPAP, func(c *rollout.Config) { c.Penalty = 0 }, "p ="},
		{rollout.PPA, func(c *rollout.Config) { c.Alpha = -0.1 }, "alpha"},
		{rollout.MAST, func(c *rollout.Config) { c.K = -1 }, "k ="},
		{rollout.UCT, func(c *rollout.Config) { c.PlayoutCap = -1 }, "cap"},
	}
	for _, b := range bad {
		cfg, _ := rollout.DefaultConfig(b.alg)
		b.mod(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: %+v: error %v, want one mentioning %q", b.alg, cfg, err, b.want)
		}
		if _, err := rollout.New(cfg, 1); err == nil {
			t.Errorf("%s: New accepted %+v", b.alg, cfg)
		}
	}
}
