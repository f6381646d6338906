package trainer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/internal/cputime"
	"github.com/tabula-zero/tabula/metrics"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/pons"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/internal/ponsdata"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/selfplay"
)

// clock is the run's training time: wall time summed over invocations,
// stopped while the run evaluates itself, so that what a run learns in a
// given time does not depend on how often it is measured. It counts the
// process's CPU time over the same segments.
type clock struct {
	mu       sync.Mutex
	base     time.Duration // of earlier invocations and finished segments
	running  time.Time     // start of the running segment; zero when stopped
	cpuBase  time.Duration // CPU time over the same
	cpuStart time.Duration // the process's CPU time when the segment started
}

func (c *clock) elapsed() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running.IsZero() {
		return c.base
	}
	return c.base + time.Since(c.running)
}

// cpu is the CPU time of the training segments; zero where the platform
// does not report it.
func (c *clock) cpu() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running.IsZero() {
		return c.cpuBase
	}
	now, _ := cputime.Process()
	return c.cpuBase + now - c.cpuStart
}

func (c *clock) start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running.IsZero() {
		c.running = time.Now()
		c.cpuStart, _ = cputime.Process()
	}
}

func (c *clock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running.IsZero() {
		c.base += time.Since(c.running)
		now, _ := cputime.Process()
		c.cpuBase += now - c.cpuStart
		c.running = time.Time{}
	}
}

// evaluationDue reports whether the config's evaluation interval has
// passed since the last evaluation (or none was made yet).
func (l *Loop) evaluationDue() bool {
	e := l.cfg.Evaluation
	if !e.Enabled() {
		return false
	}
	if l.lastEval < 0 {
		return true
	}
	return l.clock.elapsed() >= l.lastEval+e.Every
}

// evaluate measures the best network against the config's anchors and
// records the result (metrics, RUN/arena, plots). The training clock
// stands still meanwhile.
func (l *Loop) evaluate(ctx context.Context) error {
	l.clock.stop()
	defer l.clock.start()
	at := l.clock.elapsed()
	t0 := time.Now()
	e := l.cfg.Evaluation
	m := metrics.Metric{Kind: "evaluation", Time: time.Now().UTC(), Generation: l.gen, Step: l.trainer.State().Step,
		Best: l.bestGen, Window: l.window.Len(), TrainClock: at.Seconds()}
	search := selfplay.MCTSConfig(l.cfg)
	games := 0
	for _, em := range e.Matches {
		games += em.Games
	}
	l.opts.Progress.Begin("evaluation", "games", int64(games))
	defer l.opts.Progress.End()
	ctx = progress.WithTracker(ctx, l.opts.Progress)
	for i, em := range e.Matches {
		a, b, err := evaluationPlayers(l.cfg, i, l.best, l.bestGen)
		if missingProgram(em.Opponent, err) {
			// An outside anchor (uci:) on a machine without its engine:
			// the other anchors still measure the run.
			fmt.Fprintf(l.out, "evaluation.matches[%d] skipped: %v\n", i, err)
			continue
		}
		if err != nil {
			return err
		}
		// The same seed at every evaluation: the openings are paired
		// across time and across runs of the config.
		// Milliseconds: two evaluations can fall within one second (the
		// last one right after a periodic one).
		label := fmt.Sprintf("e%010d-%d-%s", at.Milliseconds(), i, safe(em.Opponent))
		r, err := arena.RunMatch(ctx, arena.Match{Game: l.cfg.Game, Rules: l.rules, A: a, B: b, Games: em.Games,
			Concurrency: 2, OpeningPlies: l.game.OpeningPlies, Seed: l.cfg.Seed + uint64(i),
			RecordDir: l.dir.Arena(), Label: label, OnGame: func(arena.Record, arena.Score) { l.opts.Progress.Add(1) }})
		if err != nil {
			return err
		}
		m.Matches = append(m.Matches, matchResult(r, a, b, 0))
	}
	if p := e.Pons; p != nil {
		lines, err := l.ponsLines(p.Set, p.Positions)
		if err != nil {
			return err
		}
		l.opts.Progress.Begin("evaluation: Pons "+p.Set, "positions", int64(len(lines)*len(p.Simulations)))
		for _, n := range p.Simulations {
			s, err := arena.NewNetSpec(fmt.Sprintf("gen%d", l.bestGen), l.cfg.Game, l.best, arena.NetOptions{Sims: n, Search: &search})
			if err != nil {
				return err
			}
			acc, err := pons.Measure(ctx, s, lines, 2)
			if err != nil {
				return err
			}
			m.Pons = append(m.Pons, metrics.PonsResult{Set: p.Set, Simulations: n, Positions: acc.Positions, Optimal: acc.Optimal,
				OptimalRate: acc.OptimalRate(), OutcomeRate: acc.OutcomeRate()})
		}
	}
	m.EvalSeconds = time.Since(t0).Seconds()
	if err := l.record(m); err != nil {
		return err
	}
	l.lastEval, l.lastEvalStep = at, m.Step
	fmt.Fprintf(l.out, "evaluation at %s of training, best is generation %d [%.0fs]:%s\n",
		at.Round(time.Second), l.bestGen, m.EvalSeconds, evaluationText(m))
	return l.plot()
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
		return nil, nil, fmt.Errorf("trainer: %s.opponent: %w", key, err)
	}
	return a, b, nil
}

// ponsLines reads the first n positions of a Pons set once per run.
func (l *Loop) ponsLines(set string, n int) ([]pons.Line, error) {
	if l.pons != nil {
		return l.pons, nil
	}
	f, err := ponsdata.Open(set)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if l.pons, err = pons.Read(f, n); err != nil {
		return nil, fmt.Errorf("trainer: evaluation.pons: %w", err)
	}
	return l.pons, nil
}

// evaluationText is an evaluation's summary: a line per match, one for
// the Pons rates, each indented under the evaluation's header line and
// within 100 columns.
func evaluationText(m metrics.Metric) string {
	var b strings.Builder
	for _, r := range m.Matches {
		// + 0 turns a negative zero into "+0".
		fmt.Fprintf(&b, "\n  vs %s +%d =%d -%d %.3f (Elo %+.0f ± %.0f)", r.Opponent, r.Wins, r.Draws, r.Losses, r.Score, math.Round(r.Elo)+0, r.EloCI95)
	}
	var rates []string
	for _, p := range m.Pons {
		how := "raw"
		if p.Simulations > 0 {
			how = fmt.Sprintf("%d sims", p.Simulations)
		}
		rates = append(rates, fmt.Sprintf("%s %.1f%%", how, 100*p.OptimalRate))
	}
	if len(rates) > 0 {
		fmt.Fprintf(&b, "\n  Pons %s optimal moves: %s", m.Pons[0].Set, strings.Join(rates, ", "))
	}
	return b.String()
}
