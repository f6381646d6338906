package charts

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/rundir"
)

// WritePNGs writes RUN/plots/NAME.png for every chart the run has data
// for, but a flat one (Chart.Flat: a constant learning rate), which is
// no picture.
func WritePNGs(dir rundir.Dir, gameName string, h *History) error {
	plots := dir.Plots()
	if err := os.MkdirAll(plots, 0o755); err != nil {
		return err
	}
	charts, err := Build(dir, h)
	if err != nil {
		return err
	}
	for _, c := range charts {
		if _, flat := c.Flat(); flat {
			continue
		}
		p, err := Plot(gameName, c)
		if err != nil {
			return fmt.Errorf("charts: %s: %w", c.Name, err)
		}
		if err := save(p, filepath.Join(plots, c.Name+".png")); err != nil {
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
	gameName, charts, err := Of(run)
	if err != nil {
		return false, err
	}
	i := slices.IndexFunc(charts, func(c Chart) bool { return c.Name == name })
	if i < 0 {
		return false, nil
	}
	p, err := Plot(gameName, charts[i])
	if err != nil {
		return false, err
	}
	wt, err := p.WriterTo(8*vg.Inch, 4*vg.Inch, format)
	if err != nil {
		return false, err
	}
	_, err = wt.WriteTo(w)
	return err == nil, err
}

// Plot draws chart c of a run of gameName with gonum/plot: its title
// with the game's name, lines with points, intervals as error bars,
// levels dashed, the legend above the data (so no axis is stretched to
// make room for it), generations ticked at whole numbers, a percentage
// from 0 to 100.
func Plot(gameName string, c Chart) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = c.Title
	if !c.measure {
		p.Title.Text = gameName + ": " + c.Title
	}
	p.X.Label.Text, p.Y.Label.Text = c.X, c.Y
	p.X.Tick.Marker, p.Y.Tick.Marker = numberTicks{}, numberTicks{}
	if c.XInteger {
		p.X.Tick.Marker = integerTicks{}
	}
	p.Legend.Top, p.Legend.Left = true, true
	for i, s := range c.Series {
		if len(s.X) == 0 {
			continue // every point was dropped (Series.finite)
		}
		xys := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xys[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
		}
		color := plotutil.Color(i)
		if s.Level {
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, err
			}
			l.Color, l.Dashes = color, []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(l)
			p.Legend.Add(s.Label, l)
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = color, color
		points.Shape = plotutil.Shape(i)
		line.Dashes = plotutil.Dashes(i)
		p.Add(line, points)
		p.Legend.Add(s.Label, line, points)
		if s.Err != nil {
			bars, err := plotter.NewYErrorBars(errorXYs{xys, s.Err})
			if err != nil {
				return nil, err
			}
			bars.Color = color
			p.Add(bars)
		}
	}
	if c.Percent {
		p.Y.Min, p.Y.Max = 0, 100
	}
	legendAbove(p, len(c.Series))
	return p, nil
}

// legendAbove moves the legend's n entries from the data's top left
// corner to a band between the title and the data.
func legendAbove(p *plot.Plot, n int) {
	if n == 0 {
		return
	}
	h := vg.Length(n)*p.Legend.TextStyle.Rectangle("Xg").Size().Y + vg.Length(n-1)*p.Legend.Padding
	p.Title.Padding += h
	p.Legend.YOffs = h
}

// errorXYs are points with symmetric Y error bars (95% intervals).
type errorXYs struct {
	plotter.XYs
	err []float64
}

func (e errorXYs) YError(i int) (float64, float64) { return e.err[i], e.err[i] }

// numberTicks are gonum's default ticks labelled by FormatNumber: gonum
// writes two decimals wherever its step is 2.5 units ("750.00", a
// generation "0.00").
type numberTicks struct{}

func (numberTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	step := math.Inf(1)
	last := math.NaN()
	for _, t := range ticks {
		if t.Label != "" {
			if !math.IsNaN(last) {
				step = min(step, t.Value-last)
			}
			last = t.Value
		}
	}
	if math.IsInf(step, 1) {
		step = 0
	}
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = FormatNumber(ticks[i].Value, step)
		}
	}
	return ticks
}

// integerTicks label whole numbers only (generations), a step of 1, 2
// or 5 times a power of ten giving at most about six labels, with a
// minor tick at each whole number where they are few.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := math.Ceil(lo), math.Floor(hi)
	if last < first {
		return nil
	}
	step := 1.0
	for (last-first)/step > 6 {
		switch m := step / math.Pow10(int(math.Floor(math.Log10(step)))); {
		case m < 2:
			step *= 2
		case m < 5:
			step = step / 2 * 5
		default:
			step *= 2
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(first/step) * step; v <= last; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: FormatNumber(v, 1)})
	}
	if step > 1 && last-first <= 60 {
		for v := first; v <= last; v++ {
			if math.Mod(v, step) != 0 {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
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
