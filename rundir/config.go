package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
		b, err := os.ReadFile(src.Path)
		if err != nil {
			return "", nil, fmt.Errorf("configs: %w", err)
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
	b, err := os.ReadFile(d.Config())
	switch {
	case err == nil:
		cfg, err = parseWith(b, d.Config(), src.Sets)
	case errors.Is(err, fs.ErrNotExist):
		if b, err = configs.PresetBytes(src.Game); err != nil {
			return "", nil, fmt.Errorf("configs: no preset for game %q", src.Game)
		}
		cfg, err = parseWith(b, "preset "+src.Game+".yaml", src.Sets)
	default:
		err = fmt.Errorf("rundir: %w", err)
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
func (d Dir) Freeze(cfg *configs.Config, accept bool) (*configs.Config, error) {
	path := d.Config()
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if cfg == nil {
			return nil, fmt.Errorf("rundir: %s has no config.yaml and no config was given", d)
		}
		return cfg, atomicfile.WriteBytes(path, cfg.MarshalSealed(), 0o644)
	}
	if err != nil {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	frozen, err := configs.Parse(old, path)
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
	f, err := os.OpenFile(d.ConfigChanges(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	fmt.Fprintf(f, "=== %s: config changed; previous config:\n%s", time.Now().UTC().Format(time.RFC3339), old)
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	return cfg, atomicfile.WriteBytes(path, cfg.MarshalSealed(), 0o644)
}

// FrozenConfig reads the run's frozen config; the error wraps
// fs.ErrNotExist when the run has none yet.
func (d Dir) FrozenConfig() (*configs.Config, error) {
	if _, err := os.Stat(d.Config()); err != nil {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	return configs.Load(d.Config())
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
