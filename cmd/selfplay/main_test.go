package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/data"
)

// tinyRun writes a run directory whose frozen config is a tiny Connect
// Four setup.
func tinyRun(t *testing.T) string {
	cfg, err := configs.Preset("connect4")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Network.Blocks, cfg.Network.Filters = 1, 8
	cfg.Search.Simulations = 8
	cfg.SelfPlay.ParallelGames, cfg.SelfPlay.BatchSize, cfg.SelfPlay.ShardSamples = 4, 4, 40
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, "config.yaml"), cfg.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	return run
}

func TestSelfPlayRun(t *testing.T) {
	run := tinyRun(t)
	var out bytes.Buffer
	for round := 0; round < 2; round++ {
		if err := run2(t, run, &out, "-games", "6", "-worker", "t1"); err != nil {
			t.Fatal(err)
		}
	}
	shards, _ := filepath.Glob(filepath.Join(run, "replay", "*"+data.Ext))
	if len(shards) < 2 {
		t.Fatalf("shards %v", shards)
	}
	games := map[uint64]bool{}
	for _, s := range shards {
		h, samples, err := data.Read(s)
		if err != nil {
			t.Fatal(err)
		}
		if h.Generation != 0 || h.Worker != "t1" {
			t.Fatalf("header %+v", h)
		}
		for _, x := range samples {
			games[x.GameID] = true
		}
	}
	// Both rounds played 6 games each with the same seed: the same ids, so
	// the same six games twice, in shards that did not overwrite each other.
	if len(games) != 6 {
		t.Fatalf("samples from %d distinct games, want 6", len(games))
	}
	metrics, _ := os.ReadFile(filepath.Join(run, "selfplay-t1.jsonl"))
	if !strings.Contains(string(metrics), `"games":6`) {
		t.Fatalf("metrics:\n%s", metrics)
	}
}

func run2(t *testing.T, runDir string, out *bytes.Buffer, args ...string) error {
	return run(context.Background(), append([]string{"-run", runDir}, args...), out)
}

func TestFlagErrors(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{
		{},
		{"-run", t.TempDir(), "-config", "/nonexistent.yaml"},
		{"-run", t.TempDir(), "-checkpoint", "/nonexistent.ckpt", "-games", "1"},
		{"-run", t.TempDir(), "-search", "minimax", "-games", "1"},
	} {
		if err := run(context.Background(), args, &out); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
