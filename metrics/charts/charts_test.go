package charts

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/rundir"
)

// FormatNumber gives the value back to within a tenth of the step, with
// no trailing zero after a decimal point and no exponent for ordinary
// magnitudes.
func TestFormatNumber(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		step := math.Pow10(rng.IntN(12)-6) * []float64{1, 2, 2.5, 5}[rng.IntN(4)]
		v := (rng.Float64()*2000 - 1000) * step
		s := FormatNumber(v, step)
		got, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("FormatNumber(%g, %g) = %q: %v", v, step, s, err)
		}
		if math.Abs(got-v) > step/10+1e-12*math.Abs(v) {
			t.Fatalf("FormatNumber(%g, %g) = %q, off by %g", v, step, s, math.Abs(got-v))
		}
		if strings.Contains(s, ".") && !strings.ContainsAny(s, "e") && strings.HasSuffix(s, "0") {
			t.Fatalf("FormatNumber(%g, %g) = %q has a trailing zero", v, step, s)
		}
	}
	for _, v := range []float64{0, 3, 750, -1000, 0.02, 1e-5} {
		if got, _ := strconv.ParseFloat(FormatNumber(v, 0), 64); got != v {
			t.Errorf("FormatNumber(%g, 0) = %q", v, FormatNumber(v, 0))
		}
	}
}

// The ticks' labels tell their values apart and give them back with no
// digit they do not need; the
// integer ticks label only whole numbers inside the range, at most
// seven, and at least one wherever the range holds one.
func TestTicks(t *testing.T) {
	for _, r := range [][2]float64{{0, 1}, {-250, 750}, {0, 0.18}, {1, 2}, {0.02, 0.0201}, {-1000, 300}, {1, 250}, {3, 3.5}, {0.5, 3.7}, {0, 100000}} {
		seen := map[string]bool{}
		for _, tk := range (numberTicks{}).Ticks(r[0], r[1]) {
			if tk.Label == "" {
				continue
			}
			if seen[tk.Label] {
				t.Errorf("range %v: label %q twice", r, tk.Label)
			}
			seen[tk.Label] = true
			got, err := strconv.ParseFloat(tk.Label, 64)
			if strings.Contains(tk.Label, ".") && strings.HasSuffix(tk.Label, "0") {
				t.Errorf("range %v: label %q has a trailing zero (gonum's own: 750.00)", r, tk.Label)
			}
			if err != nil || math.Abs(got-tk.Value) > (r[1]-r[0])/100 {
				t.Errorf("range %v: label %q for %g", r, tk.Label, tk.Value)
			}
		}
		labels := 0
		for _, tk := range (integerTicks{}).Ticks(r[0], r[1]) {
			if tk.Value != math.Trunc(tk.Value) || tk.Value < r[0] || tk.Value > r[1] {
				t.Errorf("range %v: integer tick at %g", r, tk.Value)
			}
			if tk.Label != "" {
				labels++
				if tk.Label != strconv.Itoa(int(tk.Value)) {
					t.Errorf("range %v: integer tick %g labelled %q", r, tk.Value, tk.Label)
				}
			}
		}
		if whole := math.Floor(r[1]) - math.Ceil(r[0]) + 1; labels > 7 || whole >= 1 && labels == 0 {
			t.Errorf("range %v: %d integer labels", r, labels)
		}
	}
}

// history is a run's metrics lines as the trainer writes them: train
// lines with a constant learning rate, generation lines with self-play
// totals and gate matches.
func history() (*History, []metrics.Metric) {
	var ms []metrics.Metric
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for g := 1; g <= 5; g++ {
		ms = append(ms, metrics.Metric{Kind: "train", Time: at, Generation: g - 1, Step: int64(10 * g), Loss: 3 - 0.1*float64(g),
			ValueLoss: 1, PolicyLoss: 2 - 0.1*float64(g), LR: 0.02, GradNorm: float64(g)})
		ms = append(ms, metrics.Metric{Kind: "generation", Time: at, Generation: g, Step: int64(10 * g), Window: 100 * g,
			SelfPlayGames: int64(10 * g), SelfPlayPlies: int64(10*g*20 + g*g), SelfPlayDraws: int64(g * g),
			Matches: []metrics.MatchResult{{Opponent: "gen" + strconv.Itoa(g-1), Elo: float64(10 * g)}, {Opponent: "ab:depth=1", Elo: -float64(g)}}})
	}
	h := &History{}
	for _, m := range ms {
		h.Add(m)
	}
	return h, ms
}

// Build's series are the metrics' figures: the loss by step, the draw
// rate and game length per generation from the worker's totals, the
// gate's Elo by opponent (the previous best as one series); titles are
// distinct; a constant learning rate is flat, nothing else is.
func TestBuild(t *testing.T) {
	h, ms := history()
	cs, err := Build(rundir.Dir(t.TempDir()), h) // no records: no strength charts
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Chart{}
	titles := map[string]bool{}
	for _, c := range cs {
		by[c.Name] = c
		if titles[c.Title] {
			t.Errorf("title %q twice", c.Title)
		}
		titles[c.Title] = true
	}
	var steps, loss []float64
	for _, m := range ms {
		if m.Kind == "train" {
			steps, loss = append(steps, float64(m.Step)), append(loss, m.Loss)
		}
	}
	if l := by["loss"].Series[0]; l.Label != "total" || !slices.Equal(l.X, steps) || !slices.Equal(l.Y, loss) {
		t.Errorf("loss series %+v, want steps %v losses %v", l, steps, loss)
	}
	// Generation g played 10 games of 20 plies and 2g-1 more plies, and
	// 2g-1 draws (the totals' differences).
	d, gl := by["outcomes"].Series[0], by["gamelength"].Series[0]
	for i, x := range d.X {
		g := x
		if want := 100 * (2*g - 1) / 10; math.Abs(d.Y[i]-want) > 1e-9 {
			t.Errorf("draws at generation %g: %g%%, want %g%%", g, d.Y[i], want)
		}
		if want := 20 + (2*g-1)/10; math.Abs(gl.Y[i]-want) > 1e-9 {
			t.Errorf("game length at generation %g: %g, want %g", g, gl.Y[i], want)
		}
	}
	if len(d.X) != 4 || !by["outcomes"].Percent || !by["outcomes"].XInteger {
		t.Errorf("outcomes chart %+v", by["outcomes"])
	}
	gate := by["gate"]
	if len(gate.Series) != 2 || gate.Series[1].Label != "vs the previous best" || len(gate.Series[1].X) != 5 || gate.Series[1].Y[4] != 50 {
		t.Errorf("gate series %+v", gate.Series)
	}
	if text, ok := by["lr"].Flat(); !ok || !strings.Contains(text, "0.02") || !strings.Contains(text, "10 to 50") {
		t.Errorf("the constant learning rate: flat %v %q", ok, text)
	}
	for _, c := range cs {
		if _, ok := c.Flat(); ok && c.Name != "lr" {
			t.Errorf("chart %s is flat", c.Name)
		}
	}
}

// Plot draws a percentage from 0 to 100, whatever its data (no headroom
// to 120 for the legend), and the X axis ends at the data's ends.
func TestPlotRanges(t *testing.T) {
	h, _ := history()
	cs, err := Build(rundir.Dir(t.TempDir()), h)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		p, err := Plot("connect4", c)
		if err != nil {
			t.Fatal(err)
		}
		var lo, hi float64 = math.Inf(1), math.Inf(-1)
		for _, s := range c.Series {
			lo, hi = min(lo, slices.Min(s.X)), max(hi, slices.Max(s.X))
		}
		if p.X.Min != lo || p.X.Max != hi {
			t.Errorf("%s: X axis %g to %g, data %g to %g", c.Name, p.X.Min, p.X.Max, lo, hi)
		}
		if c.Percent && (p.Y.Min != 0 || p.Y.Max != 100) {
			t.Errorf("%s: a percentage from %g to %g", c.Name, p.Y.Min, p.Y.Max)
		}
		if !strings.HasPrefix(p.Title.Text, "connect4: ") {
			t.Errorf("%s: title %q", c.Name, p.Title.Text)
		}
	}
}

// A series keeps its finite points only, each with its own interval.
func TestFinite(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	s := Series{Label: "best network", X: []float64{0, 1, 2, inf, 4}, Y: []float64{10, nan, 30, 40, 50}, Err: []float64{1, 2, inf, 4, 5}}.finite()
	if !slices.Equal(s.X, []float64{0, 4}) || !slices.Equal(s.Y, []float64{10, 50}) || !slices.Equal(s.Err, []float64{1, 5}) || s.Label != "best network" {
		t.Errorf("finite: %+v", s)
	}
	if s := (Series{X: []float64{1, 2}, Y: []float64{3, 4}}).finite(); s.Err != nil || len(s.X) != 2 {
		t.Errorf("a series without intervals: %+v", s)
	}
}
