package xqset

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/measure"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/internal/progress"
)

func init() { measure.Register(xiangqiSet{}) }

// Result is one measure of the set in a training run's evaluation (its
// metrics line's "xiangqi_set" entries): the best network's moves on the
// first Positions with Simulations (0: the raw policy), judged by
// Fairy-Stockfish's lines.
type Result struct {
	Simulations int     `json:"simulations"`
	Positions   int     `json:"positions"`
	Best        int     `json:"best"`
	Good        int     `json:"good"`
	Blunders    int     `json:"blunders"`
	BestRate    float64 `json:"best_rate"`
	GoodRate    float64 `json:"good_rate"`
	BlunderRate float64 `json:"blunder_rate"`
}

// Value is the best network's value head on the same positions (the
// line's "xiangqi_value" entry): the share of those the engine calls
// decided where its sign is the engine's.
type Value struct {
	Decided   int     `json:"decided"`
	AgreeRate float64 `json:"agree_rate"`
}

// xiangqiSet is the measure as the registry holds it.
type xiangqiSet struct{}

var cache measure.Cache[[]Line]

func (xiangqiSet) Info() measure.Info {
	return measure.Info{Name: "xiangqi-set", Game: "xiangqi", Section: "xiangqi_set",
		Flag:    "xiangqi: measure player A on this set of positions judged by Fairy-Stockfish (embedded: arena/xqset's)",
		Example: "embedded",
		Chart:   "Xiangqi: moves judged by Fairy-Stockfish (the Xiangqi set's positions)", YLabel: "% of positions",
		// Xiangqi's runs are long and shared: by CPU-hours.
		ByCPU: true,
		Config: []configs.Option{
			{Path: "set", Default: "", Values: []string{""}, Help: "unused: the embedded set is the one measured"},
			{Path: "positions", Default: 0, Range: &configs.Range{Min: 0, Max: 100000}, Help: "the first positions of the Xiangqi set measured (arena/xqset: positions judged by Fairy-Stockfish, 2,000; 0: all; without the xiangqi_set section, no such measure)"},
			{Path: "simulations", Required: true, Range: &configs.Range{Min: 0, Max: 100000}, Help: "simulations of each measure of the moves, one per entry (0: the raw policy); the value head is measured once"},
		}}
}

// Evaluate measures the moves on the first n positions of the embedded
// set with each simulation count, then the value head of the last player.
func (xiangqiSet) Evaluate(ctx context.Context, _ string, n int, sims []int, player func(int) (*arena.Spec, error)) (map[string]any, error) {
	lines, err := cache.Get("", n, func() ([]Line, error) {
		lines, _, err := Lines("", n)
		if err != nil {
			return nil, fmt.Errorf("evaluation.xiangqi_set: %w", err)
		}
		return lines, nil
	})
	if err != nil {
		return nil, err
	}
	progress.FromContext(ctx).Begin("evaluation: Xiangqi set", "positions", int64(len(lines)*len(sims)))
	out, s, err := measure.EachSims(sims, player, func(k int, s *arena.Spec) (Result, error) {
		r, err := Measure(ctx, s, lines, 2)
		return Result{Simulations: k, Positions: r.All.Positions, Best: r.All.Best, Good: r.All.Good,
			Blunders: r.All.Blunders, BestRate: r.All.BestRate(), GoodRate: r.All.GoodRate(), BlunderRate: r.All.BlunderRate()}, err
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
	return map[string]any{"xiangqi_set": out, "xiangqi_value": Value{Decided: v.Decided, AgreeRate: v.AgreeRate()}}, nil
}

func (xiangqiSet) Read(entries map[string]json.RawMessage) ([]string, map[string]float64) {
	var rs []Result
	if !measure.Entry(entries, "xiangqi_set", &rs) || len(rs) == 0 {
		return nil, nil
	}
	var lines, rates []string
	series := map[string]float64{}
	for _, r := range rs {
		rates = append(rates, fmt.Sprintf("%s %.1f%% (%.1f%%, %.1f%%)", measure.How(r.Simulations), 100*r.BestRate, 100*r.GoodRate, 100*r.BlunderRate))
		how := measure.Series(r.Simulations)
		series[how+": best"] = 100 * r.BestRate
		series[how+": good"] = 100 * r.GoodRate
		series[how+": blunders"] = 100 * r.BlunderRate
	}
	lines = append(lines, "Xiangqi set best (good, blunder) moves: "+strings.Join(rates, ", "))
	var v *Value
	if measure.Entry(entries, "xiangqi_value", &v) && v != nil {
		lines = append(lines, fmt.Sprintf("Xiangqi set value head: the engine's side on %.1f%% of %d decided", 100*v.AgreeRate, v.Decided))
		series["value head: the engine's side"] = 100 * v.AgreeRate
	}
	return lines, series
}

// Run is Run of the package on the arena's options: "embedded" names the
// embedded set.
func (xiangqiSet) Run(ctx context.Context, w io.Writer, o measure.Options) error {
	file := o.File
	if file == "embedded" {
		file = ""
	}
	return Run(ctx, w, Options{Player: o.Player, File: file, Positions: o.Positions, Concurrency: o.Concurrency, JSON: o.JSON})
}
