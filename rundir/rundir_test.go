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
	p0, gen, source, err := run.Network(cfg, "")
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
		_, gen, source, err := run.Network(cfg, from)
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
