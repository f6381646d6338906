package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/models"
	"github.com/tabula-zero/tabula/net"
)

// ResolveCheckpoint turns a checkpoint file, or a run directory (meaning
// its best checkpoint), into a checkpoint file's path.
func ResolveCheckpoint(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("rundir: empty checkpoint or run directory name")
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("rundir: %w", err)
	}
	if !st.IsDir() {
		return path, nil
	}
	return Dir(path).Pointer(Best)
}

// Shipped returns the shipped model (package models) path names: a
// game's name or models/GAME, when no file or directory of that name
// exists (which wins).
func Shipped(path string) (models.Model, bool) {
	if _, err := os.Lstat(path); err == nil {
		return models.Model{}, false
	}
	return models.Lookup(path)
}

// OpenCheckpoint loads the checkpoint a file, a run directory (its best
// checkpoint) or a shipped model's name (Shipped) names. It returns the
// checkpoint and its file's path (for a shipped model, models/GAME.ckpt).
func OpenCheckpoint(path string) (*checkpoints.Checkpoint, string, error) {
	if m, ok := Shipped(path); ok {
		return OpenModel(m)
	}
	file, err := ResolveCheckpoint(path)
	if err != nil {
		return nil, "", err
	}
	c, err := checkpoints.Load(file)
	if err != nil {
		return nil, "", err
	}
	return c, file, nil
}

// OpenModel loads a shipped model and returns it with its path in the
// repository (models/GAME.ckpt).
func OpenModel(m models.Model) (*checkpoints.Checkpoint, string, error) {
	data, err := m.Bytes()
	if err != nil {
		return nil, "", err
	}
	c, err := checkpoints.Decode(data)
	if err != nil {
		return nil, "", fmt.Errorf("checkpoints: %s: %w", m, err)
	}
	return c, m.String(), nil
}

// IdentifyNetwork is checkpoints.Identify for what OpenCheckpoint opens.
func IdentifyNetwork(path string) (checkpoints.ID, error) {
	if m, ok := Shipped(path); ok {
		data, err := m.Bytes()
		if err != nil {
			return checkpoints.ID{}, err
		}
		return checkpoints.IdentifyAt(bytes.NewReader(data), int64(len(data)), m.String())
	}
	file, err := ResolveCheckpoint(path)
	if err != nil {
		return checkpoints.ID{}, err
	}
	return checkpoints.Identify(file)
}

// LoadNetwork loads the checkpoint a file, run directory or shipped
// model names (OpenCheckpoint) and checks it was made for g with g's
// current encoder. It returns the checkpoint and its file's path.
func LoadNetwork(path string, g game.Game) (*checkpoints.Checkpoint, string, error) {
	c, file, err := OpenCheckpoint(path)
	if err != nil {
		return nil, "", err
	}
	if err := c.CheckFor(file, g.Name, g.Encoder.Version()); err != nil {
		return nil, "", err
	}
	return c, file, nil
}

// LoadPlayable loads the checkpoint a file, run directory or shipped
// model names for playing g, whichever of g's encoders it was made with,
// and returns g with that encoder, so that networks of any of g's
// encodings play.
func LoadPlayable(path string, g game.Game) (*checkpoints.Checkpoint, string, game.Game, error) {
	c, file, err := OpenCheckpoint(path)
	if err != nil {
		return nil, "", game.Game{}, err
	}
	if err := c.CheckGame(file, g.Name); err != nil {
		return nil, "", game.Game{}, err
	}
	if g, err = g.WithEncoder(c.Params.Spec.EncoderVersion); err != nil {
		return nil, "", game.Game{}, fmt.Errorf("%s: %w", file, err)
	}
	return c, file, g, nil
}

// FreshParams builds the config's network with the config's seed: the
// generation-0 network, the same in the trainer and every worker
// (net.NewParams of configs.NetSpec and the seed).
func FreshParams(cfg *configs.Config) (*net.Params, error) {
	spec, err := configs.NetSpec(cfg)
	if err != nil {
		return nil, err
	}
	return net.NewParams(spec, cfg.Seed)
}

// Network is what a self-play worker plays with: the checkpoint file or
// run directory ckpt when given, else the run's best network, else (a new
// run) the generation-0 network: spec (configs.NetSpec of the run's
// config) with the run's seed, as FreshParams makes it. It returns the
// parameters, their generation and where they came from.
func (d Dir) Network(spec net.Spec, seed uint64, ckpt string) (*net.Params, int, string, error) {
	g, err := game.Lookup(spec.Game)
	if err != nil {
		return nil, 0, "", err
	}
	if g, err = g.WithEncoder(spec.EncoderVersion); err != nil {
		return nil, 0, "", err
	}
	if ckpt == "" {
		_, err := d.Pointer(Best)
		switch {
		case err == nil:
			ckpt = string(d)
		case errors.Is(err, ErrNoCheckpoint):
			// A run that lost its pointer is refused, not played
			// from generation 0 again.
			if err := d.Unpointed(Best, g); err != nil {
				return nil, 0, "", err
			}
			p, err := net.NewParams(spec, seed)
			return p, 0, "fresh generation 0", err
		default:
			return nil, 0, "", err
		}
	}
	c, file, err := LoadNetwork(ckpt, g)
	if err != nil {
		return nil, 0, "", err
	}
	return c.Params, c.Generation, file, nil
}

// NewerBest returns the run's best checkpoint when its generation is
// above gen, else nil (also while the run has none). The pointer's target
// is identified from its header, so an unchanged best costs no load.
func (d Dir) NewerBest(g game.Game, gen int) (*checkpoints.Checkpoint, string, error) {
	path, err := d.Pointer(Best)
	if errors.Is(err, ErrNoCheckpoint) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	id, err := checkpoints.Identify(path)
	if err != nil {
		return nil, "", err
	}
	if id.Generation <= gen {
		return nil, "", nil
	}
	return LoadNetwork(path, g)
}

// RecordInit writes RUN/init for the network name names (a checkpoint
// file, run directory or shipped model), before the run's first
// checkpoint exists.
func (d Dir) RecordInit(name string) error {
	id, err := IdentifyNetwork(name)
	if err != nil {
		return fmt.Errorf("rundir: -init: %w", err)
	}
	rec := fmt.Sprintf("sha256 %x\nfrom %s\n", id.Sum, name)
	if err := atomicfile.WriteBytes(d.Init(), []byte(rec), 0o644); err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	return nil
}

// CheckInit reports whether the run, which has checkpoints, started from
// the network name names: resuming with the same -init is the same
// command, a different one (or one given to a run started fresh) an error.
func (d Dir) CheckInit(name string) error {
	id, err := IdentifyNetwork(name)
	if err != nil {
		return fmt.Errorf("rundir: -init: %w", err)
	}
	b, err := inputfile.ReadFile(d.Init(), "init record", maxPointerBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("rundir: -init %s: the run %s exists and started from a fresh network; resume it without -init", name, d)
	}
	if err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	want := fmt.Sprintf("sha256 %x\n", id.Sum)
	if !strings.HasPrefix(string(b), want) {
		first, _, _ := strings.Cut(string(b), "\n")
		return fmt.Errorf("rundir: -init %s (sha256 %x): the run %s started from another network (%s in %s); resume it without -init", name, id.Sum, d, first, d.Init())
	}
	return nil
}
