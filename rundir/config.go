package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/internal/atomicfile"
)

// ConfigSource is what a command was told about a run's config (tabula
// train's -config, -game and -set).
type ConfigSource struct {
	Path string   // a config file; "" for none
	Game string   // the preset to start from when there is neither Path nor a frozen config
	Sets []string // PATH=VALUE overrides (configs.Override)
}

// Settle returns the run directory and the config it trains with. The
// config is, first match first:
//
//  1. the file src.Path, when given;
//  2. else the run's frozen RUN/config.yaml, when the run has one;
//  3. else the embedded preset of src.Game;
//
// with the src.Sets overrides applied last to whichever it was. The run
// directory is run, or runs/<game> when run is empty (the game of the
// -config file, else src.Game). A config that differs from the run's
// frozen copy, a file's or the frozen copy's with overrides, is then a
// change that Freeze accepts only when asked to.
func Settle(run string, src ConfigSource) (Dir, *configs.Config, error) {
	var cfg *configs.Config
	if src.Path != "" {
		b, err := configs.ReadFile(src.Path)
		if err != nil {
			return "", nil, err
		}
		if cfg, err = parseWith(b, src.Path, src.Sets); err != nil {
			return "", nil, err
		}
		src.Game = cfg.Game
	}
	if run == "" {
		run = filepath.Join("runs", src.Game)
	}
	d := Dir(run)
	if cfg != nil {
		return d, cfg, nil
	}
	b, err := configs.ReadFile(d.Config())
	switch {
	case err == nil:
		// The seal is checked before the overrides, which drop it.
		if err := configs.CheckSealed(b); err != nil {
			return "", nil, d.sealRefusal(err)
		}
		cfg, err = parseWith(b, d.Config(), src.Sets)
	case errors.Is(err, fs.ErrNotExist):
		if err := d.missingConfig(); err != nil {
			return "", nil, err
		}
		if b, err = configs.PresetBytes(src.Game); err != nil {
			return "", nil, fmt.Errorf("configs: no preset for game %q", src.Game)
		}
		cfg, err = parseWith(b, "preset "+src.Game+".yaml", src.Sets)
	}
	if err != nil {
		return "", nil, err
	}
	return d, cfg, nil
}

// parseWith parses config text named name with the overrides sets.
func parseWith(b []byte, name string, sets []string) (*configs.Config, error) {
	b, err := configs.Override(b, sets)
	if err != nil {
		return nil, err
	}
	return configs.Parse(b, name)
}

// Freeze settles the run's configuration: a new run freezes cfg as
// RUN/config.yaml; a resumed run keeps its frozen copy, and a different
// cfg is an error unless accept is set, in which case the change is
// recorded in RUN/config-changes.log and the new config frozen.
//
// A run is never changed without a word: a run that has trained (its
// checkpoints, pointers or metrics are there) but has no config.yaml, or
// one without its seal, is refused with the repair; accept with a given
// cfg is that repair, logged as a change.
func (d Dir) Freeze(cfg *configs.Config, accept bool) (*configs.Config, error) {
	path := d.Config()
	old, err := configs.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := d.missingConfig(); err != nil {
			if !accept || cfg == nil {
				return nil, err
			}
			if err := d.logChange("config.yaml was missing; the given config frozen in its place", nil); err != nil {
				return nil, err
			}
		}
		if cfg == nil {
			return nil, fmt.Errorf("rundir: %s has no config.yaml and no config was given", d)
		}
		return cfg, atomicfile.WriteBytes(path, cfg.MarshalSealed(), 0o644)
	}
	if err != nil {
		return nil, err
	}
	if err := configs.CheckSealed(old); err != nil {
		if !accept || cfg == nil {
			return nil, d.sealRefusal(err)
		}
		// The repair sealRefusal names: the file's text goes to the log.
		if was, perr := configs.Parse(old, path); perr == nil && was.Game != cfg.Game {
			return nil, fmt.Errorf("rundir: the run plays %s, the new config %s: start a new run", was.Game, cfg.Game)
		}
		if err := d.logChange(fmt.Sprintf("config.yaml failed its seal (%v); replaced; its text was", err), old); err != nil {
			return nil, err
		}
		return cfg, atomicfile.WriteBytes(path, cfg.MarshalSealed(), 0o644)
	}
	frozen, err := configs.ParseFrozen(old, path)
	if err != nil {
		return nil, err
	}
	if cfg == nil || bytes.Equal(frozen.Marshal(), cfg.Marshal()) {
		return frozen, nil
	}
	if !accept {
		return nil, fmt.Errorf("rundir: the config differs from the run's frozen %s; pass -accept-config-change to continue with the new one", path)
	}
	if frozen.Game != cfg.Game {
		return nil, fmt.Errorf("rundir: the run plays %s, the new config %s: start a new run", frozen.Game, cfg.Game)
	}
	if err := d.logChange("config changed; previous config", old); err != nil {
		return nil, err
	}
	return cfg, atomicfile.WriteBytes(path, cfg.MarshalSealed(), 0o644)
}

// logChange appends a dated entry, what happened and the replaced text,
// to RUN/config-changes.log.
func (d Dir) logChange(what string, old []byte) error {
	f, err := os.OpenFile(d.ConfigChanges(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	fmt.Fprintf(f, "=== %s: %s:\n%s", time.Now().UTC().Format(time.RFC3339), what, old)
	if err := f.Close(); err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	return nil
}

// trained lists what shows that the run has trained: checkpoints,
// pointers, metrics, the record of its first network or of config
// changes. Shards in RUN/replay do not count: workers may write them
// before the trainer first starts (tabula selfplay -run on a shared
// directory), and reanalysed shards are put there for a new run to train
// on.
func (d Dir) trained() []string {
	var have []string
	if names, _ := d.List(); len(names) > 0 {
		have = append(have, fmt.Sprintf("%d checkpoints (the newest %s)", len(names), names[len(names)-1]))
	}
	for _, f := range []struct{ path, what string }{
		{d.Path(Latest), "a latest pointer"}, {d.Path(Best), "a best pointer"}, {d.Metrics(), "metrics.jsonl"},
		{d.Init(), "an init record"}, {d.ConfigChanges(), "config-changes.log"},
	} {
		if st, err := os.Stat(f.path); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
			have = append(have, f.what)
		}
	}
	return have
}

// missingConfig refuses a run that has trained but lost its config.yaml:
// the preset's defaults (or another file) would take its place without a
// word.
func (d Dir) missingConfig() error {
	have := d.trained()
	if len(have) == 0 {
		return nil
	}
	log := ""
	if _, err := os.Stat(d.ConfigChanges()); err == nil {
		log = fmt.Sprintf(" (%s holds configs the run replaced)", d.ConfigChanges())
	}
	return fmt.Errorf("rundir: %s has %s but no config.yaml: the config it trained with is gone, and going on under "+
		"another (the preset's) would change the run without a word. To go on, give the run's config with "+
		"-config FILE -accept-config-change, which freezes it as %s and logs the change%s; or start a new run in another directory",
		d, andList(have), d.Config(), log)
}

// andList joins "a", "b" and "c" as "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// sealRefusal is the error for a frozen copy that fails its seal, with
// the repair.
func (d Dir) sealRefusal(err error) error {
	repair := "resume with -config " + d.Config() + " -accept-config-change, which seals it again and logs the change"
	if errors.Is(err, configs.ErrSealBroken) {
		repair = "delete its first line and " + repair
	}
	return fmt.Errorf("rundir: %s: %w; it may not be the config the run trained with. If its values are the ones to train with, %s",
		d.Config(), err, repair)
}

// FrozenConfig reads the run's frozen config, which must carry its seal;
// the error wraps fs.ErrNotExist when the run has none yet.
func (d Dir) FrozenConfig() (*configs.Config, error) {
	b, err := configs.ReadFile(d.Config())
	if err != nil {
		return nil, err
	}
	if err := configs.CheckSealed(b); err != nil {
		return nil, d.sealRefusal(err)
	}
	return configs.ParseFrozen(b, d.Config())
}

// WorkerConfig is the config a worker joining the run plays with: the
// run's frozen config, else the file at path when given, else the preset
// of gameName (a run the trainer has not started yet).
func (d Dir) WorkerConfig(path, gameName string) (*configs.Config, error) {
	cfg, err := d.FrozenConfig()
	switch {
	case err == nil:
		return cfg, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	case path != "":
		return configs.Load(path)
	}
	return configs.Preset(gameName)
}
