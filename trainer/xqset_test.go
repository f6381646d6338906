package trainer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/arena/xqset"
	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/rundir"
)

// TestXiangqiSetEvaluation: a Xiangqi run with evaluation.xiangqi_set
// measures its best network on the positions Fairy-Stockfish judged (the
// engine itself is not needed), records, prints and plots raw and
// searched figures and the value head, and the raw figure is the best
// network's measured apart.
func TestXiangqiSetEvaluation(t *testing.T) {
	run := t.TempDir()
	cfg, err := configs.Preset("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Network.Blocks, cfg.Network.Filters, cfg.Network.ValueHidden = 1, 8, 8
	cfg.Search.Simulations, cfg.Search.GumbelM = 8, 4
	cfg.SelfPlay.ParallelGames, cfg.SelfPlay.BatchSize, cfg.SelfPlay.ShardSamples = 8, 8, 100
	cfg.Replay.Window, cfg.Replay.MinSamples = 2000, 200
	cfg.Training.BatchSize, cfg.Training.StepsPerGeneration, cfg.Training.SampleRatio = 16, 10, 1
	cfg.Gating.Matches = nil
	cfg.Evaluation = configs.Evaluation{Every: time.Hour, AtStart: true, Sets: map[string]*configs.EvalSet{"xiangqi_set": {Positions: 12, Simulations: []int{0, 4}}}}
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
		set, value := entry[[]xqset.Result](t, m, "xiangqi_set"), entry[*xqset.Value](t, m, "xiangqi_value")
		if len(set) != 2 || set[0].Simulations != 0 || set[1].Simulations != 4 ||
			set[0].Positions != 12 || value == nil || value.Decided == 0 {
			t.Fatalf("evaluation: %+v", m)
		}
	}
	if len(ev) < 2 || !strings.Contains(out.String(), "Xiangqi set best (good, blunder) moves: raw ") ||
		!strings.Contains(out.String(), "Xiangqi set value head: the engine's side on ") {
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
	spec, err := bestSpec("xiangqi", bc.Params)
	if err != nil {
		t.Fatal(err)
	}
	lines, _, err := xqset.Lines("", 12)
	if err != nil {
		t.Fatal(err)
	}
	r, err := xqset.Measure(context.Background(), spec, lines, 1)
	got := entry[[]xqset.Result](t, final, "xiangqi_set")[0]
	if err != nil || r.All.Best != got.Best || r.All.Good != got.Good || r.All.Blunders != got.Blunders {
		t.Fatalf("raw policy measured apart %+v, in the evaluation %+v (%v)", r.All, got, err)
	}
	if _, err := os.Stat(filepath.Join(run, "plots", "xiangqi-set.png")); err != nil {
		t.Fatal(err)
	}
}
