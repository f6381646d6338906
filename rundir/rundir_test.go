package rundir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/connect4"
	_ "github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/net"
)

func tinyConfig(t *testing.T) *configs.Config {
	t.Helper()
	cfg, err := configs.Preset("connect4")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Network.Blocks, cfg.Network.Filters, cfg.Network.ValueHidden = 1, 4, 4
	return cfg
}

// A new run's worker plays the seeded generation-0 network; once the run
// has a best checkpoint, that one, from a file or the run directory, with
// the game and encoder checked.
func TestNetworkResolution(t *testing.T) {
	cfg := tinyConfig(t)
	run := Dir(t.TempDir())
	p0, gen, source, err := run.Network(netSpec(t, cfg), cfg.Seed, "")
	if err != nil || gen != 0 || source != "fresh generation 0" {
		t.Fatalf("new run: gen %d, %q, %v", gen, source, err)
	}
	again, _ := FreshParams(cfg)
	if !reflect.DeepEqual(p0, again) {
		t.Fatal("generation 0 differs between calls: workers would not agree on it")
	}
	c := &checkpoints.Checkpoint{Generation: 4, Step: 40, Params: p0}
	name, err := run.Create(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{"", string(run), run.Checkpoint(name)} {
		_, gen, source, err := run.Network(netSpec(t, cfg), cfg.Seed, from)
		if err != nil || gen != 4 || source != run.Checkpoint(name) {
			t.Errorf("from %q: gen %d, %q, %v", from, gen, source, err)
		}
	}
	lion, _ := game.Lookup("lion")
	if _, _, err := LoadNetwork(string(run), lion); err == nil || !strings.Contains(err.Error(), "not lion") {
		t.Errorf("a connect4 network loaded for lion: %v", err)
	}
	c4, _ := game.Lookup("connect4")
	p0.Spec.EncoderVersion++
	old := &checkpoints.Checkpoint{Params: p0}
	path := filepath.Join(t.TempDir(), "old.ckpt")
	if err := checkpoints.Save(path, old); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadNetwork(path, c4); err == nil || !strings.Contains(err.Error(), "encoder version") {
		t.Errorf("a network of another encoder version loaded: %v", err)
	}
	if _, _, err := LoadNetwork(filepath.Join(t.TempDir(), "missing"), c4); err == nil {
		t.Error("a missing path loaded")
	}
}

// The frozen config: a new run freezes the given one (sealed), a resumed
// run keeps it, a different one needs accept and is logged.
func TestFreeze(t *testing.T) {
	run := Dir(t.TempDir())
	if _, err := run.FrozenConfig(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("new run: %v", err)
	}
	if _, err := run.Freeze(nil, false); err == nil {
		t.Fatal("a new run without a config started")
	}
	cfg := tinyConfig(t)
	if _, err := run.Freeze(cfg, false); err != nil {
		t.Fatal(err)
	}
	got, err := run.Freeze(nil, false)
	if err != nil || !reflect.DeepEqual(got, cfg) {
		t.Fatalf("resumed config differs: %v", err)
	}
	changed := tinyConfig(t)
	changed.Seed = 9
	if _, err := run.Freeze(changed, false); err == nil || !strings.Contains(err.Error(), "accept-config-change") {
		t.Fatalf("changed config without accept: %v", err)
	}
	if _, err := run.Freeze(changed, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := run.FrozenConfig(); got.Seed != 9 {
		t.Fatal("accepted change not frozen")
	}
	if b, _ := os.ReadFile(run.ConfigChanges()); !strings.Contains(string(b), "seed: 1") {
		t.Fatal("the replaced config is not in the change log")
	}
}

func TestSecondLockRefused(t *testing.T) {
	run := Dir(t.TempDir())
	release, err := run.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Lock(); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second lock: %v", err)
	}
	release()
	release, err = run.Lock()
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	release()
}

// A worker follows promotions: nothing while the run has no best or the
// best is not newer, the checkpoint once it is.
func TestNewerBest(t *testing.T) {
	cfg := tinyConfig(t)
	c4, _ := game.Lookup("connect4")
	run := Dir(t.TempDir())
	if c, _, err := run.NewerBest(c4, 0); c != nil || err != nil {
		t.Fatalf("run without a best: %v %v", c, err)
	}
	p, _ := FreshParams(cfg)
	if _, err := run.Create(&checkpoints.Checkpoint{Generation: 3, Params: p}); err != nil {
		t.Fatal(err)
	}
	if c, _, err := run.NewerBest(c4, 3); c != nil || err != nil {
		t.Fatalf("best not newer than 3: %v %v", c, err)
	}
	c, path, err := run.NewerBest(c4, 2)
	if err != nil || c == nil || c.Generation != 3 || path == "" {
		t.Fatalf("newer best: %v %q %v", c, path, err)
	}
	lion, _ := game.Lookup("lion")
	if _, _, err := run.NewerBest(lion, 0); err == nil {
		t.Fatal("a connect4 best loaded for lion")
	}
}

// A worker's config: the run's frozen one, else the given file, else the
// preset.
func TestWorkerConfig(t *testing.T) {
	run := Dir(t.TempDir())
	cfg, err := run.WorkerConfig("", "lion")
	if err != nil || cfg.Game != "lion" {
		t.Fatalf("preset: %v %v", cfg, err)
	}
	file := filepath.Join(t.TempDir(), "c.yaml")
	own := tinyConfig(t)
	own.Seed = 77
	if err := os.WriteFile(file, own.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, err := run.WorkerConfig(file, "lion"); err != nil || cfg.Seed != 77 {
		t.Fatalf("file: %v %v", cfg, err)
	}
	frozen := tinyConfig(t)
	frozen.Seed = 5
	if _, err := run.Freeze(frozen, false); err != nil {
		t.Fatal(err)
	}
	if cfg, err := run.WorkerConfig(file, "lion"); err != nil || cfg.Seed != 5 {
		t.Fatalf("frozen: %v %v", cfg, err)
	}
	if _, err := run.WorkerConfig(filepath.Join(t.TempDir(), "missing.yaml"), "lion"); err != nil {
		t.Fatalf("the frozen config should win over a missing file: %v", err)
	}
	if _, err := Dir(t.TempDir()).WorkerConfig("", "chess"); err == nil {
		t.Fatal("a preset for an unknown game")
	}
}

// Settle's order: the -config file, else the frozen copy, else the preset;
// the overrides last, whichever it was; the run directory defaults to
// runs/<game>, the game of the file when there is one.
func TestSettle(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	own := tinyConfig(t)
	own.Seed = 77
	if err := os.WriteFile(file, own.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	lion, _ := configs.Preset("lion")
	run := t.TempDir()
	for _, c := range []struct {
		name      string
		run       string
		src       ConfigSource
		wantRun   string
		wantSeed  uint64
		wantGame  string
		wantSteps int
	}{
		{"preset", "", ConfigSource{Game: "lion"}, filepath.Join("runs", "lion"), lion.Seed, "lion", lion.Training.StepsPerGeneration},
		{"preset with -set", run, ConfigSource{Game: "lion", Sets: []string{"seed=3"}}, run, 3, "lion", lion.Training.StepsPerGeneration},
		{"file over -game", "", ConfigSource{Path: file, Game: "lion"}, filepath.Join("runs", "connect4"), 77, "connect4", own.Training.StepsPerGeneration},
		{"file with -set", run, ConfigSource{Path: file, Sets: []string{"training.steps_per_generation=7"}}, run, 77, "connect4", 7},
	} {
		d, cfg, err := Settle(c.run, c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(d) != c.wantRun || cfg.Seed != c.wantSeed || cfg.Game != c.wantGame || cfg.Training.StepsPerGeneration != c.wantSteps {
			t.Errorf("%s: run %s, %s seed %d steps %d", c.name, d, cfg.Game, cfg.Seed, cfg.Training.StepsPerGeneration)
		}
	}
	// A frozen copy wins over the preset; the file still wins over it.
	frozen := tinyConfig(t)
	frozen.Seed = 5
	if _, err := Dir(run).Freeze(frozen, false); err != nil {
		t.Fatal(err)
	}
	if _, cfg, err := Settle(run, ConfigSource{Game: "lion"}); err != nil || !reflect.DeepEqual(cfg, frozen) {
		t.Fatalf("frozen: %v", err)
	}
	if _, cfg, err := Settle(run, ConfigSource{Game: "lion", Sets: []string{"seed=6"}}); err != nil || cfg.Seed != 6 || cfg.Network != frozen.Network {
		t.Fatalf("frozen with -set: %v", err)
	}
	if _, cfg, err := Settle(run, ConfigSource{Path: file}); err != nil || cfg.Seed != 77 {
		t.Fatalf("file over frozen: %v", err)
	}
	for _, bad := range []ConfigSource{
		{Game: "chess"},
		{Game: "lion", Sets: []string{"training.momentum=1.5"}},
		{Path: filepath.Join(t.TempDir(), "missing.yaml")},
	} {
		if _, _, err := Settle(t.TempDir(), bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// netSpec is the network shape of cfg.
func netSpec(t *testing.T, cfg *configs.Config) net.Spec {
	t.Helper()
	s, err := configs.NetSpec(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
