package arena

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/rollout"
)

// The classical MCTS players of package rollout, one kind per algorithm:
//
//	uct:[c=C,BUDGET,COMMON]
//	solver:[c=C,a=A,BUDGET,COMMON]
//	mcts-mr:[depth=D,c=C,a=A,BUDGET,COMMON]
//	mcts-ms:[depth=D,threshold=T,c=C,a=A,BUDGET,COMMON]
//	mcts-mb:[depth=D,c=C,a=A,BUDGET,COMMON]
//	ppa:[alpha=X,k=K,c=C,...]     ppaf: the same, with move features
//	ppap:[alpha=X,p=P,k=K,c=C,...] ppafp: the same, with move features
//	mast:[k=K,c=C,...]
//
// BUDGET is playouts=N and/or movetime=MS (milliseconds or a Go duration;
// with both, whichever ends first; with neither, 20,000 playouts, the
// Xiangqi thesis's fixed budget). COMMON is maxplies=N (the playout cap,
// 0 for none; default 100 plies for Catch the Lion as in the thesis's code,
// 200 for Xiangqi, none for Connect Four), reuse=true|false (keep the tree
// across the game's moves; default true, as both theses do) and nodes=N
// (the tree's node limit). Defaults are the theses' tuned values
// (rollout.DefaultConfig): uct c=1.414; solver and hybrids c=0.595, a=1,
// mcts-mr depth=1, mcts-ms depth=6 threshold=20, mcts-mb depth=3; ppa and
// ppaf alpha=1 c=1.414; ppap alpha=0.04 p=1 c=0.4; ppafp alpha=0.32 p=2
// c=0.4; mast k=16 c=0.9; k=1 for the PPA family. c is on the [0, 1]
// win-rate scale.

// isRolloutKind reports whether kind names a rollout player.
func isRolloutKind(kind string) bool { return slices.Contains(rollout.Algorithms, kind) }

// floatArg reads key as a finite number >= lo (> 0 when positive).
func (s *Spec) floatArg(kv map[string]string, key string, lo float64, positive bool, dst *float64) error {
	v, ok := kv[key]
	if !ok {
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("arena: player %q: %s=%q is not a number", s.Text, key, v)
	}
	if f < lo {
		return fmt.Errorf("arena: player %q: %s=%v out of range (want >= %v)", s.Text, key, f, lo)
	}
	if positive && f <= 0 {
		return fmt.Errorf("arena: player %q: %s=%v out of range (want > 0)", s.Text, key, f)
	}
	*dst = f
	return nil
}

// parseRollout reads a rollout player's parameters and makes s build its
// players.
func (s *Spec) parseRollout(g game.Game, kv map[string]string, pos []string) error {
	if err := s.noPositional(pos); err != nil {
		return err
	}
	cfg, err := rollout.DefaultConfig(s.Kind)
	if err != nil {
		return fmt.Errorf("arena: player %q: %w", s.Text, err)
	}
	allowed := []string{"c", "playouts", "movetime", "maxplies", "reuse", "nodes"}
	switch s.Kind {
	case rollout.Solver:
		allowed = append(allowed, "a")
	case rollout.MR, rollout.MB:
		allowed = append(allowed, "a", "depth")
	case rollout.MS:
		allowed = append(allowed, "a", "depth", "threshold")
	case rollout.PPA, rollout.PPAF:
		allowed = append(allowed, "alpha", "k")
	case rollout.PPAP, rollout.PPAFP:
		allowed = append(allowed, "alpha", "p", "k")
	case rollout.MAST:
		allowed = append(allowed, "k")
	}
	if err := s.keys(kv, allowed...); err != nil {
		return err
	}
	for _, f := range []struct {
		key      string
		positive bool
		dst      *float64
	}{{"c", false, &cfg.C}, {"a", false, &cfg.A}, {"alpha", false, &cfg.Alpha}, {"k", false, &cfg.K}, {"p", true, &cfg.Penalty}} {
		if err := s.floatArg(kv, f.key, 0, f.positive, f.dst); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		key    string
		lo, hi int
		dst    *int
	}{{"depth", 1, rollout.MaxDepth, &cfg.Depth}, {"threshold", 1, math.MaxInt32, &cfg.Threshold}, {"nodes", 1, 1 << 30, &cfg.MaxNodes}, {"maxplies", 0, 1 << 20, &cfg.PlayoutCap}} {
		n, ok, err := s.intArg(kv, f.key, f.lo, f.hi)
		if err != nil {
			return err
		}
		if ok {
			*f.dst = n
		}
	}
	if _, ok := kv["maxplies"]; !ok {
		cfg.PlayoutCap = g.PlayoutCap
	}
	n, hasPlayouts, err := s.intArg(kv, "playouts", 1, 1<<30)
	if err != nil {
		return err
	}
	if v, ok := kv["movetime"]; ok {
		t, err := player.ParseMoveTime(v)
		if err != nil {
			return fmt.Errorf("arena: player %q: %w", s.Text, err)
		}
		cfg.MoveTime, cfg.Playouts = t, 0
	}
	if hasPlayouts {
		cfg.Playouts = n
	}
	if v, ok := kv["reuse"]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("arena: player %q: reuse=%q is not true or false", s.Text, v)
		}
		cfg.Reuse = b
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("arena: player %q: %w", s.Text, err)
	}
	if cfg.Algorithm == rollout.PPAF || cfg.Algorithm == rollout.PPAFP {
		p, err := g.New(nil)
		if err != nil {
			return fmt.Errorf("arena: %w", err)
		}
		if _, ok := p.(rollout.MoveFeaturer); !ok {
			return fmt.Errorf("arena: player %q: game %s has no move features for %s", s.Text, g.Name, s.Kind)
		}
	}
	s.newPlayer = func() (Player, error) {
		r, err := rollout.New(cfg, 0)
		if err != nil {
			return nil, fmt.Errorf("arena: %w", err)
		}
		return &rolloutPlayer{name: s.name, s: r}, nil
	}
	return nil
}

// rolloutPlayer plays the move of a rollout search; its tree and random
// stream start afresh every game from the game's seed.
type rolloutPlayer struct {
	name     string
	s        *rollout.Searcher
	playouts int64 // the last search's
}

func (r *rolloutPlayer) Name() string      { return r.name }
func (r *rolloutPlayer) LastEffort() int64 { return r.playouts }
func (r *rolloutPlayer) Close() error      { return nil }

func (r *rolloutPlayer) NewGame(_ game.Position, seed uint64) error {
	r.s.NewGame(seed)
	return nil
}

func (r *rolloutPlayer) Move(ctx context.Context, p game.Position, _ []game.Move) (game.Move, error) {
	res, err := r.s.Search(ctx, p)
	r.playouts = int64(res.Playouts)
	if err != nil {
		return game.NoMove, err
	}
	return res.Move, nil
}
