package rundir

import (
	"errors"
	"fmt"
	"os"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
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

// LoadNetwork loads the checkpoint a file or run directory names
// (ResolveCheckpoint) and checks it was made for g with g's current
// encoder. It returns the checkpoint and its file's path.
func LoadNetwork(path string, g game.Game) (*checkpoints.Checkpoint, string, error) {
	file, err := ResolveCheckpoint(path)
	if err != nil {
		return nil, "", err
	}
	c, err := checkpoints.LoadFor(file, g.Name, g.Encoder.Version())
	if err != nil {
		return nil, "", err
	}
	return c, file, nil
}

// LoadPlayable loads the checkpoint a file or run directory names for
// playing g, whichever of g's encoders it was made with, and returns g
// with that encoder, so that networks of any of g's encodings play.
func LoadPlayable(path string, g game.Game) (*checkpoints.Checkpoint, string, game.Game, error) {
	file, err := ResolveCheckpoint(path)
	if err != nil {
		return nil, "", game.Game{}, err
	}
	c, err := checkpoints.LoadGame(file, g.Name)
	if err != nil {
		return nil, "", game.Game{}, err
	}
	if g, err = g.WithEncoder(c.Params.Spec.EncoderVersion); err != nil {
		return nil, "", game.Game{}, fmt.Errorf("%s: %w", file, err)
	}
	return c, file, g, nil
}

// FreshParams builds the config's network with the config's seed: the
// generation-0 network, the same in the trainer and every worker.
func FreshParams(cfg *configs.Config) (*net.Params, error) {
	spec, err := configs.NetSpec(cfg)
	if err != nil {
		return nil, err
	}
	return net.NewParams(spec, cfg.Seed)
}

// Network is what a self-play worker plays with: the checkpoint file or
// run directory ckpt when given, else the run's best network, else (a new
// run) the generation-0 network. It returns the parameters, their
// generation and where they came from.
func (d Dir) Network(cfg *configs.Config, ckpt string) (*net.Params, int, string, error) {
	g, err := cfg.LookupGame()
	if err != nil {
		return nil, 0, "", err
	}
	if ckpt == "" {
		_, err := d.Pointer(Best)
		switch {
		case err == nil:
			ckpt = string(d)
		case errors.Is(err, ErrNoCheckpoint):
			p, err := FreshParams(cfg)
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
