package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/jsonl"
	"github.com/tabula-zero/tabula/metrics"
)

// trainedRun is a run with a frozen config, checkpoints of generations 0
// to 3 (generation 2 promoted, as its metrics say) and its pointers.
func trainedRun(t *testing.T) (Dir, *configs.Config, []string) {
	t.Helper()
	run := Dir(t.TempDir())
	cfg := tinyConfig(t)
	if _, err := run.Freeze(cfg, false); err != nil {
		t.Fatal(err)
	}
	c := sample(t)
	name, err := run.Create(c)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{name}
	log, err := jsonl.Open(run.Metrics())
	if err != nil {
		t.Fatal(err)
	}
	for g := 1; g <= 3; g++ {
		c.Generation, c.Step = g, int64(10*g)
		name, err := run.Save(c)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		if g == 2 {
			if err := run.SetPointer(Best, name); err != nil {
				t.Fatal(err)
			}
		}
		log.Append(metrics.Metric{Kind: "generation", Generation: g, Checkpoint: name, Promoted: g == 2})
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	return run, cfg, names
}

func connect4(t *testing.T) game.Game {
	t.Helper()
	g, err := game.Lookup("connect4")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A run whose latest pointer is gone, or both pointers, is not a new run:
// Unpointed refuses it, naming the newest checkpoint that loads and the
// pointer to write it into (and, for best, the last promoted one by the
// metrics). A damaged newest checkpoint is passed over. A directory with
// no checkpoint, or only the generation 0 a creation cut short left, is
// a new run.
func TestUnpointed(t *testing.T) {
	c4 := connect4(t)
	run, _, names := trainedRun(t)
	if err := run.Unpointed(Latest, c4); err == nil || !errors.Is(err, ErrNoPointer) {
		t.Fatalf("latest deleted: %v", err)
	}
	os.Remove(run.Path(Latest))
	err := run.Unpointed(Latest, c4)
	want := fmt.Sprintf("write %s into %s", names[3], run.Path(Latest))
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "into "+run.Path(Best)) {
		t.Fatalf("latest deleted: %v; want %q", err, want)
	}
	// Following the repair resumes.
	os.WriteFile(run.Path(Latest), []byte(names[3]+"\n"), 0o644)
	if p, err := run.Pointer(Latest); err != nil || filepath.Base(p) != names[3] {
		t.Fatalf("after the repair: %s, %v", p, err)
	}
	os.Remove(run.Path(Latest))
	os.Remove(run.Path(Best))
	err = run.Unpointed(Latest, c4)
	for _, w := range []string{
		want, "4 checkpoints up to " + names[3], "no latest pointer",
		fmt.Sprintf("into %s (the last promoted by %s: %s)", run.Path(Best), run.Metrics(), names[2]),
	} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("both deleted: %v; want %q", err, w)
		}
	}
	if err := run.Unpointed(Best, c4); err == nil || !strings.Contains(err.Error(), "write the best network's checkpoint into "+run.Path(Best)) {
		t.Errorf("best deleted: %v", err)
	}
	// The newest checkpoint damaged: the one before it is named.
	b, _ := os.ReadFile(run.Checkpoint(names[3]))
	b[len(b)/2] ^= 0xff
	os.WriteFile(run.Checkpoint(names[3]), b, 0o644)
	if newest, err := run.NewestVerified(c4); err != nil || newest != names[2] {
		t.Errorf("NewestVerified = %s, %v; want %s", newest, err, names[2])
	}
	if err := run.Unpointed(Latest, c4); err == nil || !strings.Contains(err.Error(), "write "+names[2]+" into") {
		t.Errorf("newest damaged: %v", err)
	}
	// Another game's checkpoints do not load for this one.
	lion, _ := game.Lookup("lion")
	if err := run.Unpointed(Latest, lion); err == nil || !strings.Contains(err.Error(), "none of its 4 checkpoints loads") {
		t.Errorf("no checkpoint loads: %v", err)
	}

	fresh := Dir(t.TempDir())
	if err := fresh.Unpointed(Latest, c4); err != nil {
		t.Errorf("an empty directory: %v", err)
	}
	if err := Dir(filepath.Join(t.TempDir(), "none")).Unpointed(Latest, c4); err != nil {
		t.Errorf("no directory: %v", err)
	}
	if _, err := fresh.saveAndPoint(sample(t), Best); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Unpointed(Latest, c4); err != nil {
		t.Errorf("a creation cut short before latest: %v", err)
	}
}

// A worker on a run whose best pointer is gone is refused, not handed the
// fresh generation 0.
func TestWorkerNetworkUnpointed(t *testing.T) {
	run, cfg, _ := trainedRun(t)
	os.Remove(run.Path(Best))
	if _, _, _, err := run.Network(netSpec(t, cfg), cfg.Seed, ""); !errors.Is(err, ErrNoPointer) {
		t.Fatalf("best deleted: %v", err)
	}
}

// A run that has trained keeps its config: without config.yaml it is
// refused with the repair (whatever config would take its place), and the
// repair, a given config with accept, is logged. An empty or missing
// directory still starts a new run.
func TestMissingConfigRefused(t *testing.T) {
	run, cfg, _ := trainedRun(t)
	os.Remove(run.Config())
	for _, c := range []*configs.Config{nil, cfg, tinyConfig(t)} {
		_, err := run.Freeze(c, false)
		if err == nil || !strings.Contains(err.Error(), "but no config.yaml") || !strings.Contains(err.Error(), "-config FILE -accept-config-change") ||
			!strings.Contains(err.Error(), "4 checkpoints") {
			t.Errorf("Freeze(%v): %v", c != nil, err)
		}
	}
	if _, err := os.Stat(run.Config()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("a refused Freeze wrote config.yaml")
	}
	// The case of the report: a run made with 4 simulations and 8
	// parallel games resumed under the preset's 100 and 64.
	if _, _, err := Settle(string(run), ConfigSource{Game: "connect4"}); err == nil || !strings.Contains(err.Error(), "but no config.yaml") {
		t.Errorf("Settle onto the preset: %v", err)
	}
	// Metrics alone show a run that trained.
	metricsOnly := Dir(t.TempDir())
	os.WriteFile(metricsOnly.Metrics(), []byte(`{"kind":"train"}`+"\n"), 0o644)
	if _, err := metricsOnly.Freeze(cfg, false); err == nil || !strings.Contains(err.Error(), "metrics.jsonl but no config.yaml") {
		t.Errorf("metrics alone: %v", err)
	}
	// The repair.
	own := tinyConfig(t)
	own.Search.Simulations, own.SelfPlay.ParallelGames = 4, 8
	got, err := run.Freeze(own, true)
	if err != nil || got.Search.Simulations != 4 {
		t.Fatalf("the repair: %v", err)
	}
	if frozen, err := run.FrozenConfig(); err != nil || frozen.Search.Simulations != 4 || frozen.SelfPlay.ParallelGames != 8 {
		t.Fatalf("the repaired copy: %v", err)
	}
	if b, _ := os.ReadFile(run.ConfigChanges()); !strings.Contains(string(b), "config.yaml was missing") {
		t.Errorf("the repair is not logged: %q", b)
	}
	// New runs: an empty directory, a missing one, one with only shards
	// (workers that started first, or reanalysed shards).
	shards := Dir(t.TempDir())
	os.MkdirAll(shards.Replay(), 0o755)
	os.WriteFile(filepath.Join(shards.Replay(), "w-000001.shard"), []byte("x"), 0o644)
	for _, d := range []Dir{Dir(t.TempDir()), Dir(filepath.Join(t.TempDir(), "new")), shards} {
		if _, _, err := Settle(string(d), ConfigSource{Game: "connect4"}); err != nil {
			t.Errorf("Settle on a new run %s: %v", d, err)
		}
		if err := os.MkdirAll(string(d), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Freeze(cfg, false); err != nil {
			t.Errorf("Freeze on a new run %s: %v", d, err)
		}
	}
}

// The frozen copy must carry its seal: without its checksum line, or
// with the line's tag misspelt while a value is changed, it is refused
// wherever it is read, with the repair; the repair (the file given as
// -config with accept) seals it again and logs the text it had.
func TestUnsealedFrozenConfigRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(string) string
		want   []string
	}{
		{"no checksum line", func(s string) string { _, body, _ := strings.Cut(s, "\n"); return body },
			[]string{"no checksum line", "resume with -config"}},
		{"tag misspelt, a value changed", func(s string) string {
			return strings.Replace(strings.Replace(s, "sha256:", "sha265:", 1), "simulations: 100\n", "simulations: 5\n", 1)
		}, []string{"damaged checksum line", "delete its first line and resume with -config"}},
		{"no checksum line, a value changed", func(s string) string {
			_, body, _ := strings.Cut(s, "\n")
			return strings.Replace(body, "simulations: 100\n", "simulations: 5\n", 1)
		}, []string{"no checksum line"}},
	} {
		run, cfg, _ := trainedRun(t)
		b, _ := os.ReadFile(run.Config())
		damaged := c.damage(string(b))
		if damaged == string(b) || !strings.Contains(string(b), "simulations: 100\n") {
			t.Fatalf("%s: the damage changed nothing", c.name)
		}
		os.WriteFile(run.Config(), []byte(damaged), 0o644)
		check := func(what string, err error) {
			t.Helper()
			for _, w := range append(c.want, run.Config()) {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %s: %v; want %q", c.name, what, err, w)
				}
			}
		}
		_, err := run.Freeze(nil, false)
		check("Freeze", err)
		_, err = run.Freeze(cfg, false)
		check("Freeze with the config", err)
		_, err = run.FrozenConfig()
		check("FrozenConfig", err)
		_, _, err = Settle(string(run), ConfigSource{Game: "connect4"})
		check("Settle", err)
		_, _, err = Settle(string(run), ConfigSource{Game: "connect4", Sets: []string{"seed=3"}})
		check("Settle with -set", err)
		_, err = run.WorkerConfig("", "connect4")
		check("WorkerConfig", err)
		if got, _ := os.ReadFile(run.Config()); string(got) != damaged {
			t.Errorf("%s: a refusal changed config.yaml", c.name)
		}

		// The repair: the file's values given back with accept.
		if strings.Contains(damaged, "sha265:") {
			_, body, _ := strings.Cut(damaged, "\n")
			os.WriteFile(run.Config(), []byte(body), 0o644)
		}
		_, given, err := Settle(string(run), ConfigSource{Path: run.Config()})
		if err != nil {
			t.Fatalf("%s: -config %s: %v", c.name, run.Config(), err)
		}
		if _, err := run.Freeze(given, true); err != nil {
			t.Fatalf("%s: the repair: %v", c.name, err)
		}
		frozen, err := run.FrozenConfig()
		if err != nil || frozen.Search.Simulations != given.Search.Simulations {
			t.Fatalf("%s: after the repair: %v", c.name, err)
		}
		if log, _ := os.ReadFile(run.ConfigChanges()); !strings.Contains(string(log), "failed its seal") {
			t.Errorf("%s: the repair is not logged: %q", c.name, log)
		}
	}
}

// What is read from a run directory is read only from regular files: a
// config.yaml or a pointer linked to /dev/zero is refused at once, not
// read without end.
func TestRunFilesLinkedToDevices(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	run, cfg, _ := trainedRun(t)
	os.Remove(run.Config())
	if err := os.Symlink("/dev/zero", run.Config()); err != nil {
		t.Skip(err)
	}
	for what, f := range map[string]func() error{
		"Freeze":       func() error { _, err := run.Freeze(nil, false); return err },
		"Freeze cfg":   func() error { _, err := run.Freeze(cfg, true); return err },
		"FrozenConfig": func() error { _, err := run.FrozenConfig(); return err },
		"Settle":       func() error { _, _, err := Settle(string(run), ConfigSource{Game: "connect4"}); return err },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "character device, not a regular file") {
			t.Errorf("%s with config.yaml linked to /dev/zero: %v", what, err)
		}
	}
	os.Remove(run.Path(Latest))
	os.Symlink("/dev/zero", run.Path(Latest))
	if _, err := run.Pointer(Latest); err == nil || !strings.Contains(err.Error(), "character device, not a regular file") {
		t.Errorf("latest linked to /dev/zero: %v", err)
	}
	if _, err := checkpoints.Identify(run.Path(Best)); err == nil {
		t.Error("a pointer file identified as a checkpoint")
	}
}
