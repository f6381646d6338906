package trainer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/lionoracle"
	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/internal/liondata"
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
	cfg.Evaluation = configs.Evaluation{Every: time.Hour, LionOracle: &configs.EvalLionOracle{Positions: 30, Simulations: []int{0, 4}}}
	var out bytes.Buffer
	opts := Options{Run: run, Config: cfg, SelfPlay: true, MaxTime: 2 * time.Second, Out: &out, NewForwarder: newFwd}
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
		if len(m.LionOracle) != 2 || m.LionOracle[0].Simulations != 0 || m.LionOracle[1].Simulations != 4 ||
			m.LionOracle[0].Positions != 30 || m.LionValue == nil || m.LionValue.Positions != 30 || len(m.LionOracle[0].OptimalBy) != 6 {
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
	spec, err := arena.NewNetSpec("best", "lion", bc.Params, arena.NetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lines, err := liondata.Open(30)
	if err != nil {
		t.Fatal(err)
	}
	r, err := lionoracle.Measure(context.Background(), spec, lines, 1)
	if err != nil || r.All.Optimal != final.LionOracle[0].Optimal || r.All.OutcomeKept != final.LionOracle[0].OutcomeKept {
		t.Fatalf("raw policy measured apart %+v, in the evaluation %+v (%v)", r.All, final.LionOracle[0], err)
	}
	if _, err := os.Stat(filepath.Join(run, "plots", "lion-oracle.png")); err != nil {
		t.Error(err)
	}
}
