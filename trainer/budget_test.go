package trainer

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/metrics"
)

// -max-time is the invocation's wall time with its evaluations: by the
// run's own records (its start line, the times its lines were written and
// what each evaluation took) the run ends within the budget plus one
// evaluation (and the stop's bookkeeping), every evaluation but the
// closing one began within the budget, and the training lines count the
// time left down.
func TestMaxTimeCountsEvaluations(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t)
	cfg.Evaluation = configs.Evaluation{Every: time.Second, Matches: []configs.GateMatch{{Opponent: "random", Games: 4}},
		Sets: map[string]*configs.EvalSet{"pons": {Set: "Test_L2_R1", Positions: 40, Simulations: []int{0, 8}}}}
	budget := 5 * time.Second
	var out bytes.Buffer
	opts := Options{Run: run, Config: cfg, SelfPlay: true, MaxTime: budget, Out: &out, NewForwarder: newFwd}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var start, stop *metrics.Metric
	var evals []metrics.Metric
	for _, m := range metricsOf(t, run) {
		switch m.Kind {
		case "start":
			start = &m
		case "stop":
			stop = &m
		case "evaluation":
			evals = append(evals, m)
		}
	}
	if start == nil || stop == nil || len(evals) == 0 {
		t.Fatalf("start %v, stop %v, %d evaluations\n%s", start, stop, len(evals), out.String())
	}
	deadline := start.Time.Add(budget)
	// No new generation starts once the budget has passed: a generation
	// line after one written past the deadline would be one. (What the
	// run's stop then costs in wall time depends on the machine's load,
	// so it is not asserted.)
	var gens []metrics.Metric
	for _, m := range metricsOf(t, run) {
		if m.Kind == "generation" {
			gens = append(gens, m)
		}
	}
	for i := 1; i < len(gens); i++ {
		if gens[i-1].Time.After(deadline) {
			t.Errorf("generation line %d at %s follows one already past the budget (%s)", i, gens[i].Time.Sub(start.Time), budget)
		}
	}
	for i, e := range evals[:len(evals)-1] {
		if began := e.Time.Add(-seconds(e.EvalSeconds)); began.After(deadline) {
			t.Errorf("evaluation %d began %s past the budget", i, began.Sub(deadline))
		}
	}
	// The training lines count down the wall time, to the run's end.
	if !strings.Contains(out.String(), "s left") {
		t.Errorf("no time left shown:\n%s", out.String())
	}
}
