package bench

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/configs"
)

func presetText(t *testing.T, name string) []byte {
	t.Helper()
	b, err := configs.PresetBytes(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Size's figures against cases computed by hand from the presets'
// values (docs/bench.md's arithmetic).
func TestSizeByHand(t *testing.T) {
	for _, c := range []struct {
		name, preset string
		text         string // "" : the preset's
		m            Machine
		r            Rates
		budget       time.Duration
		steps, gens  int64
		samples      int64
		games        int64
		fill         float64
		evals        int
		every        time.Duration
		settings     []string
	}{
		// Xiangqi: batch 128, ratio 3, 100 steps a generation, 4,000
		// samples to start (less than a generation's 4,266.7): a step is
		// 1/10 s of SGD and 128/3 samples at 1,000/s, 0.142667 s; 7,200 s
		// make 50,467 of them, and the cosine decays over 95%: 47,943. The
		// preset's 15 minutes suit its 2-hour reference: 9 evaluations.
		{name: "xiangqi, 2h", preset: "xiangqi", m: Machine{2, "int8"}, r: Rates{TrainStepsPerS: 10, SelfPlaySamplesPerS: 1000},
			budget: 2 * time.Hour, steps: 50467, gens: 504, samples: 2153259, evals: 9, every: 15 * time.Minute,
			settings: []string{"selfplay.precision=int8", "training.total_steps=47943"}},
		// Connect Four on 8 cores: four times the games and batch; batch
		// 128, ratio 6: a step is 0.05 s and 21.33 samples at 500/s,
		// 0.0926667 s; 77,697 steps, 1,657,536 samples, 55,251 games of
		// 30. Its evaluations every 5 minutes suit a 30-minute run (7):
		// over 2 hours every 20 minutes keeps them at 7. A piecewise
		// schedule has no total to size.
		{name: "connect4, 8 cores, 2h", preset: "connect4", m: Machine{8, "fp32"}, r: Rates{TrainStepsPerS: 20, SelfPlaySamplesPerS: 500, SamplesPerGame: 30},
			budget: 2 * time.Hour, steps: 77697, gens: 776, samples: 1657536, games: 55251, evals: 7, every: 20 * time.Minute,
			settings: []string{"selfplay.parallel_games=256", "selfplay.batch_size=128", "selfplay.precision=fp32", "evaluation.every=20m"}},
		// A window of 10,000 to fill first: 10,000 - 2,133.3 more samples
		// than a generation's, 7.867 s at 1,000/s; then steps of 0.1 +
		// 21.33/1,000 s in the 592.13 s left: 4,880, and 111,973 samples.
		// Shorter than any reference: no evaluation section to size.
		{name: "a large window", preset: "custom", text: "game: connect4\nreplay:\n  min_samples: 10000\n", m: Machine{2, "fp32"},
			r: Rates{TrainStepsPerS: 10, SelfPlaySamplesPerS: 1000}, budget: 10 * time.Minute, steps: 4880, gens: 48, samples: 111973,
			fill: 7.8666667, settings: []string{"selfplay.precision=fp32"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := []byte(c.text)
			if c.text == "" {
				text = presetText(t, c.preset)
			}
			p, err := Size(c.preset, text, c.m, c.r, c.budget)
			if err != nil {
				t.Fatal(err)
			}
			if p.Steps != c.steps || p.Generations != c.gens || p.Samples != c.samples || p.Games != c.games ||
				p.Evaluations != c.evals || p.EvaluationEvery != c.every || math.Abs(p.FillSeconds-c.fill) > 1e-6 {
				t.Errorf("steps %d, generations %d, samples %d, games %d, evaluations %d every %s, fill %.7fs; want %d, %d, %d, %d, %d every %s, %.7fs",
					p.Steps, p.Generations, p.Samples, p.Games, p.Evaluations, p.EvaluationEvery, p.FillSeconds,
					c.steps, c.gens, c.samples, c.games, c.evals, c.every, c.fill)
			}
			if !slices.Equal(p.Settings, c.settings) {
				t.Errorf("settings %q, want %q", p.Settings, c.settings)
			}
		})
	}
}

// The config Size writes reads back as a valid config holding what the
// plan says, and the plan's arithmetic holds whatever the rates: the
// steps fill the budget to within one, doubling the budget doubles them
// once the window is filled, more of either rate never makes fewer, and
// a budget past the reference run's makes no more evaluations than it.
func TestSizeInvariants(t *testing.T) {
	rates := []Rates{{TrainStepsPerS: 9, SelfPlaySamplesPerS: 1550}, {TrainStepsPerS: 2.5, SelfPlaySamplesPerS: 40}, {TrainStepsPerS: 40, SelfPlaySamplesPerS: 300, SamplesPerGame: 25}}
	for _, name := range []string{"connect4", "lion", "xiangqi", "xiangqi-zero"} {
		text := presetText(t, name)
		for _, r := range rates {
			for _, cores := range []int{1, 2, 3, 16} {
				m := Machine{cores, "int8"}
				for _, budget := range []time.Duration{20 * time.Minute, time.Hour, 2 * time.Hour, 7 * time.Hour} {
					p, err := Size(name, text, m, r, budget)
					if err != nil {
						t.Fatalf("%s %+v %d cores %s: %v", name, r, cores, budget, err)
					}
					check := func(ok bool, format string, args ...any) {
						t.Helper()
						if !ok {
							t.Errorf("%s %+v, %d cores, %s: "+format, append([]any{name, r, cores, budget}, args...)...)
						}
					}
					// The text read back, not the plan's own parse.
					back, err := configs.Parse(p.Text, "plan")
					check(err == nil, "the config does not read back: %v", err)
					if err != nil {
						continue
					}
					games, batch := SelfPlayFor(back.SelfPlay, 2)
					check(back.SelfPlay.Precision == "int8" && back.SelfPlay.ParallelGames >= games && back.SelfPlay.BatchSize >= batch &&
						back.SelfPlay.BatchSize <= back.SelfPlay.ParallelGames, "self-play %+v", back.SelfPlay)
					if back.Training.Schedule == "cosine" {
						tot := back.Training.TotalSteps
						check(tot == p.TotalSteps && tot <= p.Steps && float64(tot) > CosineShare*float64(p.Steps)-1 && back.Training.WarmupSteps < tot,
							"total_steps %d (warm-up %d) for %d steps", tot, back.Training.WarmupSteps, p.Steps)
					}
					used := float64(p.Steps)*p.StepSeconds + p.FillSeconds
					check(used <= budget.Seconds()+1e-9 && used+p.StepSeconds > budget.Seconds(), "%d steps of %.4fs and %.1fs of filling in %s",
						p.Steps, p.StepSeconds, p.FillSeconds, budget)
					check(p.Generations == p.Steps/int64(back.Training.StepsPerGeneration), "%d generations of %d steps", p.Generations, p.Steps)
					check(p.TrainSeconds <= budget.Seconds(), "trains %.0fs", p.TrainSeconds)
					if back.Evaluation.Enabled() {
						check(p.Evaluations == int(math.Ceil(budget.Seconds()/back.Evaluation.Every.Seconds()))+1 && back.Evaluation.Every == p.EvaluationEvery,
							"%d evaluations every %s, config every %s", p.Evaluations, p.EvaluationEvery, back.Evaluation.Every)
						if ref, ok := References[name]; ok && budget >= ref.Budget {
							orig, _ := configs.Parse(text, name)
							refEvals := int(math.Ceil(ref.Budget.Seconds()/orig.Evaluation.Every.Seconds())) + 1
							check(p.Evaluations <= refEvals, "%d evaluations, the reference run %d", p.Evaluations, refEvals)
						}
					}
					if p.FillSeconds == 0 {
						d, err := Size(name, text, m, r, 2*budget)
						check(err == nil && d.Steps >= 2*p.Steps && d.Steps <= 2*p.Steps+1, "twice the budget: %d steps against %d", d.Steps, p.Steps)
					}
					for _, faster := range []Rates{{r.TrainStepsPerS * 1.5, r.SelfPlaySamplesPerS, 0}, {r.TrainStepsPerS, r.SelfPlaySamplesPerS * 1.5, 0}} {
						f, err := Size(name, text, m, faster, budget)
						check(err == nil && f.Steps >= p.Steps, "faster %+v: %d steps against %d", faster, f.Steps, p.Steps)
					}
				}
			}
		}
	}
}

// On two cores the preset's self-play games and batch stay as they are.
func TestSelfPlayFor(t *testing.T) {
	for _, name := range []string{"connect4", "lion", "xiangqi"} {
		cfg, err := configs.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		sp := cfg.SelfPlay
		for cores, f := range map[int]int{1: 1, 2: 1, 3: 2, 4: 2, 64: 32} {
			g, b := SelfPlayFor(sp, cores)
			if g != min(4096, f*sp.ParallelGames) || b != min(g, f*sp.BatchSize) {
				t.Errorf("%s on %d cores: %d games, batch %d; the preset's %d and %d", name, cores, g, b, sp.ParallelGames, sp.BatchSize)
			}
		}
	}
}

// Bad input is an error that names it, never a plan.
func TestSizeErrors(t *testing.T) {
	text := presetText(t, "connect4")
	ok := Rates{TrainStepsPerS: 10, SelfPlaySamplesPerS: 100}
	for _, c := range []struct {
		m      Machine
		r      Rates
		budget time.Duration
		text   string
		want   string
	}{
		{Machine{2, "fp32"}, ok, 0, "", "not positive"},
		{Machine{0, "fp32"}, ok, time.Hour, "", "0 cores"},
		{Machine{2, "auto"}, ok, time.Hour, "", `"auto"`},
		{Machine{2, "fp32"}, Rates{TrainStepsPerS: 0, SelfPlaySamplesPerS: 100}, time.Hour, "", "positive"},
		{Machine{2, "fp32"}, Rates{TrainStepsPerS: math.NaN(), SelfPlaySamplesPerS: 100}, time.Hour, "", "positive"},
		{Machine{2, "fp32"}, Rates{TrainStepsPerS: 10, SelfPlaySamplesPerS: math.Inf(1)}, time.Hour, "", "positive"},
		{Machine{2, "fp32"}, Rates{TrainStepsPerS: 10, SelfPlaySamplesPerS: 100, SamplesPerGame: -1}, time.Hour, "", "samples a game"},
		// 21.3 samples a step at one a minute: not one step in 10 minutes.
		{Machine{2, "fp32"}, Rates{TrainStepsPerS: 10, SelfPlaySamplesPerS: 1.0 / 60}, 10 * time.Minute, "", "too short"},
		{Machine{2, "fp32"}, ok, time.Hour, "game: chess\n", "chess"},
	} {
		txt := text
		if c.text != "" {
			txt = []byte(c.text)
		}
		p, err := Size("connect4", txt, c.m, c.r, c.budget)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %+v %s: plan %v, error %v; want one naming %q", c.m, c.r, c.budget, p != nil, err, c.want)
		}
	}
}

// The words say the plan's figures and the command that runs it.
func TestWords(t *testing.T) {
	r := Rates{TrainStepsPerS: 10, SelfPlaySamplesPerS: 1000, SamplesPerGame: 50}
	m := Machine{2, "int8"}
	p, err := Size("xiangqi", presetText(t, "xiangqi"), m, r, 3*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Size("xiangqi", presetText(t, "xiangqi"), m, r, References["xiangqi"].Budget)
	if err != nil {
		t.Fatal(err)
	}
	w := p.Words(ref)
	for _, s := range []string{"3h of training time", count(p.Steps) + " training steps", count(p.Generations) + " generations",
		count(p.Games) + " games", "evaluations (every " + span(p.EvaluationEvery), "624-642 generations", count(ref.Generations) + " generations in 2h",
		"teacher plays every generation"} {
		if !strings.Contains(w, s) {
			t.Errorf("no %q in:\n%s", s, w)
		}
	}
	if !strings.Contains(string(p.Text), "tabula train -config FILE -max-time 3h") {
		t.Errorf("the config's header does not say how to run it:\n%s", p.Text)
	}
	if c, want := p.Command(""), "tabula train -game xiangqi -max-time 3h -set selfplay.precision=int8 -set training.total_steps="+strconv.FormatInt(p.TotalSteps, 10)+" -set evaluation.every=23m"; c != want {
		t.Errorf("Command: %q, want %q", c, want)
	}
}

// A game's mean samples is told only once enough games ended that the
// finished games' mean (short) and the recorded positions over them
// (long) agree within a quarter.
func TestSamplesPerGame(t *testing.T) {
	for _, c := range []struct {
		sp   selfPlayRates
		want float64
	}{
		{selfPlayRates{games: 200, samples: 6000, recorded: 7000}, 30},
		{selfPlayRates{games: 127, samples: 6000, recorded: 6000}, 0},  // under two waves of 64
		{selfPlayRates{games: 200, samples: 6000, recorded: 7600}, 0},  // the bounds apart
		{selfPlayRates{games: 500, samples: 0, recorded: 0}, 0},        // no sample
		{selfPlayRates{games: 128, samples: 1280, recorded: 1600}, 10}, // at both limits
	} {
		if got := samplesPerGame(c.sp, 64); got != c.want {
			t.Errorf("%+v: %v samples a game, want %v", c.sp, got, c.want)
		}
	}
}
