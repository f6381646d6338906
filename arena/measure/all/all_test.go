package all

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/lionoracle"
	"github.com/tabula-zero/tabula/arena/measure"
	"github.com/tabula-zero/tabula/arena/pons"
	"github.com/tabula-zero/tabula/arena/xqset"
	"github.com/tabula-zero/tabula/internal/liondata"
	"github.com/tabula-zero/tabula/internal/ponsdata"
	"github.com/tabula-zero/tabula/internal/testnet"
)

// Each registered measure, run through the interface on a few positions,
// gives what its package's own calls give, and reads back what it wrote.
func TestMeasuresThroughTheRegistry(t *testing.T) {
	const n = 6
	sims := []int{0, 2}
	names := map[string]bool{}
	for _, m := range measure.All() {
		in := m.Info()
		names[in.Name] = true
		t.Run(in.Name, func(t *testing.T) {
			ctx := context.Background()
			ckpt := testnet.Checkpoint(t, t.TempDir(), in.Game, 1)
			player := func(k int) (*arena.Spec, error) {
				return arena.ParsePlayer(fmt.Sprintf("net:%s,sims=%d", ckpt, k), in.Game)
			}
			set := ""
			if in.Name == "pons" {
				set = "Test_L2_R1"
			}
			got, err := m.Evaluate(ctx, set, n, sims, player)
			if err != nil {
				t.Fatal(err)
			}
			want := direct(t, in.Name, set, n, sims, player)
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			if string(gb) != string(wb) {
				t.Fatalf("through the interface %s\ncalled directly     %s", gb, wb)
			}
			entries := map[string]json.RawMessage{}
			for k, v := range got {
				entries[k], _ = json.Marshal(v)
			}
			summary, series := m.Read(entries)
			if len(summary) == 0 || len(series) == 0 {
				t.Fatalf("read back: %q, %v", summary, series)
			}
			if s, _ := m.Read(nil); s != nil {
				t.Errorf("an evaluation without the measure reads as %q", s)
			}
		})
	}
	for _, name := range []string{"pons", "lion-oracle", "xiangqi-set"} {
		if !names[name] {
			t.Errorf("%s is not registered", name)
		}
	}
}

// direct is what the measure's package gives called directly, in the
// entries of an evaluation line.
func direct(t *testing.T, name, set string, n int, sims []int, player func(int) (*arena.Spec, error)) map[string]any {
	t.Helper()
	ctx := context.Background()
	spec := func(k int) *arena.Spec {
		s, err := player(k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	last := spec(sims[len(sims)-1])
	switch name {
	case "pons":
		f, err := ponsdata.Open(set)
		must(err)
		defer f.Close()
		lines, err := pons.Read(f, n)
		must(err)
		var out []pons.Result
		for _, k := range sims {
			a, err := pons.Measure(ctx, spec(k), lines, 1)
			must(err)
			out = append(out, pons.Result{Set: set, Simulations: k, Positions: a.Positions, Optimal: a.Optimal, OptimalRate: a.OptimalRate(), OutcomeRate: a.OutcomeRate()})
		}
		return map[string]any{"pons": out}
	case "lion-oracle":
		lines, err := liondata.Open(n)
		must(err)
		var out []lionoracle.Result
		for _, k := range sims {
			r, err := lionoracle.Measure(ctx, spec(k), lines, 1)
			must(err)
			res := lionoracle.Result{Simulations: k, Positions: r.All.Positions, Optimal: r.All.Optimal, OutcomeKept: r.All.OutcomeKept,
				OptimalRate: r.All.OptimalRate(), OutcomeRate: r.All.OutcomeRate(), OptimalBy: map[string]float64{}, OutcomeBy: map[string]float64{}}
			for _, g := range []string{"class", "phase"} {
				for b, a := range r.By[g] {
					res.OptimalBy[b], res.OutcomeBy[b] = a.OptimalRate(), a.OutcomeRate()
				}
			}
			out = append(out, res)
		}
		ev, err := last.Evaluator()
		must(err)
		v, err := lionoracle.MeasureValues(ctx, ev, lines)
		must(err)
		return map[string]any{"lion_oracle": out, "lion_value": lionoracle.Value{Positions: v.All.Positions, AgreeRate: v.All.AgreeRate(), MeanError: v.All.MeanError()}}
	case "xiangqi-set":
		lines, _, err := xqset.Lines("", n)
		must(err)
		var out []xqset.Result
		for _, k := range sims {
			r, err := xqset.Measure(ctx, spec(k), lines, 1)
			must(err)
			out = append(out, xqset.Result{Simulations: k, Positions: r.All.Positions, Best: r.All.Best, Good: r.All.Good, Blunders: r.All.Blunders,
				BestRate: r.All.BestRate(), GoodRate: r.All.GoodRate(), BlunderRate: r.All.BlunderRate()})
		}
		ev, err := last.Evaluator()
		must(err)
		v, err := xqset.MeasureValues(ctx, ev, lines)
		must(err)
		return map[string]any{"xiangqi_set": out, "xiangqi_value": xqset.Value{Decided: v.Decided, AgreeRate: v.AgreeRate()}}
	}
	t.Fatalf("no direct call for measure %s: add one", name)
	return nil
}
