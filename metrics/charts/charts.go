// Package charts draws a run's charts from its metrics (metrics.Read) and
// its evaluation games: PNG files under RUN/plots for the trainer, SVG or
// PNG on request for the dashboard.
package charts

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/measure"
	_ "github.com/tabula-zero/tabula/arena/measure/all" // the measures' charts
	"github.com/tabula-zero/tabula/internal/atomicfile"
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

// WritePNGs writes RUN/plots/NAME.png for every chart the run has data
// for.
func WritePNGs(dir rundir.Dir, gameName string, h *History) error {
	plots := dir.Plots()
	if err := os.MkdirAll(plots, 0o755); err != nil {
		return err
	}
	charts, err := buildCharts(dir, gameName, h.points)
	if err != nil {
		return err
	}
	for name, p := range charts {
		if err := save(p, filepath.Join(plots, name+".png")); err != nil {
			return err
		}
	}
	return nil
}

// Render writes chart name of the run in format (svg or png) from its
// metrics and evaluation games; ok is false when the run has no data for
// it yet.
func Render(run, name, format string, w io.Writer) (ok bool, err error) {
	if !slices.Contains(Names, name) {
		return false, fmt.Errorf("charts: no chart %q (charts: %s)", name, strings.Join(Names, ", "))
	}
	dir := rundir.Dir(run)
	cfg, err := dir.FrozenConfig()
	if err != nil {
		return false, err
	}
	charts, err := buildCharts(dir, cfg.Game, ReadHistory(dir.Metrics()).points)
	if err != nil {
		return false, err
	}
	p := charts[name]
	if p == nil {
		return false, nil
	}
	wt, err := p.WriterTo(8*vg.Inch, 4*vg.Inch, format)
	if err != nil {
		return false, err
	}
	_, err = wt.WriteTo(w)
	return err == nil, err
}

// chart is a plot with the usual labels, its legend at the top left above
// the data (the Y range gets headroom for it).
func chart(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Legend.Top, p.Legend.Left = true, true
	return p
}

// headroom raises the Y maximum so that a legend of n lines at the top
// stays off the data.
func headroom(p *plot.Plot, n int) {
	span := p.Y.Max - p.Y.Min
	if span <= 0 { // a constant series
		span = max(math.Abs(p.Y.Max), 1e-3)
		p.Y.Min -= span / 2
	}
	p.Y.Max += span * 0.12 * float64(n)
}

// lines adds named series (name, XYs, name, XYs, ...) as lines with
// points.
func lines(p *plot.Plot, series ...any) error {
	if err := plotutil.AddLinePoints(p, series...); err != nil {
		return err
	}
	headroom(p, len(series)/2)
	return nil
}

// buildCharts makes every chart the history has data for.
func buildCharts(dir rundir.Dir, gameName string, hist []point) (map[string]*plot.Plot, error) {
	out := map[string]*plot.Plot{}
	var total, value, policy, lr, grad plotter.XYs
	var length, draws, window plotter.XYs
	gate := map[string]plotter.XYs{}
	sets := map[string]map[string]plotter.XYs{} // by measure, then series
	workers := map[string]plotter.XYs{}
	var prev *point
	for i := range hist {
		p := &hist[i]
		x := float64(p.generation)
		switch p.kind {
		case "train":
			s := float64(p.step)
			total = append(total, plotter.XY{X: s, Y: p.loss})
			value = append(value, plotter.XY{X: s, Y: p.value})
			policy = append(policy, plotter.XY{X: s, Y: p.policy})
			lr = append(lr, plotter.XY{X: s, Y: p.lr})
			grad = append(grad, plotter.XY{X: s, Y: p.gradNorm})
		case "generation":
			for opp, e := range p.elo {
				gate[opp] = append(gate[opp], plotter.XY{X: x, Y: e})
			}
			window = append(window, plotter.XY{X: x, Y: float64(p.window)})
			// Per generation from the worker's totals (which restart with
			// the process: a drop starts a new count).
			if prev != nil && p.games > prev.games {
				g := float64(p.games - prev.games)
				length = append(length, plotter.XY{X: x, Y: float64(p.plies-prev.plies) / g})
				draws = append(draws, plotter.XY{X: x, Y: 100 * float64(p.draws-prev.draws) / g})
			}
			if p.games > 0 {
				prev = p
			}
			for w, n := range p.workers {
				workers[w] = append(workers[w], plotter.XY{X: p.clock.Minutes(), Y: float64(n)})
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
						sets[in.Name] = map[string]plotter.XYs{}
					}
					sets[in.Name][how] = append(sets[in.Name][how], plotter.XY{X: x, Y: r})
				}
			}
		}
	}
	if len(total) > 0 {
		p := chart(gameName+": training loss", "step", "loss")
		if err := lines(p, "total", total, "value", value, "policy", policy); err != nil {
			return nil, err
		}
		out["loss"] = p
		p = chart(gameName+": learning rate", "step", "learning rate")
		if err := lines(p, "learning rate", lr); err != nil {
			return nil, err
		}
		out["lr"] = p
		p = chart(gameName+": gradient norm", "step", "|g|")
		if err := lines(p, "gradient norm", grad); err != nil {
			return nil, err
		}
		out["gradnorm"] = p
	}
	if len(gate) > 0 {
		p := chart(gameName+": the candidate's Elo in its gate matches", "generation", "Elo difference")
		var args []any
		for _, opp := range slices.Sorted(maps.Keys(gate)) {
			args = append(args, "vs "+opp, gate[opp])
		}
		if err := lines(p, args...); err != nil {
			return nil, err
		}
		out["gate"] = p
	}
	if len(window) > 0 {
		p := chart(gameName+": replay window", "generation", "samples")
		if err := lines(p, "window", window); err != nil {
			return nil, err
		}
		out["window"] = p
	}
	if len(length) > 0 {
		p := chart(gameName+": self-play game length", "generation", "plies per game")
		if err := lines(p, "mean plies", length); err != nil {
			return nil, err
		}
		out["gamelength"] = p
		p = chart(gameName+": self-play outcomes", "generation", "% of games")
		if err := lines(p, "draws", draws); err != nil {
			return nil, err
		}
		out["outcomes"] = p
	}
	for _, m := range measure.All() {
		in := m.Info()
		r := struct {
			name, title, x, y string
			series            map[string]plotter.XYs
		}{in.Name, in.Chart, "training time (minutes)", in.YLabel, sets[in.Name]}
		if in.ByCPU {
			r.x = "training CPU-hours (train_cpu_s)"
		}
		if len(r.series) == 0 {
			continue
		}
		p := chart(r.title, r.x, r.y)
		var args []any
		for _, how := range slices.Sorted(maps.Keys(r.series)) {
			args = append(args, how, r.series[how])
		}
		if err := lines(p, args...); err != nil {
			return nil, err
		}
		p.Y.Min, p.Y.Max = 0, 100+12*float64(len(r.series))
		out[r.name] = p
	}
	if len(workers) > 0 {
		p := chart(gameName+": samples from remote workers", "training time (minutes)", "samples taken in")
		var args []any
		for _, w := range slices.Sorted(maps.Keys(workers)) {
			args = append(args, w, workers[w])
		}
		if err := lines(p, args...); err != nil {
			return nil, err
		}
		out["workers"] = p
	}
	return out, addStrength(out, dir, gameName, hist)
}

// errorXYs are points with symmetric Y error bars (95% intervals).
type errorXYs struct {
	plotter.XYs
	err []float64
}

func (e errorXYs) YError(i int) (float64, float64) { return e.err[i], e.err[i] }

// addStrength adds the strength charts: the best network's rating at each
// evaluation, one curve with 95% intervals, against training minutes,
// generations and CPU-hours, on the scale of the anchors it played (a
// Bradley-Terry fit over every evaluation game in RUN/arena, the anchors
// drawn as dashed lines).
func addStrength(out map[string]*plot.Plot, dir rundir.Dir, gameName string, hist []point) error {
	rows, anchor, err := EvaluationRatings(dir)
	if err != nil || len(rows) == 0 {
		return err
	}
	byName := map[string]arena.Rating{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	var byTime, byGen, byCPU errorXYs
	anchors := map[string]bool{}
	for _, p := range hist {
		if p.kind != "evaluation" {
			continue
		}
		r, ok := byName[fmt.Sprintf("gen%d", p.best)]
		if !ok {
			continue
		}
		byTime.XYs = append(byTime.XYs, plotter.XY{X: p.clock.Minutes(), Y: r.Elo})
		byTime.err = append(byTime.err, r.Err95)
		byGen.XYs = append(byGen.XYs, plotter.XY{X: float64(p.best), Y: r.Elo})
		byGen.err = append(byGen.err, r.Err95)
		byCPU.XYs = append(byCPU.XYs, plotter.XY{X: p.cpu.Hours(), Y: r.Elo})
		byCPU.err = append(byCPU.err, r.Err95)
		for opp := range p.elo {
			anchors[opp] = true
		}
	}
	if len(byTime.XYs) == 0 {
		return nil
	}
	for _, c := range []struct {
		name, x string
		s       errorXYs
	}{{"strength", "training time (minutes)", byTime}, {"strength-gen", "generation of the best network", byGen},
		// A long run on a shared machine: the CPU it had, not the wall time.
		{"strength-cpu", "training CPU-hours (train_cpu_s)", byCPU}} {
		p := chart(fmt.Sprintf("%s: the best network's rating (%s = 0, 95%% intervals)", gameName, anchor), c.x, "Elo")
		line, points, err := plotter.NewLinePoints(c.s.XYs)
		if err != nil {
			return err
		}
		bars, err := plotter.NewYErrorBars(c.s)
		if err != nil {
			return err
		}
		line.Color, points.Color, bars.Color = plotutil.Color(0), plotutil.Color(0), plotutil.Color(0)
		p.Add(line, points, bars)
		p.Legend.Add("best network", line, points)
		lo, hi := c.s.XYs[0].Y-c.s.err[0], c.s.XYs[0].Y+c.s.err[0]
		for i := range c.s.XYs {
			lo, hi = min(lo, c.s.XYs[i].Y-c.s.err[i]), max(hi, c.s.XYs[i].Y+c.s.err[i])
		}
		xmin, xmax := c.s.XYs[0].X, c.s.XYs[len(c.s.XYs)-1].X
		for i, name := range slices.Sorted(maps.Keys(anchors)) {
			r, ok := byName[name]
			if !ok {
				continue
			}
			l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: r.Elo}, {X: max(xmax, xmin+1), Y: r.Elo}})
			if err != nil {
				return err
			}
			l.Color, l.Dashes = plotutil.Color(i+1), []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(l)
			p.Legend.Add(name, l)
			lo, hi = min(lo, r.Elo), max(hi, r.Elo)
		}
		p.Y.Min, p.Y.Max = lo-50, hi+50
		headroom(p, 1+len(anchors))
		out[c.name] = p
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

func save(p *plot.Plot, path string) error {
	w, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, "png")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, 0o644, func(out io.Writer) error {
		_, err := w.WriteTo(out)
		return err
	})
}
