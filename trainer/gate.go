package trainer

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/net"
)

// openingPlies is how many random plies start each pair of gate games, so
// that the deterministic players do not replay one game.
var openingPlies = map[string]int{"connect4": 2, "lion": 2, "xiangqi": 4}

// ArenaGate is the default gate: the config's gate matches played with the
// arena, records in RUN/arena. A match with a threshold is a promotion
// gate (the candidate must reach that score, or pass the SPRT); the others
// are recorded to show strength over training.
func ArenaGate(run string) Gate {
	return func(ctx context.Context, cfg *configs.Config, cand *net.Params, gen int, best *net.Params, bestGen int) (GateResult, error) {
		res := GateResult{Promote: true}
		rules := game.Options(cfg.Rules)
		for i, gm := range cfg.Gating.Matches {
			opts := arena.NetOptions{Sims: gm.Simulations, Gumbel: cfg.Search.Kind == "gumbel"}
			candName := fmt.Sprintf("gen%d", gen)
			if gm.Candidate != "" && gm.Candidate != "net" {
				var err error
				if opts, err = abzeroOptions(gm.Candidate, opts); err != nil {
					return res, fmt.Errorf("trainer: gating.matches[%d].candidate: %w", i, err)
				}
				candName = fmt.Sprintf("gen%d-abzero", gen)
			}
			a, err := arena.NewNetSpec(candName, cfg.Game, cand, opts)
			if err != nil {
				return res, err
			}
			var b *arena.Spec
			if gm.Opponent == "best" {
				b, err = arena.NewNetSpec(fmt.Sprintf("gen%d", bestGen), cfg.Game, best, arena.NetOptions{Sims: gm.Simulations, Gumbel: opts.Gumbel})
			} else {
				b, err = arena.ParsePlayer(gm.Opponent, cfg.Game)
			}
			if err != nil {
				return res, fmt.Errorf("trainer: gating.matches[%d].opponent: %w", i, err)
			}
			label := fmt.Sprintf("g%06d-%d-%s", gen, i, safe(gm.Opponent))
			r, err := arena.RunMatch(ctx, arena.Match{Game: cfg.Game, Rules: rules, A: a, B: b, Games: gm.Games,
				Concurrency: 2, OpeningPlies: openingPlies[cfg.Game], Seed: cfg.Seed + uint64(gen)*1000 + uint64(i),
				RecordDir: filepath.Join(run, "arena"), Label: label})
			if err != nil {
				return res, err
			}
			s := r.Score.Summary()
			mr := MatchResult{Opponent: b.Name(), Candidate: candName, Games: s.Games, Wins: s.Wins, Draws: s.Draws, Losses: s.Losses,
				Score: float64(s.Score), Elo: clampElo(float64(s.Elo)), EloCI95: clampElo(float64(s.EloCI95)), LOS: float64(s.LOS), Threshold: gm.Threshold}
			if gm.Threshold > 0 {
				mr.Passed = r.Passes(gm.Threshold)
				res.Promote = res.Promote && mr.Passed
			}
			res.Matches = append(res.Matches, mr)
		}
		return res, nil
	}
}

// abzeroOptions reads a candidate spec "abzero:m=W,depth=N".
func abzeroOptions(spec string, o arena.NetOptions) (arena.NetOptions, error) {
	kind, args, _ := strings.Cut(spec, ":")
	if kind != "abzero" {
		return o, fmt.Errorf("%q is not net or abzero:m=W,depth=N", spec)
	}
	o.ABZero, o.M, o.Depth = true, 1, 2
	for _, kv := range strings.Split(args, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if kv == "" {
			continue
		}
		if !ok {
			return o, fmt.Errorf("%q: %q is not key=value", spec, kv)
		}
		var err error
		switch k {
		case "m":
			o.M, err = strconv.ParseFloat(v, 64)
		case "depth":
			o.Depth, err = strconv.Atoi(v)
		default:
			err = fmt.Errorf("unknown key %q", k)
		}
		if err != nil {
			return o, fmt.Errorf("%q: %v", spec, err)
		}
	}
	return o, nil
}

func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// clampElo keeps Elo figures finite for JSON: a clean sweep is +-Inf.
func clampElo(e float64) float64 {
	if math.IsNaN(e) {
		return 0
	}
	return max(-1000, min(1000, e))
}
