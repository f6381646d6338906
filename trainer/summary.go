package trainer

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/measure"
	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/rundir"
)

// Summary describes what a run has achieved, from its files: its best
// network, that network's latest evaluation and how the measures moved
// since the run's first, the training loss, and what the last invocation
// spent its time on.
type Summary struct {
	Best           string
	BestGeneration int
	// BestEvaluation is the latest evaluation of the best network; nil
	// when it has none yet (a run stopped by Ctrl-C before it).
	BestEvaluation *metrics.Metric
	// LatestEvaluation is the run's latest evaluation, whichever network
	// it measured, and FirstEvaluation its first (nil: none).
	LatestEvaluation, FirstEvaluation *metrics.Metric
	// FirstTrain and LastTrain are the run's first and latest training
	// lines (the loss over their steps).
	FirstTrain, LastTrain *metrics.Metric
	// LastGeneration is the run's latest generation line; Games the
	// in-process self-play games so far (of the latest line that counts
	// them: a generation or a stop).
	LastGeneration *metrics.Metric
	Games          int64
	// Start and Stop are the last invocation's start line and the stop
	// line after it (nil when absent: a run of an earlier build, or a
	// process killed before it stopped).
	Start, Stop *metrics.Metric
	// EvaluationEvery is the run's evaluation interval of training time
	// (0: the run measures nothing), from its frozen config.
	EvaluationEvery time.Duration
	// Checkpoints and CheckpointBytes are what RUN/checkpoints holds.
	Checkpoints     int
	CheckpointBytes int64
}

// Summarize reads run's best pointer, the checkpoint's header, the frozen
// config and the metrics, so a command can say where a run ended.
func Summarize(run string) (Summary, error) {
	dir := rundir.Dir(run)
	best, err := dir.Pointer(rundir.Best)
	if err != nil {
		return Summary{}, err
	}
	id, err := checkpoints.Identify(best)
	if err != nil {
		return Summary{}, fmt.Errorf("trainer: best network: %w", err)
	}
	s := Summary{Best: best, BestGeneration: id.Generation}
	if cfg, err := dir.FrozenConfig(); err == nil && cfg.Evaluation.Enabled() {
		s.EvaluationEvery = cfg.Evaluation.Every
	}
	if names, err := dir.List(); err == nil {
		for _, n := range names {
			if st, err := os.Stat(dir.Checkpoint(n)); err == nil {
				s.Checkpoints++
				s.CheckpointBytes += st.Size()
			}
		}
	}
	at := func(m metrics.Metric) *metrics.Metric { return &m }
	err = metrics.ReadErr(dir.Metrics(), func(m metrics.Metric) {
		switch m.Kind {
		case "start":
			s.Start, s.Stop = at(m), nil
		case "stop":
			s.Stop = at(m)
			s.Games = max(s.Games, m.SelfPlayGames)
		case "train":
			if s.FirstTrain == nil {
				s.FirstTrain = at(m)
			}
			s.LastTrain = at(m)
		case "generation":
			s.LastGeneration = at(m)
			s.Games = max(s.Games, m.SelfPlayGames)
		case "evaluation":
			if s.FirstEvaluation == nil {
				s.FirstEvaluation = at(m)
			}
			s.LatestEvaluation = at(m)
			if m.Best == s.BestGeneration {
				s.BestEvaluation = at(m)
			}
		}
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return s, fmt.Errorf("trainer: %w", err)
	}
	return s, nil
}

// Text is the summary for people new to the run: what the last
// invocation did with its time, the run's size, the best network and
// how it measured, and what changed since the run began.
func (s Summary) Text() string {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	if s.Start != nil && s.Stop != nil {
		wall := s.Stop.Time.Sub(s.Start.Time)
		if s.LatestEvaluation != nil && s.LatestEvaluation.Time.After(s.Stop.Time) {
			wall = s.LatestEvaluation.Time.Sub(s.Start.Time) // the final evaluation
		}
		trained := seconds(s.Stop.TrainClock) - seconds(s.Start.TrainClock)
		line("this invocation took %s: %s on the training clock (self-play, training, gating), %s besides (evaluations, charts)",
			round(wall), round(trained), round(max(wall-trained, 0)))
	}
	var total []string
	if g := s.LastGeneration; g != nil {
		total = append(total, plural(g.Generation, "generation"))
		if s.Games > 0 {
			total = append(total, plural(int(s.Games), "self-play game"))
		}
	}
	if last := s.lastClock(); last != nil {
		total = append(total, fmt.Sprintf("%s of training (%s of CPU time)", round(seconds(last.TrainClock)), round(seconds(last.TrainCPU))))
	}
	if len(total) > 0 {
		line("since the run began: %s", strings.Join(total, ", "))
	}
	line("the best network: generation %d, %s", s.BestGeneration, s.Best)
	latest := s.BestEvaluation
	switch {
	case latest != nil:
		line("its latest evaluation, at %s of training:%s", round(seconds(latest.TrainClock)), evaluationText(*latest))
	case s.LatestEvaluation != nil:
		latest = s.LatestEvaluation
		line("it has not been evaluated yet (the run stopped before its evaluation; the next start measures it when the interval has passed)")
		line("the latest evaluation, of generation %d at %s of training:%s", latest.Best, round(seconds(latest.TrainClock)), evaluationText(*latest))
	case s.EvaluationEvery == 0:
		line("it has not been evaluated: the run's config has no evaluation section")
	default:
		line("it has not been evaluated yet: the first evaluation comes after %s of training, or where a limit stops the run", round(s.EvaluationEvery))
	}
	if latest != nil && len(latest.Matches) > 0 {
		line("  (score: a win 1, a draw 1/2, averaged over the games; Elo: the rating difference the score means, with its 95%% interval)")
	}
	b.WriteString(s.changes(latest))
	if s.Checkpoints > 0 {
		line("checkpoints on disk: %d (%.1f MB)", s.Checkpoints, float64(s.CheckpointBytes)/1e6)
	}
	return b.String()
}

// lastClock is the latest line that carries the run's training clock.
func (s Summary) lastClock() *metrics.Metric {
	var last *metrics.Metric
	for _, m := range []*metrics.Metric{s.Stop, s.LatestEvaluation, s.LastGeneration, s.LastTrain} {
		if m != nil && (last == nil || m.TrainClock > last.TrainClock) {
			last = m
		}
	}
	return last
}

// changes says what moved since the run began: each match's score and
// Elo and each position-set measure from the first evaluation to latest,
// and the training loss from the first training steps to the latest.
func (s Summary) changes(latest *metrics.Metric) string {
	var b strings.Builder
	first := s.FirstEvaluation
	switch {
	case latest == nil:
	case first.Time.Equal(latest.Time) && first.TrainClock == latest.TrainClock:
		next := ""
		if s.EvaluationEvery > 0 {
			next = fmt.Sprintf(": the next, at %s of training, shows how the network improves", round(seconds(first.TrainClock)+s.EvaluationEvery))
		}
		fmt.Fprintf(&b, "this is the run's first evaluation%s\n", next)
	default:
		fmt.Fprintf(&b, "since the first evaluation (generation %d at %s of training):\n", first.Best, round(seconds(first.TrainClock)))
		before := map[string]metrics.MatchResult{}
		for _, r := range first.Matches {
			before[r.Opponent] = r
		}
		for _, r := range latest.Matches {
			if f, ok := before[r.Opponent]; ok {
				fs, ls := arena.Score{Wins: f.Wins, Draws: f.Draws, Losses: f.Losses}, arena.Score{Wins: r.Wins, Draws: r.Draws, Losses: r.Losses}
				fmt.Fprintf(&b, "  vs %s: score %.3f → %.3f (Elo %+.0f → %+.0f)\n", r.Opponent, fs.Score(), ls.Score(), fs.Elo()+0, ls.Elo()+0)
			}
		}
		for _, ms := range measure.All() {
			_, was := ms.Read(first.Measures)
			_, now := ms.Read(latest.Measures)
			var parts []string
			for _, k := range seriesOrder(now) {
				if v, ok := was[k]; ok {
					parts = append(parts, fmt.Sprintf("%s %.1f%% → %.1f%%", k, v, now[k]))
				}
			}
			if len(parts) > 0 {
				fmt.Fprintf(&b, "  %s: %s\n", ms.Info().Chart, strings.Join(parts, ", "))
			}
		}
	}
	if f, l := s.FirstTrain, s.LastTrain; f != nil && l != nil && l.Step > f.Step {
		fmt.Fprintf(&b, "training loss from step %d to %d: %.3f → %.3f (value %.3f → %.3f, policy %.3f → %.3f)\n",
			f.Step, l.Step, f.Loss, l.Loss, f.ValueLoss, l.ValueLoss, f.PolicyLoss, l.PolicyLoss)
	}
	return b.String()
}

// seriesOrder lists a measure's series the raw policy first, then by
// their simulations ("raw policy", "8 simulations", "64 simulations").
func seriesOrder(series map[string]float64) []string {
	lead := func(k string) int {
		n, _ := strconv.Atoi(strings.Fields(k + " x")[0])
		return n
	}
	return slices.SortedFunc(maps.Keys(series), func(a, b string) int {
		return cmp.Or(cmp.Compare(lead(a), lead(b)), strings.Compare(a, b))
	})
}

// round is d to the second (to the tenth below ten seconds).
func round(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// plural is "1 generation", "12 generations".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
