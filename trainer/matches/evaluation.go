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
	"github.com/tabula-zero/tabula/arena/lionoracle"
	"github.com/tabula-zero/tabula/arena/pons"
	"github.com/tabula-zero/tabula/arena/xqset"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/liondata"
	"github.com/tabula-zero/tabula/internal/ponsdata"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/selfplay"
)

// Evaluator plays a run's evaluations (the config's evaluation section).
type Evaluator struct {
	cfg   *configs.Config
	game  game.Game
	rules game.Options
	dir   rundir.Dir
	pons  []pons.Line // the Pons positions, read once per run
	lion  []liondata.Line
	xqset []xqset.Line
}

// NewEvaluator returns the evaluator of the run in dir, whose game g is
// played under rules.
func NewEvaluator(cfg *configs.Config, g game.Game, rules game.Options, dir rundir.Dir) *Evaluator {
	return &Evaluator{cfg: cfg, game: g, rules: rules, dir: dir}
}

// Evaluate measures the best network (of generation bestGen) against the
// config's anchors, recording the games in RUN/arena under labels of the
// run's training time at, then on the config's Pons positions. An anchor
// whose engine is not installed is skipped (skipped is told why): the
// other anchors still measure the run. Each game counts on the context's
// progress tracker.
func (e *Evaluator) Evaluate(ctx context.Context, best *net.Params, bestGen int, at time.Duration, skipped func(i int, err error)) ([]metrics.MatchResult, []metrics.PonsResult, error) {
	tr := progress.FromContext(ctx)
	var ms []metrics.MatchResult
	var ps []metrics.PonsResult
	for i, em := range e.cfg.Evaluation.Matches {
		a, b, err := evaluationPlayers(e.cfg, i, best, bestGen)
		if missingProgram(em.Opponent, err) {
			skipped(i, err)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		// The same seed at every evaluation: the openings are paired
		// across time and across runs of the config.
		// Milliseconds: two evaluations can fall within one second (the
		// last one right after a periodic one).
		label := fmt.Sprintf("e%010d-%d-%s", at.Milliseconds(), i, safe(em.Opponent))
		r, err := arena.RunMatch(ctx, arena.Match{Game: e.cfg.Game, Rules: e.rules, A: a, B: b, Games: em.Games,
			Concurrency: 2, OpeningPlies: e.game.OpeningPlies, Seed: e.cfg.Seed + uint64(i),
			RecordDir: e.dir.Arena(), Label: label, OnGame: func(arena.Record, arena.Score) { tr.Add(1) }})
		if err != nil {
			return nil, nil, err
		}
		ms = append(ms, matchResult(r, a, b, 0))
	}
	if p := e.cfg.Evaluation.Pons; p != nil {
		lines, err := e.ponsLines(p.Set, p.Positions)
		if err != nil {
			return nil, nil, err
		}
		tr.Begin("evaluation: Pons "+p.Set, "positions", int64(len(lines)*len(p.Simulations)))
		for _, n := range p.Simulations {
			s, err := e.bestPlayer(best, bestGen, n)
			if err != nil {
				return nil, nil, err
			}
			acc, err := pons.Measure(ctx, s, lines, 2)
			if err != nil {
				return nil, nil, err
			}
			ps = append(ps, metrics.PonsResult{Set: p.Set, Simulations: n, Positions: acc.Positions, Optimal: acc.Optimal,
				OptimalRate: acc.OptimalRate(), OutcomeRate: acc.OutcomeRate()})
		}
	}
	return ms, ps, nil
}

// bestPlayer is the best network (of generation bestGen) as a player with
// sims simulations (0: the raw policy), searching as the run's self-play
// does: what the Pons, Lion oracle and Xiangqi set measures play.
func (e *Evaluator) bestPlayer(best *net.Params, bestGen, sims int) (*arena.Spec, error) {
	search := selfplay.MCTSConfig(e.cfg)
	return arena.NewNetSpec(fmt.Sprintf("gen%d", bestGen), e.cfg.Game, best, arena.NetOptions{Sims: sims, Search: &search})
}

// missingProgram reports whether err says that the external engine of
// the player spec opponent (uci:) is not installed; a missing network file
// is an error of the config, not this.
func missingProgram(opponent string, err error) bool {
	return err != nil && strings.HasPrefix(opponent, "uci:") && (errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist))
}

// evaluationPlayers makes the players of evaluation match i: the best
// network (of generation bestGen) and the anchor its spec names.
func evaluationPlayers(cfg *configs.Config, i int, best *net.Params, bestGen int) (a, b *arena.Spec, err error) {
	em := cfg.Evaluation.Matches[i]
	key := fmt.Sprintf("evaluation.matches[%d]", i)
	if a, err = netPlayer(cfg, em, key, best, fmt.Sprintf("gen%d", bestGen)); err != nil {
		return nil, nil, err
	}
	if b, err = arena.ParsePlayer(em.Opponent, cfg.Game); err != nil {
		return nil, nil, fmt.Errorf("matches: %s.opponent: %w", key, err)
	}
	return a, b, nil
}

// ponsLines reads the first n positions of a Pons set once per run.
func (e *Evaluator) ponsLines(set string, n int) ([]pons.Line, error) {
	if e.pons != nil {
		return e.pons, nil
	}
	f, err := ponsdata.Open(set)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if e.pons, err = pons.Read(f, n); err != nil {
		return nil, fmt.Errorf("matches: evaluation.pons: %w", err)
	}
	return e.pons, nil
}

// XiangqiSet measures the best network (of generation bestGen) on the
// Xiangqi positions judged by Fairy-Stockfish (arena/xqset's embedded
// set), as evaluation.xiangqi_set asks: its moves with each simulation
// count, and its value head. Without the section it returns nothing.
func (e *Evaluator) XiangqiSet(ctx context.Context, best *net.Params, bestGen int) ([]metrics.SetResult, *metrics.SetValue, error) {
	o := e.cfg.Evaluation.XiangqiSet
	if o == nil {
		return nil, nil, nil
	}
	if e.xqset == nil {
		lines, _, err := xqset.Lines("", o.Positions)
		if err != nil {
			return nil, nil, fmt.Errorf("matches: evaluation.xiangqi_set: %w", err)
		}
		e.xqset = lines
	}
	tr := progress.FromContext(ctx)
	tr.Begin("evaluation: Xiangqi set", "positions", int64(len(e.xqset)*len(o.Simulations)))
	var out []metrics.SetResult
	var s *arena.Spec
	for _, n := range o.Simulations {
		var err error
		if s, err = e.bestPlayer(best, bestGen, n); err != nil {
			return nil, nil, err
		}
		r, err := xqset.Measure(ctx, s, e.xqset, 2)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, metrics.SetResult{Simulations: n, Positions: r.All.Positions, Best: r.All.Best, Good: r.All.Good,
			Blunders: r.All.Blunders, BestRate: r.All.BestRate(), GoodRate: r.All.GoodRate(), BlunderRate: r.All.BlunderRate()})
	}
	ev, err := s.Evaluator()
	if err != nil {
		return nil, nil, err
	}
	v, err := xqset.MeasureValues(ctx, ev, e.xqset)
	if err != nil {
		return nil, nil, err
	}
	return out, &metrics.SetValue{Decided: v.Decided, AgreeRate: v.AgreeRate()}, nil
}

// LionOracle measures the best network (of generation bestGen) on the
// Lion oracle's test set, as the config's evaluation.lion_oracle asks:
// its moves with each simulation count, and its value head. The set
// carries the exact values, so no tablebase file is needed. Without the
// section it returns nothing.
func (e *Evaluator) LionOracle(ctx context.Context, best *net.Params, bestGen int) ([]metrics.OracleResult, *metrics.OracleValue, error) {
	o := e.cfg.Evaluation.LionOracle
	if o == nil {
		return nil, nil, nil
	}
	if e.lion == nil {
		lines, err := liondata.Open(o.Positions)
		if err != nil {
			return nil, nil, fmt.Errorf("matches: evaluation.lion_oracle: %w", err)
		}
		e.lion = lines
	}
	tr := progress.FromContext(ctx)
	tr.Begin("evaluation: Lion oracle", "positions", int64(len(e.lion)*len(o.Simulations)))
	var out []metrics.OracleResult
	var s *arena.Spec
	for _, n := range o.Simulations {
		var err error
		if s, err = e.bestPlayer(best, bestGen, n); err != nil {
			return nil, nil, err
		}
		r, err := lionoracle.Measure(ctx, s, e.lion, 2)
		if err != nil {
			return nil, nil, err
		}
		res := metrics.OracleResult{Simulations: n, Positions: r.All.Positions, Optimal: r.All.Optimal, OutcomeKept: r.All.OutcomeKept,
			OptimalRate: r.All.OptimalRate(), OutcomeRate: r.All.OutcomeRate(), OptimalBy: map[string]float64{}, OutcomeBy: map[string]float64{}}
		for _, g := range []string{"class", "phase"} {
			for k, a := range r.By[g] {
				res.OptimalBy[k], res.OutcomeBy[k] = a.OptimalRate(), a.OutcomeRate()
			}
		}
		out = append(out, res)
	}
	ev, err := s.Evaluator()
	if err != nil {
		return nil, nil, err
	}
	v, err := lionoracle.MeasureValues(ctx, ev, e.lion)
	if err != nil {
		return nil, nil, err
	}
	return out, &metrics.OracleValue{Positions: v.All.Positions, AgreeRate: v.All.AgreeRate(), MeanError: v.All.MeanError()}, nil
}
