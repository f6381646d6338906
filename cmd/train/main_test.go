package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/configs"
)

func TestTrainOneGeneration(t *testing.T) {
	cfg, _ := configs.Preset("connect4")
	cfg.Network.Blocks, cfg.Network.Filters, cfg.Network.ValueHidden = 1, 8, 8
	cfg.Search.Simulations = 4
	cfg.SelfPlay.ParallelGames, cfg.SelfPlay.BatchSize, cfg.SelfPlay.ShardSamples = 8, 8, 100
	cfg.Replay.Window, cfg.Replay.MinSamples = 1000, 100
	cfg.Training.BatchSize, cfg.Training.StepsPerGeneration, cfg.Training.SampleRatio = 8, 5, 1
	cfg.Gating.Matches = []configs.GateMatch{{Opponent: "random", Games: 2, Simulations: 2}}
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(path, cfg.Marshal(), 0o644)
	run := filepath.Join(dir, "run")
	var out bytes.Buffer
	if err := run2(&out, "-config", path, "-run", run, "-max-generations", "1"); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "generation 1: vs random") {
		t.Fatalf("output:\n%s", out.String())
	}
	for _, f := range []string{"latest", "best", "metrics.jsonl", "config.yaml", "plots/loss.png"} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
}

func run2(out *bytes.Buffer, args ...string) error { return run(context.Background(), args, out) }

func TestFlags(t *testing.T) {
	var out bytes.Buffer
	if err := run2(&out, "-config", "/nonexistent.yaml"); err == nil {
		t.Error("missing config accepted")
	}
	if err := run2(&out, "stray"); err == nil {
		t.Error("stray argument accepted")
	}
	if err := run2(&out, "-game", "chess", "-run", t.TempDir()); err == nil {
		t.Error("unknown game accepted")
	}
}
