package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
)

// A run's arithmetic (docs/bench.md, "Sizing a run"): tabula train
// alternates self-play and training in one process, so every training
// step costs its SGD and the self-play of the new samples it asks for,
// training.batch_size / training.sample_ratio of them; the first
// generation also fills the window to replay.min_samples. Evaluations
// stop the training clock (-max-time), so they add wall time rather than
// take steps; gates are not played while the alpha-beta teacher plays,
// and the presets have none otherwise but Xiangqi's past its teacher.

// Rates are what Size needs measured of a machine for one preset.
type Rates struct {
	// TrainStepsPerS is the training step's rate at the config's batch.
	TrainStepsPerS float64 `json:"train_steps_per_s"`
	// SelfPlaySamplesPerS is the samples a second the run's first
	// generations' self-play records (the alpha-beta teacher where the
	// preset starts with it, else the network's search) with the sized
	// parallel games and precision.
	SelfPlaySamplesPerS float64 `json:"selfplay_samples_per_s"`
	// SamplesPerGame is the mean samples of a finished self-play game (0:
	// not measured; the plan then counts no games).
	SamplesPerGame float64 `json:"samples_per_game,omitempty"`
}

// Machine is what sizes a config to a machine besides its rates.
type Machine struct {
	// Cores the run has (GOMAXPROCS).
	Cores int `json:"cores"`
	// Precision is what selfplay.precision auto means here (infer.Resolve:
	// "int8" or "fp32").
	Precision string `json:"precision"`
}

// Reference is a preset's run recorded on a reference machine, which a
// plan's words set beside what it predicts for this one.
type Reference = game.ReferenceRun

// References are the presets' recorded runs of their budget, as the
// registered games give them (game.ReferenceRuns). The presets'
// evaluation cadences were chosen for these budgets.
var References = func() map[string]Reference {
	out := map[string]Reference{}
	for _, g := range game.WithCapability[game.ReferenceRuns]() {
		c, _ := game.Capability[game.ReferenceRuns](g)
		for preset, r := range c.ReferenceRuns() {
			out[preset] = r
		}
	}
	return out
}()

// SelfPlayFor returns the parallel games and batch of a preset's
// self-play on a machine of cores cores. The presets are sized for two
// cores, and the batch is split over the cores (infer.ParallelOf): each
// further two cores play the preset's games again, so every core keeps
// its share of a batch. Fewer than two cores keep the preset's.
func SelfPlayFor(sp configs.SelfPlay, cores int) (games, batch int) {
	f := max(1, (cores+1)/2)
	games = min(4096, sp.ParallelGames*f)
	return games, min(4096, games, sp.BatchSize*f)
}

// CosineShare is the share of a plan's steps a cosine schedule decays
// over. A run that makes fewer steps than planned (a machine measured
// while less loaded than it trains) ends with the rate above its floor,
// short of the last of the gain that comes as it anneals; one that makes
// more spends its last minutes at the floor, which costs little. The
// Xiangqi preset's 60,000 steps were 93-96% of what its two-hour
// reference runs made.
const CosineShare = 0.95

// Plan is a config sized for a machine and a budget of training time,
// with what a run of it is predicted to do.
type Plan struct {
	Preset  string        `json:"preset"`
	Budget  time.Duration `json:"budget_ns"`
	Machine Machine       `json:"machine"`
	Rates   Rates         `json:"rates"`
	// Settings are the preset's values changed, as tabula train's -set
	// takes them (PATH=VALUE), in the order applied.
	Settings []string `json:"settings"`
	// Text is the config file: the preset with Settings applied, under a
	// comment that says how it was sized; Config is it parsed.
	Text   []byte          `json:"-"`
	Config *configs.Config `json:"-"`
	// StepSeconds is a training step's share of the clock: its SGD and
	// the self-play of its new samples. FillSeconds is the first
	// generation's self-play beyond a generation's (replay.min_samples).
	StepSeconds float64 `json:"step_s"`
	FillSeconds float64 `json:"fill_s"`
	// TrainSeconds is the budget's time in SGD, the rest self-play's.
	TrainSeconds float64 `json:"train_s"`
	Steps        int64   `json:"steps"`
	// TotalSteps is a cosine schedule's training.total_steps (0: the
	// schedule is piecewise).
	TotalSteps  int64 `json:"total_steps,omitempty"`
	Generations int64 `json:"generations"`
	Samples     int64 `json:"samples"`
	Games       int64 `json:"games,omitempty"` // 0: not measured
	// Evaluations at EvaluationEvery, the first and the last included
	// (0: the config has none).
	Evaluations     int           `json:"evaluations"`
	EvaluationEvery time.Duration `json:"evaluation_every_ns,omitempty"`
	// TeacherGenerations are the generations of the plan's the alpha-beta
	// teacher plays (selfplay.abzero.teacher_generations), whose
	// self-play rate Rates holds.
	TeacherGenerations int64 `json:"teacher_generations,omitempty"`
}

// Size returns the preset name's config (its YAML text) sized for a
// budget of training time (tabula train -max-time) on a machine with
// the measured rates: its self-play games and batch for the cores
// (SelfPlayFor), selfplay.precision what auto picks there, a cosine's
// training.total_steps CosineShare of the steps the budget allows (so the
// rate reaches its floor just before the budget ends), and evaluation.every stretched with the
// budget past the preset's reference run (References), so a longer run
// makes no more evaluations than that run did and they take the same
// share of its time. It is pure: the measuring is the caller's.
func Size(name string, text []byte, m Machine, r Rates, budget time.Duration) (*Plan, error) {
	switch {
	case budget <= 0:
		return nil, fmt.Errorf("bench: the budget %s is not positive", budget)
	case m.Cores < 1:
		return nil, fmt.Errorf("bench: %d cores", m.Cores)
	case m.Precision != "fp32" && m.Precision != "int8":
		return nil, fmt.Errorf("bench: self-play precision %q (want fp32 or int8, what auto resolved to)", m.Precision)
	case !positive(r.TrainStepsPerS) || !positive(r.SelfPlaySamplesPerS):
		return nil, fmt.Errorf("bench: the rates must be positive: %.3g training steps/s, %.3g self-play samples/s", r.TrainStepsPerS, r.SelfPlaySamplesPerS)
	case r.SamplesPerGame < 0 || math.IsNaN(r.SamplesPerGame) || math.IsInf(r.SamplesPerGame, 0):
		return nil, fmt.Errorf("bench: %v samples a game", r.SamplesPerGame)
	}
	cfg, err := configs.Parse(text, "preset "+name)
	if err != nil {
		return nil, err
	}
	p := &Plan{Preset: name, Budget: budget, Machine: m, Rates: r}
	set := func(path string, v any) { p.Settings = append(p.Settings, fmt.Sprintf("%s=%v", path, v)) }

	games, batch := SelfPlayFor(cfg.SelfPlay, m.Cores)
	if games != cfg.SelfPlay.ParallelGames {
		set("selfplay.parallel_games", games)
	}
	if batch != cfg.SelfPlay.BatchSize {
		set("selfplay.batch_size", batch)
	}
	if cfg.SelfPlay.Precision == "auto" {
		set("selfplay.precision", m.Precision)
	}

	t := cfg.Training
	// The new samples a step asks for, and those the first generation
	// gathers beyond a generation's to fill the window.
	perStep, fill := 0.0, float64(cfg.Replay.MinSamples) // no ratio: self-play only fills the window
	if t.SampleRatio > 0 {
		perStep = float64(t.BatchSize) / t.SampleRatio
		fill = math.Max(0, fill-perStep*float64(t.StepsPerGeneration))
	}
	p.StepSeconds = 1/r.TrainStepsPerS + perStep/r.SelfPlaySamplesPerS
	p.FillSeconds = fill / r.SelfPlaySamplesPerS
	left := budget.Seconds() - p.FillSeconds
	p.Steps = int64(math.Floor(left / p.StepSeconds))
	if p.Steps < 1 {
		return nil, fmt.Errorf("bench: a budget of %s is too short for %s here: filling the replay window to %d samples alone takes %s, and a step %.2fs",
			budget, name, cfg.Replay.MinSamples, seconds(p.FillSeconds), p.StepSeconds)
	}
	p.TrainSeconds = float64(p.Steps) / r.TrainStepsPerS
	p.Generations = p.Steps / int64(t.StepsPerGeneration)
	p.Samples = int64(math.Round(float64(p.Steps)*perStep + fill))
	if r.SamplesPerGame > 0 {
		p.Games = int64(math.Round(float64(p.Samples) / r.SamplesPerGame))
	}
	if tg := int64(cfg.SelfPlay.ABZero.TeacherGenerations); tg > 0 {
		p.TeacherGenerations = min(tg, p.Generations+1) // the last, partly trained one too
	}

	if t.Schedule == "cosine" {
		p.TotalSteps = max(1, int64(CosineShare*float64(p.Steps)))
		set("training.total_steps", p.TotalSteps)
		if t.WarmupSteps >= p.TotalSteps {
			set("training.warmup_steps", p.TotalSteps/10)
		}
	}

	if e := cfg.Evaluation; e.Enabled() {
		p.EvaluationEvery = e.Every
		if ref, ok := References[name]; ok && budget > ref.Budget {
			every := time.Duration(float64(e.Every) * budget.Seconds() / ref.Budget.Seconds())
			p.EvaluationEvery = roundUp(every)
		}
		if p.EvaluationEvery != e.Every {
			set("evaluation.every", span(p.EvaluationEvery))
		}
		// The first at the start; one each time the clock passes another
		// interval; the last where the limit stops the run.
		p.Evaluations = int(math.Ceil(budget.Seconds()/p.EvaluationEvery.Seconds())) + 1
	}

	out, err := configs.Override(text, p.Settings)
	if err != nil {
		return nil, err
	}
	p.Text = append([]byte(p.header()), out...)
	if p.Config, err = configs.Parse(p.Text, "the sized "+name+" config"); err != nil {
		return nil, err
	}
	return p, nil
}

func positive(v float64) bool { return v > 0 && !math.IsInf(v, 0) }

// roundUp rounds an interval up to a whole minute (a second below one).
func roundUp(d time.Duration) time.Duration {
	unit := time.Minute
	if d < time.Minute {
		unit = time.Second
	}
	return (d + unit - 1) / unit * unit
}

// header is the comment the config file starts with: where it came from
// and the command that runs it. (A first line naming a checksum would
// read as a damaged seal.)
func (p *Plan) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The %s preset sized by tabula bench for %s of training time on this\n", p.Preset, span(p.Budget))
	fmt.Fprintf(&b, "# machine (%d cores; %s training steps/s, %s self-play samples/s):\n", p.Machine.Cores, rate(p.Rates.TrainStepsPerS), rate(p.Rates.SelfPlaySamplesPerS))
	for _, s := range p.Settings {
		fmt.Fprintf(&b, "#   %s\n", s)
	}
	fmt.Fprintf(&b, "# Run it with: %s\n", p.Command("FILE"))
	b.WriteString("# The preset's own comments follow; where a value above replaced theirs, the value holds.\n")
	return b.String()
}

// Command is the tabula train command that runs the plan: with its
// config written to path, or (path "") the preset with the settings.
func (p *Plan) Command(path string) string {
	if path != "" {
		return fmt.Sprintf("tabula train -config %s -max-time %s", path, span(p.Budget))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tabula train -game %s -max-time %s", p.Preset, span(p.Budget))
	for _, s := range p.Settings {
		fmt.Fprintf(&b, " -set %s", s)
	}
	return b.String()
}

// Words says what a run of the plan will do, for a person: the steps,
// generations, samples and games, the evaluations, and the preset's
// reference run beside this machine's prediction for its budget (ref,
// this machine's plan at the reference's budget; nil: none recorded).
func (p *Plan) Words(ref *Plan) string {
	var b strings.Builder
	c := p.Config
	t := c.Training
	fmt.Fprintf(&b, "%s in %s of training time (tabula train -max-time %s):\n", p.Preset, span(p.Budget), span(p.Budget))
	fmt.Fprintf(&b, "  about %s training steps in %s generations of %d, %s self-play samples",
		count(p.Steps), count(p.Generations), t.StepsPerGeneration, count(p.Samples))
	if p.Games > 0 {
		fmt.Fprintf(&b, " (about %s games", count(p.Games))
		if p.TeacherGenerations == 0 {
			b.WriteString(" as long as a fresh network's") // a trained one's differ
		}
		b.WriteString(")")
	}
	b.WriteString(",\n")
	if p.Evaluations > 0 {
		fmt.Fprintf(&b, "  and %d evaluations (every %s, the first at the start and the last at the end; they stop the\n"+
			"  training clock, so they add wall time and take no training)\n", p.Evaluations, span(p.EvaluationEvery))
	} else {
		b.WriteString("  and no evaluations (the config has no evaluation section)\n")
	}
	trainShare := p.TrainSeconds / p.Budget.Seconds()
	if t.SampleRatio > 0 {
		fmt.Fprintf(&b, "  a step costs %.3fs: its SGD (%s steps/s at batch %d) and the self-play of the %.3g samples\n"+
			"  it asks for (training.sample_ratio %g, at %s samples/s): %.0f%% of the time trains, %.0f%% plays\n",
			p.StepSeconds, rate(p.Rates.TrainStepsPerS), t.BatchSize, float64(t.BatchSize)/t.SampleRatio, t.SampleRatio,
			rate(p.Rates.SelfPlaySamplesPerS), 100*trainShare, 100*(1-trainShare))
	} else {
		fmt.Fprintf(&b, "  a step costs %.3fs (%s steps/s at batch %d); self-play only fills the window (training.sample_ratio 0)\n",
			p.StepSeconds, rate(p.Rates.TrainStepsPerS), t.BatchSize)
	}
	if p.FillSeconds > 0 {
		fmt.Fprintf(&b, "  (the first %s fill the replay window to %s samples)\n", seconds(p.FillSeconds), count(int64(c.Replay.MinSamples)))
	}
	if tg := p.TeacherGenerations; tg > 0 {
		if all := int64(c.SelfPlay.ABZero.TeacherGenerations); tg < all {
			fmt.Fprintf(&b, "  the alpha-beta teacher plays every generation (its first %d; the rates are its)\n", all)
		} else {
			fmt.Fprintf(&b, "  the alpha-beta teacher plays the first %d generations; after them the network searches\n"+
				"  (the blend, with gate matches): slower self-play than the rate above, so fewer steps than said\n", all)
		}
	}
	switch t.Schedule {
	case "cosine":
		fmt.Fprintf(&b, "  the learning rate's cosine reaches its floor at step %s, %.0f%% of the way (training.total_steps)\n",
			count(t.TotalSteps), 100*float64(t.TotalSteps)/float64(p.Steps))
	case "piecewise":
		var reached []string
		for _, s := range t.Boundaries {
			if s <= p.Steps {
				reached = append(reached, strconv.FormatInt(s, 10))
			}
		}
		fmt.Fprintf(&b, "  the piecewise learning rate drops at steps %v: the run reaches %d of them\n", t.Boundaries, len(reached))
	}
	if r, ok := References[p.Preset]; ok && ref != nil {
		steps := [2]int64{int64(r.Generations[0]) * int64(t.StepsPerGeneration), int64(r.Generations[1]) * int64(t.StepsPerGeneration)}
		fmt.Fprintf(&b, "  the preset's %s run on a %s made %d-%d generations\n"+
			"  (about %s-%s steps; %s);\n  at the rates here, about %s generations in %s\n",
			span(r.Budget), r.Machine, r.Generations[0], r.Generations[1], count(steps[0]), count(steps[1]), r.Source,
			count(ref.Generations), span(r.Budget))
	}
	return b.String()
}

// count writes n with thousands separators.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// rate writes a rate with three significant figures.
func rate(v float64) string {
	if v >= 1000 {
		return count(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func seconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

// span writes a duration without its zero tails: 2h, 1h30m, 45s.
func span(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
