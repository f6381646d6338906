package trainer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/tabula-zero/tabula/internal/atomicfile"
)

// point is what the plots need of a metrics line.
type point struct {
	kind                string
	step                int64
	generation          int
	loss, value, policy float64
	clock               time.Duration      // training time
	elo                 map[string]float64 // by opponent, for generation lines
	eloCI               map[string]float64 // their 95% half-widths
	pons                map[string]float64 // optimal-move rate by measure, for evaluation lines
	workers             map[string]int     // samples taken in from each remote worker so far
}

func pointOf(m Metric) point {
	p := point{kind: m.Kind, step: m.Step, generation: m.Generation, loss: m.Loss, value: m.ValueLoss, policy: m.PolicyLoss,
		clock: time.Duration(m.TrainClock * float64(time.Second))}
	if len(m.Matches) > 0 {
		p.elo, p.eloCI = map[string]float64{}, map[string]float64{}
		for _, r := range m.Matches {
			p.elo[r.Opponent], p.eloCI[r.Opponent] = r.Elo, r.EloCI95
		}
	}
	if len(m.Workers) > 0 {
		p.workers = map[string]int{}
		for _, w := range m.Workers {
			p.workers[w.Name] = w.Samples
		}
	}
	if len(m.Pons) > 0 {
		p.pons = map[string]float64{}
		for _, r := range m.Pons {
			how := "raw policy"
			if r.Simulations > 0 {
				how = fmt.Sprintf("%d simulations", r.Simulations)
			}
			p.pons[how] = 100 * r.OptimalRate
		}
	}
	return p
}

// readHistory reloads the metrics of earlier invocations for the plots.
func readHistory(path string) []point {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []point
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m Metric
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, pointOf(m))
		}
	}
	return out
}

// plot writes RUN/plots/loss.png (losses over steps) and RUN/plots/elo.png
// (the candidate's Elo against each gate opponent over generations).
func (l *Loop) plot() error {
	dir := l.dir.Plots()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var total, value, policy plotter.XYs
	elo := map[string]plotter.XYs{}
	for _, p := range l.history {
		switch p.kind {
		case "train":
			total = append(total, plotter.XY{X: float64(p.step), Y: p.loss})
			value = append(value, plotter.XY{X: float64(p.step), Y: p.value})
			policy = append(policy, plotter.XY{X: float64(p.step), Y: p.policy})
		case "generation":
			for opp, e := range p.elo {
				elo[opp] = append(elo[opp], plotter.XY{X: float64(p.generation), Y: e})
			}
		}
	}
	if len(total) > 0 {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s training loss", l.cfg.Game)
		p.X.Label.Text = "step"
		p.Y.Label.Text = "loss"
		if err := plotutil.AddLines(p, "total", total, "value", value, "policy", policy); err != nil {
			return err
		}
		if err := save(p, filepath.Join(dir, "loss.png")); err != nil {
			return err
		}
	}
	if len(elo) > 0 {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s candidate Elo vs gate opponents", l.cfg.Game)
		p.X.Label.Text = "generation"
		p.Y.Label.Text = "Elo difference"
		var args []any
		for _, opp := range slices.Sorted(maps.Keys(elo)) {
			args = append(args, "vs "+opp, elo[opp])
		}
		if err := plotutil.AddLinePoints(p, args...); err != nil {
			return err
		}
		if err := save(p, filepath.Join(dir, "elo.png")); err != nil {
			return err
		}
	}
	if err := l.plotStrength(dir); err != nil {
		return err
	}
	return l.plotWorkers(dir)
}

// plotWorkers writes RUN/plots/workers.png: the samples each remote
// worker contributed over training minutes.
func (l *Loop) plotWorkers(dir string) error {
	series := map[string]plotter.XYs{}
	for _, p := range l.history {
		for w, n := range p.workers {
			series[w] = append(series[w], plotter.XY{X: p.clock.Minutes(), Y: float64(n)})
		}
	}
	if len(series) == 0 {
		return nil
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: samples from remote workers", l.cfg.Game)
	p.X.Label.Text = "training time (minutes)"
	p.Y.Label.Text = "samples taken in"
	p.Legend.Top, p.Legend.Left = true, true
	var args []any
	for _, w := range slices.Sorted(maps.Keys(series)) {
		args = append(args, w, series[w])
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return err
	}
	return save(p, filepath.Join(dir, "workers.png"))
}

// errorXYs are points with symmetric Y error bars (95% intervals).
type errorXYs struct {
	plotter.XYs
	err []float64
}

func (e errorXYs) YError(i int) (float64, float64) { return e.err[i], e.err[i] }

// plotStrength writes RUN/plots/strength.png (the evaluations' Elo
// against each anchor with 95% intervals, over training minutes) and,
// with Pons measures, RUN/plots/pons.png.
func (l *Loop) plotStrength(dir string) error {
	elo := map[string]*errorXYs{}
	pons := map[string]plotter.XYs{}
	for _, p := range l.history {
		if p.kind != "evaluation" {
			continue
		}
		x := p.clock.Minutes()
		for opp, e := range p.elo {
			s := elo[opp]
			if s == nil {
				s = &errorXYs{}
				elo[opp] = s
			}
			s.XYs = append(s.XYs, plotter.XY{X: x, Y: e})
			s.err = append(s.err, p.eloCI[opp])
		}
		for how, r := range p.pons {
			pons[how] = append(pons[how], plotter.XY{X: x, Y: r})
		}
	}
	if len(elo) > 0 {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s: the best network against fixed anchors (95%% intervals)", l.cfg.Game)
		p.X.Label.Text = "training time (minutes)"
		p.Y.Label.Text = "Elo difference"
		p.Legend.Top, p.Legend.Left = true, true
		// Elo is clamped to +-1000 (a sweep's, and a sweep's interval, is
		// unbounded): the scale stops there.
		p.Y.Min, p.Y.Max = -1000, 1000
		for i, opp := range slices.Sorted(maps.Keys(elo)) {
			s := elo[opp]
			line, points, err := plotter.NewLinePoints(s.XYs)
			if err != nil {
				return err
			}
			bars, err := plotter.NewYErrorBars(*s)
			if err != nil {
				return err
			}
			line.Color, points.Color, bars.Color = plotutil.Color(i), plotutil.Color(i), plotutil.Color(i)
			points.Shape = plotutil.Shape(i)
			p.Add(line, points, bars)
			p.Legend.Add("vs "+opp, line, points)
		}
		if err := save(p, filepath.Join(dir, "strength.png")); err != nil {
			return err
		}
	}
	if len(pons) > 0 {
		p := plot.New()
		p.Title.Text = "Connect Four: optimal moves on Pons' positions"
		p.X.Label.Text = "training time (minutes)"
		p.Y.Label.Text = "optimal moves (%)"
		p.Y.Min, p.Y.Max = 0, 100
		p.Legend.Top, p.Legend.Left = true, true
		var args []any
		for _, how := range slices.Sorted(maps.Keys(pons)) {
			args = append(args, how, pons[how])
		}
		if err := plotutil.AddLinePoints(p, args...); err != nil {
			return err
		}
		if err := save(p, filepath.Join(dir, "pons.png")); err != nil {
			return err
		}
	}
	return nil
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
