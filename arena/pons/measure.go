package pons

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/measure"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/internal/ponsdata"
	"github.com/tabula-zero/tabula/internal/progress"
)

func init() { measure.Register(set{}) }

// Result is one Pons measure of a training run's evaluation (its metrics
// line's "pons" entry): the best network's optimal-move rate on the first
// Positions of Set with Simulations (0: the raw policy).
type Result struct {
	Set         string  `json:"set"`
	Simulations int     `json:"simulations"`
	Positions   int     `json:"positions"`
	Optimal     int     `json:"optimal"`
	OptimalRate float64 `json:"optimal_rate"`
	OutcomeRate float64 `json:"outcome_rate"`
}

// set is the measure as the registry holds it.
type set struct{}

var cache measure.Cache[[]Line]

func (set) Info() measure.Info {
	return measure.Info{Name: "pons", Game: "connect4", Section: "pons",
		Flag:    "connect4: measure player A's optimal-move rate on Pons' set of this name (embedded: " + Embedded + "; " + strings.Join(ponsdata.Names, ", ") + ") or on this file of Pons positions",
		Example: Embedded,
		Chart:   "Connect Four: optimal moves on Pons' positions", YLabel: "optimal moves (%)",
		Config: []configs.Option{
			{Path: "set", Required: true, Values: ponsdata.Names, Help: "Pons' Connect Four test set (without the pons section, no Pons measure)"},
			{Path: "positions", Required: true, Range: &configs.Range{Min: 1, Max: 1000}, Help: "the first positions of the set measured"},
			{Path: "simulations", Required: true, Range: &configs.Range{Min: 0, Max: 100000}, Help: "simulations of each measure, one per entry (0: the raw policy)"},
		}}
}

// Evaluate reads the first n positions of Pons' set (ponsdata) once per
// process and measures each player on them; Pons has no value measure in
// an evaluation.
func (set) Evaluate(ctx context.Context, name string, n int, sims []int, player func(int) (*arena.Spec, error)) (map[string]any, error) {
	lines, err := cache.Get(name, n, func() ([]Line, error) {
		f, err := ponsdata.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		lines, err := Read(f, n)
		if err != nil {
			return nil, fmt.Errorf("evaluation.pons: %w", err)
		}
		return lines, nil
	})
	if err != nil {
		return nil, err
	}
	progress.FromContext(ctx).Begin("evaluation: Pons "+name, "positions", int64(len(lines)*len(sims)))
	out, _, err := measure.EachSims(sims, player, func(k int, s *arena.Spec) (Result, error) {
		acc, err := Measure(ctx, s, lines, 2)
		return Result{Set: name, Simulations: k, Positions: acc.Positions, Optimal: acc.Optimal,
			OptimalRate: acc.OptimalRate(), OutcomeRate: acc.OutcomeRate()}, err
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"pons": out}, nil
}

func (set) Read(entries map[string]json.RawMessage) ([]string, map[string]float64) {
	var rs []Result
	if !measure.Entry(entries, "pons", &rs) || len(rs) == 0 {
		return nil, nil
	}
	series := map[string]float64{}
	var rates []string
	for _, r := range rs {
		rates = append(rates, fmt.Sprintf("%s %.1f%%", measure.How(r.Simulations), 100*r.OptimalRate))
		series[measure.Series(r.Simulations)] = 100 * r.OptimalRate
	}
	return []string{fmt.Sprintf("Pons %s optimal moves: %s", rs[0].Set, strings.Join(rates, ", "))}, series
}

// Embedded is the set "embedded" names: the one the Connect Four preset's
// evaluation measures.
const Embedded = "Test_L2_R1"

// OpenSet opens the positions a -pons flag names: one of Pons' sets by its
// name (ponsdata.Names; "embedded" is Embedded), read from the binary
// whatever the working directory, else a file of Pons' format. A file
// named like a set is read as a file when written as a path
// (./Test_L2_R1).
func OpenSet(name string) (io.ReadCloser, error) {
	if name == "embedded" {
		name = Embedded
	}
	if slices.Contains(ponsdata.Names, name) {
		f, err := ponsdata.Open(name)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	f, _, err := inputfile.Open(name, "Pons set", 256<<20)
	if err != nil {
		return nil, fmt.Errorf("%w (Pons' sets by name: embedded, %s)", err, strings.Join(ponsdata.Names, ", "))
	}
	return f, nil
}

// Run measures player A on the Pons positions of the file or set
// (OpenSet), and with Values its value head.
func (set) Run(ctx context.Context, w io.Writer, o measure.Options) error {
	p := o.Player
	if o.Positions < 0 {
		return fmt.Errorf("-positions %d", o.Positions)
	}
	if o.Values && p.Kind != arena.KindNet && p.Kind != arena.KindABZero {
		return fmt.Errorf("-pons-values needs a network player as -a, not %q", p.Text)
	}
	if o.File == "" {
		return errors.New("-pons needs a file of Pons positions or a set's name (" + strings.Join(ponsdata.Names, ", ") + ")")
	}
	f, err := OpenSet(o.File)
	if err != nil {
		return err
	}
	defer f.Close()
	lines, err := Read(f, o.Positions)
	if err != nil {
		return err
	}
	acc, err := Measure(ctx, p, lines, o.Concurrency)
	if err != nil {
		return err
	}
	var vo *ValueOrder
	if o.Values {
		ev, err := p.Evaluator()
		if err != nil {
			return err
		}
		v, err := MeasureValues(ctx, ev, lines)
		if err != nil {
			return err
		}
		vo = &v
	}
	if o.JSON {
		out := map[string]any{"player": p.Name(), "file": o.File, "positions": acc.Positions,
			"optimal": acc.Optimal, "outcome_kept": acc.OutcomeKept, "optimal_rate": acc.OptimalRate(), "outcome_rate": acc.OutcomeRate()}
		if vo != nil {
			out["value_greedy_optimal"], out["value_greedy_kept"] = vo.GreedyOptimal, vo.GreedyKept
			out["value_pairs"], out["value_ordered"], out["value_ordered_rate"] = vo.Pairs, vo.Ordered, vo.OrderedRate()
		}
		j, err := json.Marshal(out)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", j)
		return err
	}
	fmt.Fprintf(w, "%s on %s: %d positions\n", p.Name(), o.File, acc.Positions)
	fmt.Fprintf(w, "outcome kept: %d/%d (%.1f%%)\n", acc.OutcomeKept, acc.Positions, 100*acc.OutcomeRate())
	fmt.Fprintf(w, "optimal: %d/%d\n", acc.Optimal, acc.Positions)
	if vo != nil {
		fmt.Fprintf(w, "value head, the move to its best child: optimal %d/%d, outcome kept %d/%d\n", vo.GreedyOptimal, vo.Positions, vo.GreedyKept, vo.Positions)
		fmt.Fprintf(w, "value head, outcome-keeping moves of different exact scores ordered right: %d/%d (%.1f%%; 50%%: no sense of how soon)\n", vo.Ordered, vo.Pairs, 100*vo.OrderedRate())
	}
	return nil
}
