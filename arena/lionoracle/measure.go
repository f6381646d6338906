package lionoracle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/measure"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/internal/liondata"
	"github.com/tabula-zero/tabula/internal/progress"
)

func init() { measure.Register(oracle{}) }

// Result is one Lion oracle measure of a training run's evaluation (its
// metrics line's "lion_oracle" entries): the best network's moves on the
// first Positions of the Lion test set with Simulations (0: the raw
// policy), judged by the exact values.
type Result struct {
	Simulations int     `json:"simulations"`
	Positions   int     `json:"positions"`
	Optimal     int     `json:"optimal"`
	OutcomeKept int     `json:"outcome_kept"`
	OptimalRate float64 `json:"optimal_rate"`
	OutcomeRate float64 `json:"outcome_rate"`
	// The optimal and outcome-kept rates by the exact outcome (win, draw,
	// loss) and by phase (opening, middle, late).
	OptimalBy map[string]float64 `json:"optimal_by,omitempty"`
	OutcomeBy map[string]float64 `json:"outcome_by,omitempty"`
}

// Value is the best network's value head on the same positions (the
// line's "lion_value" entry): the share whose value says the exact
// outcome (a win above 1/3, a loss below -1/3) and the mean
// |value - exact|.
type Value struct {
	Positions int     `json:"positions"`
	AgreeRate float64 `json:"agree_rate"`
	MeanError float64 `json:"mean_error"`
}

// oracle is the measure as the registry holds it.
type oracle struct{}

var cache measure.Cache[[]liondata.Line]

func (oracle) Info() measure.Info {
	return measure.Info{Name: "lion-oracle", Game: "lion", Section: "lion_oracle",
		Flag:    "lion: measure player A against perfect play on this Lion test set (embedded: internal/liondata's; heldout: its held-out set)",
		Example: "internal/liondata/positions.txt",
		Chart:   "Catch the Lion: moves judged by the tablebase (the Lion oracle's positions)", YLabel: "% of positions",
		Config: []configs.Option{
			{Path: "set", Default: "", Values: []string{""}, Help: "unused: the oracle has one set"},
			{Path: "positions", Default: 0, Range: &configs.Range{Min: 0, Max: 100000}, Help: "the first positions of the Lion oracle's test set measured (internal/liondata, 3,275 in a random order; 0: all; without the lion_oracle section, no oracle measure)"},
			{Path: "simulations", Required: true, Range: &configs.Range{Min: 0, Max: 100000}, Help: "simulations of each measure of the moves, one per entry (0: the raw policy); the value head is measured once"},
		}}
}

// Evaluate measures the moves on the first n positions of the embedded
// set (set is unused: the set carries the exact values) with each
// simulation count, then the value head of the last player.
func (oracle) Evaluate(ctx context.Context, _ string, n int, sims []int, player func(int) (*arena.Spec, error)) (map[string]any, error) {
	lines, err := cache.Get("", n, func() ([]liondata.Line, error) {
		lines, err := liondata.Open(n)
		if err != nil {
			return nil, fmt.Errorf("evaluation.lion_oracle: %w", err)
		}
		return lines, nil
	})
	if err != nil {
		return nil, err
	}
	progress.FromContext(ctx).Begin("evaluation: Lion oracle", "positions", int64(len(lines)*len(sims)))
	out, s, err := measure.EachSims(sims, player, func(k int, s *arena.Spec) (Result, error) {
		r, err := Measure(ctx, s, lines, 2)
		if err != nil {
			return Result{}, err
		}
		res := Result{Simulations: k, Positions: r.All.Positions, Optimal: r.All.Optimal, OutcomeKept: r.All.OutcomeKept,
			OptimalRate: r.All.OptimalRate(), OutcomeRate: r.All.OutcomeRate(), OptimalBy: map[string]float64{}, OutcomeBy: map[string]float64{}}
		for _, g := range []string{"class", "phase"} {
			for k, a := range r.By[g] {
				res.OptimalBy[k], res.OutcomeBy[k] = a.OptimalRate(), a.OutcomeRate()
			}
		}
		return res, nil
	})
	if err != nil {
		return nil, err
	}
	if s == nil {
		return map[string]any{}, nil
	}
	ev, err := s.Evaluator()
	if err != nil {
		return nil, err
	}
	v, err := MeasureValues(ctx, ev, lines)
	if err != nil {
		return nil, err
	}
	return map[string]any{"lion_oracle": out,
		"lion_value": Value{Positions: v.All.Positions, AgreeRate: v.All.AgreeRate(), MeanError: v.All.MeanError()}}, nil
}

func (oracle) Read(entries map[string]json.RawMessage) ([]string, map[string]float64) {
	var lines []string
	series := map[string]float64{}
	var rs []Result
	if measure.Entry(entries, "lion_oracle", &rs) && len(rs) > 0 {
		var rates []string
		for _, r := range rs {
			rates = append(rates, fmt.Sprintf("%s %.1f%% (%.1f%%)", measure.How(r.Simulations), 100*r.OptimalRate, 100*r.OutcomeRate))
			how := measure.Series(r.Simulations)
			series[how+": optimal"] = 100 * r.OptimalRate
			series[how+": outcome kept"] = 100 * r.OutcomeRate
		}
		lines = append(lines, "Lion oracle optimal (outcome kept) moves: "+strings.Join(rates, ", "))
	}
	var v *Value
	if measure.Entry(entries, "lion_value", &v) && v != nil {
		lines = append(lines, fmt.Sprintf("Lion oracle value head: outcome agreed %.1f%%, mean |error| %.3f", 100*v.AgreeRate, v.MeanError))
		series["value head: outcome agreed"] = 100 * v.AgreeRate
	}
	if len(series) == 0 {
		series = nil
	}
	return lines, series
}

// Run is Run of the package on the arena's options: "embedded" names the
// embedded set.
func (oracle) Run(ctx context.Context, w io.Writer, o measure.Options) error {
	file := o.File
	if file == "embedded" {
		file = ""
	}
	return Run(ctx, w, Options{Player: o.Player, File: file, Positions: o.Positions, Concurrency: o.Concurrency, JSON: o.JSON})
}
