package matches

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/measure"
	_ "github.com/tabula-zero/tabula/arena/measure/all" // the position-set measures
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/rundir"
)

// Evaluator plays a run's evaluations (the config's evaluation section).
type Evaluator struct {
	eval   configs.Evaluation
	search mcts.Config // the run's (player.RunSearch)
	seed   uint64
	game   game.Game
	rules  game.Options
	dir    rundir.Dir
}

// NewEvaluator returns the evaluator of the run in dir of its
// evaluation section eval, whose networks search as its search section
// says, whose game g is played under rules, its openings drawn from seed
// (the run's).
func NewEvaluator(eval configs.Evaluation, search configs.Search, seed uint64, g game.Game, rules game.Options, dir rundir.Dir) *Evaluator {
	return &Evaluator{eval: eval, search: player.RunSearch(search), seed: seed, game: g, rules: rules, dir: dir}
}

// Evaluate measures the best network (of generation bestGen) against the
// config's anchors, recording the games in RUN/arena under labels of the
// run's training time at. An anchor
// whose engine is not installed is skipped (skipped is told why): the
// other anchors still measure the run. Each game counts on the context's
// progress tracker.
func (e *Evaluator) Evaluate(ctx context.Context, best *net.Params, bestGen int, at time.Duration, skipped func(i int, err error)) ([]metrics.MatchResult, error) {
	tr := progress.FromContext(ctx)
	var ms []metrics.MatchResult
	for i, em := range e.eval.Matches {
		a, b, err := evaluationPlayers(e.game.Name, e.search, i, em, best, bestGen)
		if missingProgram(em.Opponent, err) {
			skipped(i, err)
			continue
		}
		if err != nil {
			return nil, err
		}
		// The same seed at every evaluation: the openings are paired
		// across time and across runs of the config.
		// Milliseconds: two evaluations can fall within one second (the
		// last one right after a periodic one).
		label := fmt.Sprintf("e%010d-%d-%s", at.Milliseconds(), i, safe(em.Opponent))
		r, err := arena.RunMatch(ctx, arena.Match{Game: e.game.Name, Rules: e.rules, A: a, B: b, Games: em.Games,
			Concurrency: 2, OpeningPlies: e.game.OpeningPlies, Seed: e.seed + uint64(i),
			RecordDir: e.dir.Arena(), Label: label, OnGame: func(arena.Record, arena.Score) { tr.Add(1) }})
		if err != nil {
			return nil, err
		}
		ms = append(ms, matchResult(r, a, b, 0))
	}
	return ms, nil
}

// Measures measures the best network (of generation bestGen) with every
// position-set measure (arena/measure) whose section the config's
// evaluation has: the entries of the evaluation's metrics line.
func (e *Evaluator) Measures(ctx context.Context, best *net.Params, bestGen int) (map[string]any, error) {
	out := map[string]any{}
	for _, m := range measure.All() {
		in := m.Info()
		o := e.eval.Set(in.Section)
		if o == nil {
			continue
		}
		entries, err := m.Evaluate(ctx, o.Set, o.Positions, o.Simulations, func(sims int) (*arena.Spec, error) {
			return e.bestPlayer(best, bestGen, sims)
		})
		if err != nil {
			return nil, err
		}
		for k, v := range entries {
			out[k] = v
		}
	}
	return out, nil
}

// bestPlayer is the best network (of generation bestGen) as a player with
// sims simulations (0: the raw policy), searching as the run's self-play
// does: what the position-set measures play.
func (e *Evaluator) bestPlayer(best *net.Params, bestGen, sims int) (*arena.Spec, error) {
	return netPlayer(e.game.Name, e.search, sims, best, fmt.Sprintf("gen%d", bestGen))
}

// missingProgram reports whether err says that the external engine of
// the player spec opponent (uci:) is not installed; a missing network file
// is an error of the config, not this.
func missingProgram(opponent string, err error) bool {
	return err != nil && strings.HasPrefix(opponent, "uci:") && (errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist))
}

// evaluationPlayers makes the players of evaluation match i, em: the
// best network (of generation bestGen, searching with the run's
// constants search) and the anchor its spec names.
func evaluationPlayers(gameName string, search mcts.Config, i int, em configs.GateMatch, best *net.Params, bestGen int) (a, b *arena.Spec, err error) {
	key := fmt.Sprintf("evaluation.matches[%d]", i)
	if a, err = netPlayer(gameName, search, em.Simulations, best, fmt.Sprintf("gen%d", bestGen)); err != nil {
		return nil, nil, fmt.Errorf("matches: %s: %w", key, err)
	}
	if b, err = arena.ParsePlayer(em.Opponent, gameName); err != nil {
		return nil, nil, fmt.Errorf("matches: %s.opponent: %w", key, err)
	}
	return a, b, nil
}
