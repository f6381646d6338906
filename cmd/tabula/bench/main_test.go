package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/tabula-zero/tabula/net/gemm"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/bench"
	"github.com/tabula-zero/tabula/configs"
)

// tabula bench measures every figure it names, writes them as JSON and
// prints them with their share of the peak; the simulations a sample
// costs follow the preset's playout cap.
func TestBench(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bench.json")
	var b bytes.Buffer
	if err := run(context.Background(), []string{"-each", "150ms", "-presets", "connect4,xiangqi", "-o", out}, &b); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r bench.Result
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.PeakGFLOPs <= 0 || r.Cores <= 0 || r.Kernel == "" || len(r.Presets) != 2 {
		t.Fatalf("result %+v", r)
	}
	for _, p := range r.Presets {
		cfg, _ := configs.Preset(p.Name)
		for name, v := range map[string]float64{"inference": p.InferencePosPerS, "int8 inference": p.Int8PosPerS, "training": p.TrainSamplesPerS,
			"self-play": p.SelfPlaySimsPerS, "int8 self-play": p.Int8SelfPlaySimsPerS, "alpha-beta": p.AlphaBetaNodesPerS, "perft": p.PerftLeavesPerS} {
			if v <= 0 {
				t.Errorf("%s: %s measured %v", p.Name, name, v)
			}
		}
		if (p.BF16TrainSamplesPerS > 0) != gemm.HasBF16() {
			t.Errorf("%s: bf16 training measured %v, bf16 hardware here %t", p.Name, p.BF16TrainSamplesPerS, gemm.HasBF16())
		}
		if p.TrainBatch != cfg.Training.BatchSize || p.InferenceBatch != cfg.SelfPlay.BatchSize || p.PerftDepth < 1 {
			t.Errorf("%s: %+v", p.Name, p)
		}
		s := cfg.Search
		want := float64(s.Simulations)
		if s.FullSearchShare > 0 && s.FullSearchShare < 1 {
			want = float64(s.Simulations) + (1-s.FullSearchShare)/s.FullSearchShare*float64(s.FastSimulations)
		}
		if d := p.SimsPerSample - want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: %v simulations a sample, the preset's cap gives %v", p.Name, p.SimsPerSample, want)
		}
		if !strings.Contains(b.String(), p.Name+" (network ") {
			t.Errorf("no %s section in:\n%s", p.Name, b.String())
		}
	}
	if r.Presets[1].SimsPerSample != 112 {
		t.Errorf("Xiangqi's playout cap (a quarter at 64, the rest at 16) costs 112 simulations a sample, bench says %v", r.Presets[1].SimsPerSample)
	}
	if !strings.Contains(b.String(), "% of peak") {
		t.Errorf("no share of the peak in:\n%s", b.String())
	}
}

// -train-batch sets the training step's batch, and only that.
func TestBenchTrainBatch(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bench.json")
	var b bytes.Buffer
	if err := run(context.Background(), []string{"-each", "100ms", "-presets", "lion", "-train-batch", "16", "-o", out}, &b); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r bench.Result
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	cfg, _ := configs.Preset("lion")
	if p := r.Presets[0]; p.TrainBatch != 16 || p.InferenceBatch != cfg.SelfPlay.BatchSize || p.TrainSamplesPerS <= 0 {
		t.Errorf("-train-batch 16: %+v", p)
	}
}

// Bad input is a clear error.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-presets", "chess"}, `"chess"`},
		{[]string{"-presets", ","}, "names no preset"},
		{[]string{"-each", "0s"}, "-each"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-train-batch", "-1"}, "-train-batch"},
	} {
		var b bytes.Buffer
		if err := run(context.Background(), c.args, &b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.args, err, c.want)
		}
	}
}
