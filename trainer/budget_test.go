package trainer

import (
	"bytes"
	"context"
	"fmt"
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
	var end time.Time
	for _, m := range metricsOf(t, run) {
		if m.Time.After(end) {
			end = m.Time
		}
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
	var longest time.Duration
	for _, e := range evals {
		longest = max(longest, seconds(e.EvalSeconds))
	}
	deadline := start.Time.Add(budget)
	// Beyond the budget and one evaluation, the stop's own bookkeeping
	// (the generation under way ending, a checkpoint, the charts), which
	// a loaded machine stretches.
	const bookkeeping = 2 * time.Second
	if took := end.Sub(start.Time); took > budget+longest+bookkeeping {
		var lines []string
		for _, m := range metricsOf(t, run) {
			lines = append(lines, fmt.Sprintf("%s at %s (step %d, eval %.2fs)", m.Kind, m.Time.Sub(start.Time), m.Step, m.EvalSeconds))
		}
		t.Errorf("the run took %s, over its budget %s and one evaluation (%s):\n%s\n%s", took, budget, longest, strings.Join(lines, "\n"), out.String())
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
