// Package charts makes a run's charts from its metrics (metrics.Read) and
// its evaluation games: as data (Chart, its series of points), which the
// dashboard's page plots in the browser, and drawn by gonum/plot as PNG
// files under RUN/plots for the trainer (SVG or PNG on request).
package charts

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/measure"
	_ "github.com/tabula-zero/tabula/arena/measure/all" // the measures' charts
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/rundir"
)

// previousBest matches the name of the best network a gate's candidate
// plays (gen12).
var previousBest = regexp.MustCompile(`^gen\d+$`)

// point is what the plots need of a metrics line.
type point struct {
	kind                string
	step                int64
	generation          int
	loss, value, policy float64
	clock               time.Duration                 // training time
	cpu                 time.Duration                 // CPU time of the training time
	elo                 map[string]float64            // by opponent, for generation lines
	eloCI               map[string]float64            // their 95% half-widths
	sets                map[string]map[string]float64 // position-set measures' series by measure, for evaluation lines
	workers             map[string]int                // samples taken in from each remote worker so far
	best                int                           // the best network's generation
	lr, gradNorm        float64
	window              int
	games, plies        int64 // self-play totals (generation lines)
	draws               int64
}

func pointOf(m metrics.Metric) point {
	p := point{kind: m.Kind, step: m.Step, generation: m.Generation, loss: m.Loss, value: m.ValueLoss, policy: m.PolicyLoss,
		clock: time.Duration(m.TrainClock * float64(time.Second)), cpu: time.Duration(m.TrainCPU * float64(time.Second)), best: m.Best, lr: m.LR, gradNorm: m.GradNorm,
		window: m.Window, games: m.SelfPlayGames, plies: m.SelfPlayPlies, draws: m.SelfPlayDraws}
	if len(m.Matches) > 0 {
		p.elo, p.eloCI = map[string]float64{}, map[string]float64{}
		for _, r := range m.Matches {
			opp := r.Opponent
			if m.Kind == "generation" && previousBest.MatchString(opp) {
				opp = "the previous best" // one series, whichever generation it was
			}
			p.elo[opp], p.eloCI[opp] = r.Elo, r.EloCI95
		}
	}
	if len(m.Workers) > 0 {
		p.workers = map[string]int{}
		for _, w := range m.Workers {
			p.workers[w.Name] = w.Samples
		}
	}
	if len(m.Measures) > 0 {
		for _, ms := range measure.All() {
			if _, series := ms.Read(m.Measures); len(series) > 0 {
				if p.sets == nil {
					p.sets = map[string]map[string]float64{}
				}
				p.sets[ms.Info().Name] = series
			}
		}
	}
	return p
}

// History is a run's metrics in the compact form the charts draw.
type History struct {
	points []point
}

// Add appends a metrics line.
func (h *History) Add(m metrics.Metric) { h.points = append(h.points, pointOf(m)) }

// ReadHistory reads the run's metrics file at path (metrics.Read).
func ReadHistory(path string) *History {
	h := &History{}
	metrics.Read(path, h.Add)
	return h
}

// Names lists the run's charts in the order the dashboard shows them;
// each is RUN/plots/NAME.png and the dashboard's NAME.svg.
// The position-set measures' charts (arena/measure) follow the strength
// charts, each under its measure's name.
var Names = func() []string {
	out := []string{"strength", "strength-gen", "strength-cpu"}
	for _, m := range measure.All() {
		out = append(out, m.Info().Name)
	}
	return append(out, "loss", "lr", "gradnorm", "gamelength", "outcomes", "window", "gate", "workers")
}()

// Series is one line of a chart: the points (X[i], Y[i]), and where the
// chart has intervals their 95% half-widths Err[i].
type Series struct {
	Label string    `json:"label"`
	X     []float64 `json:"x"`
	Y     []float64 `json:"y"`
	Err   []float64 `json:"err,omitempty"`
	// Level marks a reference level (an anchor's rating), drawn dashed
	// across the chart.
	Level bool `json:"level,omitempty"`
}

func (s *Series) add(x, y float64) {
	s.X, s.Y = append(s.X, x), append(s.Y, y)
}

// Chart is one of a run's charts as data: what the PNG files draw and the
// dashboard's page plots.
type Chart struct {
	Name string `json:"name"`
	// Title says what the chart shows, distinct from every other chart's
	// and without the run's game (a measure's names its own game).
	Title string `json:"title"`
	X     string `json:"x"` // the axes' labels
	Y     string `json:"y"`
	// XInteger: the X values are whole numbers (generations), ticked
	// only at whole numbers.
	XInteger bool `json:"x_integer,omitempty"`
	// Percent: Y is a percentage, its axis from 0 to 100.
	Percent bool     `json:"percent,omitempty"`
	Series  []Series `json:"series"`
	measure bool     // the title names its game already
}

// Flat describes a chart whose every series holds one value throughout
// (a constant learning rate) as a line of text, which tells it better
// than a panel of flat lines: "learning rate 0.02 throughout (step 10 to
// 20)"; ok is false for any other chart. A series of one point, or a
// chart with intervals or reference levels, is not flat: its panel says
// more than its value.
func (c Chart) Flat() (text string, ok bool) {
	if len(c.Series) == 0 {
		return "", false
	}
	var parts []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		if len(s.Y) < 2 || s.Err != nil || s.Level {
			return "", false
		}
		for _, y := range s.Y {
			if y != s.Y[0] {
				return "", false
			}
		}
		for _, x := range s.X {
			lo, hi = min(lo, x), max(hi, x)
		}
		parts = append(parts, s.Label+" "+FormatNumber(s.Y[0], 0))
	}
	return fmt.Sprintf("%s throughout (%s %s to %s)", strings.Join(parts, ", "), c.X, FormatNumber(lo, 0), FormatNumber(hi, 0)), true
}

// FormatNumber writes v with as few digits as tell apart values step
// apart (step 0: as few as give v back): "750" rather than "750.00",
// "0.015" rather than "0.01500".
func FormatNumber(v, step float64) string {
	if step > 0 {
		digits := max(0, min(12, int(math.Ceil(-math.Log10(step)))+1))
		p := math.Pow10(digits)
		v = math.Round(v*p) / p
	}
	if v == 0 {
		return "0" // not "-0"
	}
	if a := math.Abs(v); a >= 1e9 || a < 1e-6 {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Of reads the charts of the run directory run: its frozen config's game,
// its metrics and its evaluation games.
func Of(run string) (gameName string, charts []Chart, err error) {
	dir := rundir.Dir(run)
	cfg, err := dir.FrozenConfig()
	if err != nil {
		return "", nil, err
	}
	charts, err = Build(dir, ReadHistory(dir.Metrics()))
	return cfg.Game, charts, err
}

// Build makes every chart the history of the run in dir has data for, in
// the order of Names.
func Build(dir rundir.Dir, h *History) ([]Chart, error) {
	byName, err := buildCharts(dir, h.points)
	if err != nil {
		return nil, err
	}
	var out []Chart
	for _, n := range Names {
		if c, ok := byName[n]; ok {
			for i := range c.Series {
				c.Series[i] = c.Series[i].finite()
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// finite is the series without its points that have no finite value (a
// rating without games that bound it has an infinite interval): neither
// JSON nor a plot's axis holds one.
func (s Series) finite() Series {
	out := Series{Label: s.Label, Level: s.Level}
	ok := func(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }
	for i := range s.X {
		if !ok(s.X[i]) || !ok(s.Y[i]) || s.Err != nil && !ok(s.Err[i]) {
			continue
		}
		out.add(s.X[i], s.Y[i])
		if s.Err != nil {
			out.Err = append(out.Err, s.Err[i])
		}
	}
	return out
}

// seriesOf returns the series of a map by label in sorted order, each
// label given a prefix.
func seriesOf(m map[string]*Series, prefix string) []Series {
	var out []Series
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s := *m[k]
		s.Label = prefix + k
		out = append(out, s)
	}
	return out
}

// series returns m[k], made when missing.
func series(m map[string]*Series, k string) *Series {
	if m[k] == nil {
		m[k] = &Series{}
	}
	return m[k]
}

// buildCharts makes every chart the history has data for, by name.
func buildCharts(dir rundir.Dir, hist []point) (map[string]Chart, error) {
	out := map[string]Chart{}
	total, value, policy := Series{Label: "total"}, Series{Label: "value"}, Series{Label: "policy"}
	lr, grad := Series{Label: "learning rate"}, Series{Label: "gradient norm"}
	length, draws, window := Series{Label: "mean plies"}, Series{Label: "draws"}, Series{Label: "window"}
	gate := map[string]*Series{}
	sets := map[string]map[string]*Series{} // by measure, then series
	workers := map[string]*Series{}
	var prev *point
	for i := range hist {
		p := &hist[i]
		x := float64(p.generation)
		switch p.kind {
		case "train":
			s := float64(p.step)
			total.add(s, p.loss)
			value.add(s, p.value)
			policy.add(s, p.policy)
			lr.add(s, p.lr)
			grad.add(s, p.gradNorm)
		case "generation":
			for opp, e := range p.elo {
				series(gate, opp).add(x, e)
			}
			window.add(x, float64(p.window))
			// Per generation from the self-play totals (which an earlier
			// build restarted with each process: a drop starts a new count).
			if prev != nil && p.games > prev.games {
				g := float64(p.games - prev.games)
				length.add(x, float64(p.plies-prev.plies)/g)
				draws.add(x, 100*float64(p.draws-prev.draws)/g)
			}
			if p.games > 0 {
				prev = p
			}
			for w, n := range p.workers {
				series(workers, w).add(p.clock.Minutes(), float64(n))
			}
		case "evaluation":
			for _, m := range measure.All() {
				in := m.Info()
				x := p.clock.Minutes()
				if in.ByCPU {
					x = p.cpu.Hours()
				}
				for how, r := range p.sets[in.Name] {
					if sets[in.Name] == nil {
						sets[in.Name] = map[string]*Series{}
					}
					series(sets[in.Name], how).add(x, r)
				}
			}
		}
	}
	if len(total.X) > 0 {
		out["loss"] = Chart{Name: "loss", Title: "training loss", X: "step", Y: "loss", Series: []Series{total, value, policy}}
		out["lr"] = Chart{Name: "lr", Title: "learning rate", X: "step", Y: "learning rate", Series: []Series{lr}}
		out["gradnorm"] = Chart{Name: "gradnorm", Title: "gradient norm", X: "step", Y: "|g|", Series: []Series{grad}}
	}
	if len(gate) > 0 {
		out["gate"] = Chart{Name: "gate", Title: "the candidate's Elo in its gate matches", X: "generation", Y: "Elo difference",
			XInteger: true, Series: seriesOf(gate, "vs ")}
	}
	if len(window.X) > 0 {
		out["window"] = Chart{Name: "window", Title: "replay window", X: "generation", Y: "samples", XInteger: true, Series: []Series{window}}
	}
	if len(length.X) > 0 {
		out["gamelength"] = Chart{Name: "gamelength", Title: "self-play game length", X: "generation", Y: "plies per game",
			XInteger: true, Series: []Series{length}}
		out["outcomes"] = Chart{Name: "outcomes", Title: "self-play draws", X: "generation", Y: "% of games",
			XInteger: true, Percent: true, Series: []Series{draws}}
	}
	for _, m := range measure.All() {
		in := m.Info()
		if len(sets[in.Name]) == 0 {
			continue
		}
		c := Chart{Name: in.Name, Title: in.Chart, X: "training time (minutes)", Y: in.YLabel, Percent: true,
			Series: seriesOf(sets[in.Name], ""), measure: true}
		if in.ByCPU {
			c.X = "training CPU-hours (train_cpu_s)"
		}
		out[in.Name] = c
	}
	if len(workers) > 0 {
		out["workers"] = Chart{Name: "workers", Title: "samples from remote workers", X: "training time (minutes)", Y: "samples taken in",
			Series: seriesOf(workers, "")}
	}
	return out, addStrength(out, dir, hist)
}

// addStrength adds the strength charts: the best network's rating at each
// evaluation, one curve with 95% intervals, against training minutes,
// generations and CPU-hours, on the scale of the anchors it played (a
// Bradley-Terry fit over every evaluation game in RUN/arena, the anchors
// as levels).
func addStrength(out map[string]Chart, dir rundir.Dir, hist []point) error {
	rows, anchor, err := EvaluationRatings(dir)
	if err != nil || len(rows) == 0 {
		return err
	}
	byName := map[string]arena.Rating{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	byTime, byGen, byCPU := Series{Label: "best network"}, Series{Label: "best network"}, Series{Label: "best network"}
	anchors := map[string]bool{}
	for _, p := range hist {
		if p.kind != "evaluation" {
			continue
		}
		r, ok := byName[fmt.Sprintf("gen%d", p.best)]
		if !ok {
			continue
		}
		byTime.add(p.clock.Minutes(), r.Elo)
		byGen.add(float64(p.best), r.Elo)
		byCPU.add(p.cpu.Hours(), r.Elo)
		for _, s := range []*Series{&byTime, &byGen, &byCPU} {
			s.Err = append(s.Err, r.Err95)
		}
		for opp := range p.elo {
			anchors[opp] = true
		}
	}
	if len(byTime.X) == 0 {
		return nil
	}
	for _, c := range []struct {
		name, title, x string
		s              Series
	}{{"strength", "the best network's rating by training time (95% intervals)", "training time (minutes)", byTime},
		{"strength-gen", "the best network's rating by its generation (95% intervals)", "generation of the best network", byGen},
		// A long run on a shared machine: the CPU it had, not the wall time.
		{"strength-cpu", "the best network's rating by training CPU-hours (95% intervals)", "training CPU-hours (train_cpu_s)", byCPU}} {
		ch := Chart{Name: c.name, Title: c.title, X: c.x, Y: fmt.Sprintf("Elo (%s = 0)", anchor),
			XInteger: c.name == "strength-gen", Series: []Series{c.s}}
		// An anchor is a level across the data's X range, no wider: an
		// axis drawn past the data's end reads as data missing.
		lo, hi := slices.Min(c.s.X), slices.Max(c.s.X)
		for _, name := range slices.Sorted(maps.Keys(anchors)) {
			if r, ok := byName[name]; ok {
				ch.Series = append(ch.Series, Series{Label: name, X: []float64{lo, hi}, Y: []float64{r.Elo, r.Elo}, Level: true})
			}
		}
		out[c.name] = ch
	}
	return nil
}

// EvaluationRatings rates every player of the run's evaluation games
// (RUN/arena/e*.jsonl) on one Bradley-Terry scale, anchored at the default
// anchor (the first ab: player, else random); the best network of an
// evaluation is genN.
func EvaluationRatings(dir rundir.Dir) ([]arena.Rating, string, error) {
	all, err := arena.ReadRecords(dir.Arena())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", nil
		}
		return nil, "", err
	}
	var recs []arena.Record
	for _, r := range all {
		if strings.HasPrefix(r.Match, "e") {
			recs = append(recs, r)
		}
	}
	if len(recs) == 0 {
		return nil, "", nil
	}
	anchor := arena.DefaultAnchor(recs)
	rows, err := arena.Ratings(arena.Outcomes(recs), arena.RatingOptions{Anchor: anchor})
	return rows, anchor, err
}
