// Package matches plays a training run's matches: the gate after each
// generation (the candidate against the best network and the configured
// opponents, deciding promotion) and the evaluation (the best network
// against the config's anchors, and its Pons measures). Both are arena
// matches of the run's networks with the run's search constants,
// summarised as metrics.MatchResult; the trainer decides when to play
// them and records the results.
package matches

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/rundir"
)

// Gate plays the configured gate matches of the candidate of generation
// gen against the best network (of generation bestGen) and reports
// whether to promote it.
type Gate func(ctx context.Context, cfg *configs.Config, candidate *net.Params, gen int, best *net.Params, bestGen int) (GateResult, error)

// GateResult is the outcome of a generation's gating.
type GateResult struct {
	Promote bool                  `json:"promote"`
	Matches []metrics.MatchResult `json:"matches"`
	// Teacher: promoted ungated in a teacher generation
	// (selfplay.abzero.teacher_generations).
	Teacher bool `json:"teacher,omitempty"`
}

// ArenaGate is the default gate: the config's gate matches played with the
// arena, records in RUN/arena. A match with a threshold is a promotion
// gate (the candidate must reach that score); the others are recorded to
// show strength over training. Each pair of games starts with the game's
// OpeningPlies random plies.
func ArenaGate(run string) Gate {
	return func(ctx context.Context, cfg *configs.Config, cand *net.Params, gen int, best *net.Params, bestGen int) (GateResult, error) {
		res := GateResult{Promote: true}
		g, err := cfg.LookupGame()
		if err != nil {
			return res, err
		}
		rules := game.Options(cfg.Rules)
		search := player.RunSearch(cfg.Search)
		for i, gm := range cfg.Gating.Matches {
			a, b, err := gatePlayers(cfg.Game, search, i, gm, cand, gen, best, bestGen)
			if err != nil {
				return res, err
			}
			label := fmt.Sprintf("g%06d-%d-%s", gen, i, safe(gm.Opponent))
			m := arena.Match{Game: cfg.Game, Rules: rules, A: a, B: b, Games: gm.Games,
				Concurrency: 2, OpeningPlies: g.OpeningPlies, Seed: cfg.Seed + uint64(gen)*1000 + uint64(i),
				RecordDir: rundir.Dir(run).Arena(), Label: label,
				OnGame: func(arena.Record, arena.Score) { progress.FromContext(ctx).Add(1) }}
			r, err := arena.RunMatch(ctx, m)
			if err != nil {
				return res, err
			}
			mr := matchResult(r, a, b, gm.Threshold)
			res.Promote = res.Promote && (gm.Threshold == 0 || mr.Passed)
			res.Matches = append(res.Matches, mr)
		}
		return res, nil
	}
}

// CheckPlayers builds the players of every evaluation match of a run of
// gameName (its search section search, evaluation section eval) and of
// every gate match of gating (empty when the run is not gated), with the
// fresh network fresh makes (called only when there is a match): a bad
// player spec fails when the config loads, not after a generation of
// self-play and training, and not (an evaluation's) after the config is
// frozen, when every resume would fail until -accept-config-change.
func CheckPlayers(gameName string, search configs.Search, gating configs.Gating, eval configs.Evaluation, fresh func() (*net.Params, error)) error {
	if len(gating.Matches) == 0 && len(eval.Matches) == 0 {
		return nil
	}
	p, err := fresh()
	if err != nil {
		return err
	}
	ms := player.RunSearch(search)
	for i, gm := range gating.Matches {
		if _, _, err := gatePlayers(gameName, ms, i, gm, p, 1, p, 0); err != nil {
			return err
		}
	}
	for i, em := range eval.Matches {
		// A missing engine only skips its evaluation match (said then).
		if _, _, err := evaluationPlayers(gameName, ms, i, em, p, 0); err != nil && !missingProgram(em.Opponent, err) {
			return err
		}
	}
	return nil
}

// gatePlayers makes the players of gate match i, gm: the candidate of
// generation gen and its opponent (the best network or a player spec),
// the networks searching with the run's constants search.
func gatePlayers(gameName string, search mcts.Config, i int, gm configs.GateMatch, cand *net.Params, gen int, best *net.Params, bestGen int) (a, b *arena.Spec, err error) {
	key := fmt.Sprintf("gating.matches[%d]", i)
	if a, err = netPlayer(gameName, search, gm.Simulations, cand, fmt.Sprintf("gen%d", gen)); err != nil {
		return nil, nil, fmt.Errorf("matches: %s: %w", key, err)
	}
	if gm.Opponent == "best" {
		b, err = netPlayer(gameName, search, gm.Simulations, best, fmt.Sprintf("gen%d", bestGen))
	} else {
		b, err = arena.ParsePlayer(gm.Opponent, gameName)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("matches: %s.opponent: %w", key, err)
	}
	return a, b, nil
}

// netPlayer makes the player of a network of gameName with sims
// simulations a move (0: the raw policy) and the run's search constants
// (player.RunSearch of the config's search section; noise stays off in
// matches): a net spec of package player of the network in memory.
func netPlayer(gameName string, search mcts.Config, sims int, p *net.Params, name string) (*arena.Spec, error) {
	ps, err := player.NetSpec(gameName, p, sims, search)
	if err != nil {
		return nil, fmt.Errorf("player %q: %w", name, err)
	}
	return arena.NewPlayerSpec(name, ps)
}

// matchResult summarises a match from player a's side; threshold > 0
// makes it a promotion gate, passed or not.
func matchResult(r arena.Result, a, b *arena.Spec, threshold float64) metrics.MatchResult {
	s := r.Score.Summary()
	mr := metrics.MatchResult{Opponent: b.Name(), Candidate: a.Name(), Games: s.Games, Wins: s.Wins, Draws: s.Draws, Losses: s.Losses,
		Score: float64(s.Score), Elo: clampElo(float64(s.Elo)), EloCI95: clampElo(float64(s.EloCI95)), LOS: float64(s.LOS), Threshold: threshold}
	if threshold > 0 {
		mr.Passed = r.Passes(threshold)
	}
	return mr
}

func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// clampElo keeps Elo figures finite and bounded for JSON: a margin
// without spread (every game drawn) is NaN.
func clampElo(e float64) float64 {
	if math.IsNaN(e) {
		return 0
	}
	return max(-1000, min(1000, e))
}
