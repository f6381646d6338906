package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/bench"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/net/gemm"
	"github.com/tabula-zero/tabula/net/infer"
)

// has8Bit is whether this CPU and build run an 8-bit kernel other than
// the pure-Go twin, told by net/gemm's lists of assembly kernels.
func has8Bit() bool { return gemm.HasAMX() || len(gemm.Kernels8()) > 0 }

// tabula bench measures every figure it names, writes them as JSON only
// where asked and prints them with their share of the peak; the
// simulations a sample costs follow the preset's playout cap; an 8-bit
// line appears exactly where an 8-bit kernel runs (never the twin), and
// auto is what net/infer resolves it to.
func TestBench(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bench.json")
	var b bytes.Buffer
	if err := run(context.Background(), []string{"-each", "150ms", "-presets", "connect4,xiangqi", "-json", out}, &b); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	text := b.String()
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
		for name, v := range map[string]float64{"inference": p.InferencePosPerS, "training": p.TrainSamplesPerS,
			"self-play": p.SelfPlaySimsPerS, "a run's self-play": p.RunSelfPlaySamplesPerS, "alpha-beta": p.AlphaBetaNodesPerS, "perft": p.PerftLeavesPerS} {
			if v <= 0 {
				t.Errorf("%s: %s measured %v", p.Name, name, v)
			}
		}
		if has8Bit() {
			if p.Int8PosPerS <= 0 || p.Int8SelfPlaySimsPerS <= 0 || !strings.HasPrefix(p.Int8Kernel, "int8 (") || strings.Contains(p.Int8Kernel, "go8") {
				t.Errorf("%s: an 8-bit kernel runs here, the bench measured %v positions/s, %v simulations/s on %q", p.Name, p.Int8PosPerS, p.Int8SelfPlaySimsPerS, p.Int8Kernel)
			}
		} else if p.Int8PosPerS != 0 || p.Int8SelfPlaySimsPerS != 0 || p.Int8Kernel != "" {
			t.Errorf("%s: no 8-bit kernel here, yet the bench measured %v positions/s on %q", p.Name, p.Int8PosPerS, p.Int8Kernel)
		}
		if want := infer.Resolve(cfg.SelfPlay.Precision); p.AutoPrecision != want {
			t.Errorf("%s: auto is %q here, the bench says %q", p.Name, want, p.AutoPrecision)
		}
		if (p.BF16TrainSamplesPerS > 0) != gemm.HasBF16() {
			t.Errorf("%s: bf16 training measured %v, bf16 hardware here %t", p.Name, p.BF16TrainSamplesPerS, gemm.HasBF16())
		}
		if p.TrainBatch != cfg.Training.BatchSize || p.InferenceBatch != cfg.SelfPlay.BatchSize || p.PerftDepth < 1 {
			t.Errorf("%s: %+v", p.Name, p)
		}
		if g, bt := bench.SelfPlayFor(cfg.SelfPlay, runtime.GOMAXPROCS(0)); p.RunParallelGames != g || p.RunBatch != bt {
			t.Errorf("%s: a run's self-play measured with %d games, batch %d; this machine's are %d, %d", p.Name, p.RunParallelGames, p.RunBatch, g, bt)
		}
		s := cfg.Search
		want := float64(s.Simulations)
		if s.FullSearchShare > 0 && s.FullSearchShare < 1 {
			want = float64(s.Simulations) + (1-s.FullSearchShare)/s.FullSearchShare*float64(s.FastSimulations)
		}
		if d := p.SimsPerSample - want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: %v simulations a sample, the preset's cap gives %v", p.Name, p.SimsPerSample, want)
		}
		if !strings.Contains(text, p.Name+" (network ") {
			t.Errorf("no %s section in:\n%s", p.Name, text)
		}
	}
	c4, xq := r.Presets[0], r.Presets[1]
	if xq.SimsPerSample != 112 {
		t.Errorf("Xiangqi's playout cap (a quarter at 64, the rest at 16) costs 112 simulations a sample, bench says %v", xq.SimsPerSample)
	}
	// Connect Four's run plays the network's search in auto's
	// precision: the figure measured for that precision.
	if netRate := map[string]float64{"fp32": c4.SelfPlaySamplesPerS, "int8": c4.Int8SelfPlaySamplesPerS}[c4.AutoPrecision]; c4.RunSelfPlaySamplesPerS != netRate {
		t.Errorf("connect4: a run's self-play %v samples/s, its network search in %s %v", c4.RunSelfPlaySamplesPerS, c4.AutoPrecision, netRate)
	}
	if !strings.Contains(xq.RunSelfPlay, "teacher") {
		t.Errorf("Xiangqi's run starts with its alpha-beta teacher, the bench says %q", xq.RunSelfPlay)
	}
	if got := strings.Count(text, "8 bits: no kernel for this CPU; fp32 is used"); has8Bit() == (got > 0) || !has8Bit() && got != 2 {
		t.Errorf("8-bit kernel here: %t; %d lines say there is none:\n%s", has8Bit(), got, text)
	}
	for _, s := range []string{"% of peak", "selfplay.precision auto:  " + xq.AutoPrecision, "a training run's self-play:"} {
		if !strings.Contains(text, s) {
			t.Errorf("no %q in:\n%s", s, text)
		}
	}
}

// Without -json the bench writes no file: outputs go where the user
// asks, not into the current directory.
func TestBenchWritesNothingUnasked(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var b bytes.Buffer
	if err := run(context.Background(), []string{"-each", "100ms", "-game", "lion"}, &b); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Errorf("the working directory holds %v (%v) after a bench", ents, err)
	}
	if !strings.Contains(b.String(), "lion (network ") || strings.Contains(b.String(), "xiangqi") {
		t.Errorf("-game lion measures lion only:\n%s", b.String())
	}
}

// -budget measures briefly, writes the preset sized for this machine
// where -out says, a config tabula train loads, and says what the run
// will do; the file is what bench.Size makes of the measured rates.
func TestBudget(t *testing.T) {
	for _, name := range []string{"connect4", "xiangqi"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cfgPath, jsonPath := filepath.Join(dir, name+".yaml"), filepath.Join(dir, "plan.json")
			var b bytes.Buffer
			if err := run(context.Background(), []string{"-each", "100ms", "-budget", "2h", "-game", name, "-out", cfgPath, "-json", jsonPath}, &b); err != nil {
				t.Fatalf("%v\n%s", err, b.String())
			}
			text := b.String()
			cfg, err := configs.Load(cfgPath)
			if err != nil {
				t.Fatalf("the sized config does not load: %v", err)
			}
			raw, err := os.ReadFile(jsonPath)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Measured bench.Result `json:"measured"`
				Plan     bench.Plan   `json:"plan"`
			}
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			p := got.Measured.Presets[0]
			if got.Measured.PeakGFLOPs != 0 || p.AlphaBetaNodesPerS != 0 || p.PerftDepth != 0 || p.SelfPlaySimsPerS != 0 {
				t.Errorf("a brief measurement measured more than sizing needs: %+v", p)
			}
			if p.TrainStepsPerS <= 0 || p.RunSelfPlaySamplesPerS <= 0 || p.InferencePosPerS <= 0 || (p.Int8PosPerS > 0) != has8Bit() {
				t.Errorf("measured %+v", p)
			}
			preset, _ := configs.PresetBytes(name)
			want, err := bench.Size(name, preset, got.Plan.Machine, got.Plan.Rates, 2*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			file, _ := os.ReadFile(cfgPath)
			if !bytes.Equal(file, want.Text) {
				t.Errorf("the file is not Size's config of the measured rates:\n%s\nwant\n%s", file, want.Text)
			}
			if got.Plan.Rates.TrainStepsPerS != p.TrainStepsPerS || got.Plan.Rates.SelfPlaySamplesPerS != p.RunSelfPlaySamplesPerS ||
				got.Plan.Machine.Precision != infer.Resolve("auto") || cfg.SelfPlay.Precision != infer.Resolve("auto") {
				t.Errorf("plan %+v from %+v; config precision %q", got.Plan, p, cfg.SelfPlay.Precision)
			}
			if cfg.Training.Schedule == "cosine" && (cfg.Training.TotalSteps != got.Plan.TotalSteps || got.Plan.TotalSteps > got.Plan.Steps) {
				t.Errorf("total_steps %d for a plan of %d steps (%d)", cfg.Training.TotalSteps, got.Plan.Steps, got.Plan.TotalSteps)
			}
			for _, s := range []string{count(got.Plan.Steps) + " training steps", "evaluations", "tabula train -config " + cfgPath + " -max-time 2h",
				bench.References[name].Source} {
				if !strings.Contains(text, s) {
					t.Errorf("no %q in:\n%s", s, text)
				}
			}
		})
	}
}

// count writes n as the plan's words do, with thousands separators.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// -train-batch sets the training step's batch, and only that.
func TestBenchTrainBatch(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bench.json")
	var b bytes.Buffer
	if err := run(context.Background(), []string{"-each", "100ms", "-presets", "lion", "-train-batch", "16", "-json", out}, &b); err != nil {
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

// Bad input is a clear error, before any measuring.
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
		{[]string{"-budget", "2h"}, "needs -game"},
		{[]string{"-budget", "10s", "-game", "lion"}, "-budget"},
		{[]string{"-budget", "-1h", "-game", "lion"}, "-budget"},
		{[]string{"-budget", "2h", "-game", "chess"}, `"chess"`},
		{[]string{"-budget", "2h", "-game", "lion", "-presets", "lion"}, "-presets"},
		{[]string{"-budget", "2h", "-game", "lion", "-train-batch", "16"}, "-train-batch"},
		{[]string{"-out", "x.yaml"}, "-budget"},
		{[]string{"-game", "lion", "-presets", "connect4"}, "not both"},
	} {
		var b bytes.Buffer
		if err := run(context.Background(), c.args, &b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.args, err, c.want)
		}
	}
}
