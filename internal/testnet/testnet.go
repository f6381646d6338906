// Package testnet writes small untrained networks for the tests of the
// packages that load them (players, the engine).
package testnet

import (
	"path/filepath"
	"testing"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/net"
)

// Checkpoint saves an untrained network of the game's preset, shrunk to
// one residual block of 8 filters, as dir/GAME.ckpt and returns its path.
func Checkpoint(t testing.TB, dir, game string, seed uint64) string {
	t.Helper()
	s, err := configs.PresetSpec(game)
	if err != nil {
		t.Fatal(err)
	}
	s.Blocks, s.Filters = 1, 8
	p, err := net.NewParams(s, seed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, game+".ckpt")
	if err := checkpoints.Save(path, &checkpoints.Checkpoint{Params: p}); err != nil {
		t.Fatal(err)
	}
	return path
}
