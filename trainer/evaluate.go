package trainer

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

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
	m := metrics.Metric{Kind: "evaluation", Time: time.Now().UTC(), Generation: l.gen, Step: l.trainer.State().Step,
		Best: l.bestGen, Window: l.window.Len(), TrainClock: at.Seconds()}
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
	if err := l.record(m); err != nil {
		return err
	}
	l.lastEval, l.lastEvalStep = at, m.Step
	fmt.Fprintf(l.out, "evaluation at %s of training, best is generation %d [%.0fs]:%s\n",
		at.Round(time.Second), l.bestGen, m.EvalSeconds, evaluationText(m))
	return l.plot()
}

// evaluationText is an evaluation's summary: a line per match, then the
// position-set measures' lines (arena/measure), each indented under the evaluation's header line and
// within 100 columns.
func evaluationText(m metrics.Metric) string {
	var b strings.Builder
	for _, r := range m.Matches {
		// + 0 turns a negative zero into "+0".
		fmt.Fprintf(&b, "\n  vs %s +%d =%d -%d %.3f (Elo %+.0f ± %.0f)", r.Opponent, r.Wins, r.Draws, r.Losses, r.Score, math.Round(r.Elo)+0, r.EloCI95)
	}
	for _, ms := range measure.All() {
		lines, _ := ms.Read(m.Measures)
		for _, line := range lines {
			fmt.Fprintf(&b, "\n  %s", line)
		}
	}
	return b.String()
}
