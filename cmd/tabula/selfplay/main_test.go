package selfplay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/internal/cliflag/cliflagtest"
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
	if err := os.WriteFile(filepath.Join(run, "config.yaml"), cfg.MarshalSealed(), 0o644); err != nil {
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
	// Each round played 6 games, in shards that did not overwrite each
	// other; the second start of the worker played other games than the
	// first (a new seed, recorded in the headers), not the same six again.
	rounds := map[uint64]map[uint64]string{} // game seed -> game id -> positions
	for _, s := range shards {
		h, samples, err := data.Read(s)
		if err != nil {
			t.Fatal(err)
		}
		if h.Generation != 0 || h.Worker != "t1" || h.GameSeed == 0 {
			t.Fatalf("header %+v", h)
		}
		if rounds[h.GameSeed] == nil {
			rounds[h.GameSeed] = map[uint64]string{}
		}
		for _, x := range samples {
			rounds[h.GameSeed][x.GameID] += x.Position + "|"
		}
	}
	if len(rounds) != 2 {
		t.Fatalf("%d game seeds in the shards, want one per start", len(rounds))
	}
	seen, repeated := map[string]bool{}, 0
	for _, games := range rounds {
		if len(games) != 6 {
			t.Fatalf("a start wrote %d games, want 6", len(games))
		}
		for _, g := range games {
			if seen[g] {
				repeated++
			}
			seen[g] = true
		}
	}
	if repeated > 1 {
		t.Fatalf("%d of 6 games were played again after the restart", repeated)
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
	// Values that once panicked, ran without a limit or failed late: the
	// error names the flag before any work starts.
	for _, c := range [][2]string{
		{"-poll", "0s"}, {"-games", "-1"}, {"-time", "-5s"}, {"-parallel", "-5"}, {"-sims", "-1"}, {"-worker", "bad/name"},
	} {
		run := t.TempDir()
		err := run2(t, run, &out, c[0], c[1])
		if err == nil || !strings.Contains(err.Error(), c[0]+" ") && !strings.Contains(err.Error(), c[0]+":") {
			t.Errorf("%s %s: %v", c[0], c[1], err)
		}
		if _, serr := os.Stat(filepath.Join(run, "replay")); serr == nil {
			t.Errorf("%s %s: the run directory was written to", c[0], c[1])
		}
	}
}

// -nats: the config and network come from the server; a bad run name is
// a clear error; an absent server is waited for (see
// TestRemoteWaitsForServer).
func TestRemoteFlagErrors(t *testing.T) {
	var out bytes.Buffer
	account := filepath.Join(t.TempDir(), "box2.creds")
	os.WriteFile(account, []byte("box2:pw\n"), 0o600)
	badAccount := filepath.Join(t.TempDir(), "bad.creds")
	os.WriteFile(badAccount, []byte("box.2:pw\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-nats", "nats://127.0.0.1:1", "-run", "c4", "-config", "x.yaml"}, "no -config"},
		{[]string{"-nats", "nats://127.0.0.1:1", "-run", "runs/c4"}, "-run"},
		{[]string{"-nats", "nats://127.0.0.1:1", "-run", "c4", "-nats-credentials", "/nonexistent"}, "credentials"},
		// A worker account sends only shards under its own name.
		{[]string{"-nats", "nats://127.0.0.1:1", "-run", "c4", "-nats-credentials", account, "-worker", "box3"}, "may send only shards of worker box2"},
		{[]string{"-nats", "nats://127.0.0.1:1", "-run", "c4", "-nats-credentials", account, "-worker", "box2x"}, "may send only shards of worker box2"},
		{[]string{"-nats", "nats://127.0.0.1:1", "-run", "c4", "-nats-credentials", badAccount}, "letters or digits"},
	} {
		if err := run(context.Background(), c.args, &out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.args, err, c.want)
		}
	}
}

// stopWhen is a worker's output that stops it (cancels its context) once
// the output says want.
type stopWhen struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	stop context.CancelFunc
}

func (w *stopWhen) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if strings.Contains(w.b.String(), w.want) {
		w.stop()
	}
	return len(p), nil
}

// A worker started while its server is down does not exit: it says it
// waits and tries again (natsrun.ConnectRetry), until it is stopped,
// which is no error. With an account, box2_1 or the account itself (the
// default) pass to the connection.
func TestRemoteWaitsForServer(t *testing.T) {
	account := filepath.Join(t.TempDir(), "box2.creds")
	os.WriteFile(account, []byte("box2:pw\n"), 0o600)
	for _, args := range [][]string{
		{"-nats", "nats://127.0.0.1:1", "-run", "c4", "-spool", t.TempDir()},
		{"-nats", "nats://127.0.0.1:1", "-run", "c4", "-nats-credentials", account, "-worker", "box2_1", "-spool", t.TempDir()},
		{"-nats", "nats://127.0.0.1:1", "-run", "c4", "-nats-credentials", account, "-spool", t.TempDir()},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		out := &stopWhen{want: "cannot be reached; trying again", stop: cancel}
		err := run(ctx, args, out)
		cancel()
		if err != nil || !strings.Contains(out.b.String(), "url=nats://127.0.0.1:1 attempt=1") {
			t.Errorf("%q with the server down: %v\n%s", args, err, out.b.String())
		}
	}
}

// -h is help, not an error (the command exits 0), and says what matters.
func TestHelp(t *testing.T) {
	var b bytes.Buffer
	err := run(context.Background(), []string{"-h"}, &b)
	text := b.String()
	cliflagtest.Help(t, err, text, "usage: tabula selfplay", "-worker")
}
