package trainer

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/arena/lionoracle"
	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/internal/liondata"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/rundir"
)

// TestLionOracleEvaluation: a Lion run with evaluation.lion_oracle
// measures its best network on the oracle's positions (no tablebase file
// needed), records raw and searched figures and the value head, prints
// them, plots them, and the raw figure is the best network's measured
// apart.
func TestLionOracleEvaluation(t *testing.T) {
	run := t.TempDir()
	cfg, err := configs.Preset("lion")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Network.Blocks, cfg.Network.Filters, cfg.Network.ValueHidden = 1, 8, 8
	cfg.Search.Simulations = 8
	cfg.SelfPlay.ParallelGames, cfg.SelfPlay.BatchSize, cfg.SelfPlay.ShardSamples = 8, 8, 100
	cfg.Replay.Window, cfg.Replay.MinSamples = 2000, 200
	cfg.Training.BatchSize, cfg.Training.StepsPerGeneration, cfg.Training.SampleRatio = 16, 10, 1
	cfg.Gating.Matches = nil
	cfg.Evaluation = configs.Evaluation{Every: time.Hour, AtStart: true, Sets: map[string]*configs.EvalSet{"lion_oracle": {Positions: 30, Simulations: []int{0, 4}}}}
	var out bytes.Buffer
	opts := Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: 1, Out: &out, NewForwarder: newFwd}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var ev []int
	ms := metricsOf(t, run)
	for i, m := range ms {
		if m.Kind != "evaluation" {
			continue
		}
		ev = append(ev, i)
		oracle, value := entry[[]lionoracle.Result](t, m, "lion_oracle"), entry[*lionoracle.Value](t, m, "lion_value")
		if len(oracle) != 2 || oracle[0].Simulations != 0 || oracle[1].Simulations != 4 ||
			oracle[0].Positions != 30 || value == nil || value.Positions != 30 || len(oracle[0].OptimalBy) != 6 {
			t.Fatalf("evaluation: %+v", m)
		}
	}
	if len(ev) < 2 || !strings.Contains(out.String(), "Lion oracle optimal (outcome kept) moves: raw ") ||
		!strings.Contains(out.String(), "Lion oracle value head: outcome agreed ") {
		t.Fatalf("%d evaluations:\n%s", len(ev), out.String())
	}
	final := ms[ev[len(ev)-1]]
	bestPath, err := rundir.Dir(run).Pointer(rundir.Best)
	if err != nil {
		t.Fatal(err)
	}
	bc, err := checkpoints.Load(bestPath)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := bestSpec("lion", bc.Params)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := liondata.Open(30)
	if err != nil {
		t.Fatal(err)
	}
	r, err := lionoracle.Measure(context.Background(), spec, lines, 1)
	got := entry[[]lionoracle.Result](t, final, "lion_oracle")[0]
	if err != nil || r.All.Optimal != got.Optimal || r.All.OutcomeKept != got.OutcomeKept {
		t.Fatalf("raw policy measured apart %+v, in the evaluation %+v (%v)", r.All, got, err)
	}
	if _, err := os.Stat(filepath.Join(run, "plots", "lion-oracle.png")); err != nil {
		t.Error(err)
	}
}

// entry decodes the entry key of an evaluation line's measures.
func entry[T any](t *testing.T, m metrics.Metric, key string) T {
	t.Helper()
	var v T
	if raw, ok := m.Measures[key]; ok {
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
	}
	return v
}
