package trainer

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/measure"
	"github.com/tabula-zero/tabula/internal/cputime"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/metrics"
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

// evaluationDue reports whether the config's evaluation interval of
// training has passed since the last evaluation, or since the run began
// when it has none yet (evaluation.at_start: at once, the untrained
// network).
func (l *Loop) evaluationDue() bool {
	e := l.cfg.Evaluation
	if !e.Enabled() {
		return false
	}
	if l.lastEval < 0 {
		return e.AtStart || l.clock.elapsed() >= e.Every
	}
	return l.clock.elapsed() >= l.lastEval+e.Every
}

// evaluate measures the best network against the config's anchors and
// records the result (metrics, RUN/arena, plots). The training clock
// stands still meanwhile. The final evaluation, where the run stops, says
// only that it was made: the run's closing summary (Summary) gives its
// results, once.
func (l *Loop) evaluate(ctx context.Context, final bool) error {
	l.clock.stop()
	defer l.clock.start()
	at := l.clock.elapsed()
	t0 := time.Now()
	m := metrics.Metric{Kind: "evaluation", Time: time.Now().UTC(), Generation: l.gen, Step: l.trainer.State().Step,
		Best: l.bestGen, Checkpoint: l.bestName, Window: l.window.Len(), TrainClock: at.Seconds()}
	games := 0
	for _, em := range l.cfg.Evaluation.Matches {
		games += em.Games
	}
	l.opts.Progress.Begin("evaluation", "games", int64(games))
	defer l.opts.Progress.End()
	skipped := func(i int, err error) { fmt.Fprintf(l.out, "evaluation.matches[%d] skipped: %v\n", i, err) }
	var err error
	m.Matches, err = l.evaluator.Evaluate(progress.WithTracker(ctx, l.opts.Progress), l.best, l.bestGen, at, skipped)
	if err != nil {
		return err
	}
	entries, err := l.evaluator.Measures(progress.WithTracker(ctx, l.opts.Progress), l.best, l.bestGen)
	if err != nil {
		return err
	}
	if err := m.SetMeasures(entries); err != nil {
		return err
	}
	m.EvalSeconds = time.Since(t0).Seconds()
	m.Time = time.Now().UTC() // when it ended: the run's records of its wall time
	if err := l.record(m); err != nil {
		return err
	}
	l.lastEval, l.lastEvalStep = at, m.Step
	l.evalCost.Store(int64(time.Since(t0)))
	l.evaluated[l.bestName] = true
	if final {
		fmt.Fprintf(l.out, "evaluated the best network, generation %d, where the run stops (%s of training) [%.0fs]\n",
			l.bestGen, at.Round(time.Second), m.EvalSeconds)
	} else {
		fmt.Fprintf(l.out, "evaluation at %s of training of the best network, generation %d [%.0fs]:%s\n",
			at.Round(time.Second), l.bestGen, m.EvalSeconds, evaluationText(m))
	}
	return l.plot()
}

// evaluationText is an evaluation's summary: a line per match, then the
// position-set measures' lines (arena/measure), each indented under the
// evaluation's header line.
func evaluationText(m metrics.Metric) string {
	var b strings.Builder
	for _, r := range m.Matches {
		fmt.Fprintf(&b, "\n  %s", matchText(r))
	}
	for _, ms := range measure.All() {
		lines, _ := ms.Read(m.Measures)
		for _, line := range lines {
			fmt.Fprintf(&b, "\n  %s", line)
		}
	}
	return b.String()
}

// matchText is an evaluation match for people: the games won, drawn and
// lost, the score and the Elo difference with what the games tell of it
// (arena.Score.EloText: a one-sided bound after a sweep, words where the
// games bound nothing).
func matchText(r metrics.MatchResult) string {
	sc := arena.Score{Wins: r.Wins, Draws: r.Draws, Losses: r.Losses}
	return fmt.Sprintf("vs %s: won %d, drew %d, lost %d (score %.3f), %s", r.Opponent, r.Wins, r.Draws, r.Losses, sc.Score(), sc.EloText())
}
