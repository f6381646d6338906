// Package testnet writes small untrained networks for the tests of the
// packages that load them (players, the engine).
package testnet

import (
	"fmt"
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
	return CheckpointEncoder(t, dir, game, 0, seed)
}

// CheckpointWDL is Checkpoint with the win/draw/loss value head, saved
// as dir/GAME-wdl.ckpt.
func CheckpointWDL(t testing.TB, dir, game string, seed uint64) string {
	t.Helper()
	return save(t, dir, game, 0, seed, net.ValueWDL, game+"-wdl.ckpt")
}

// CheckpointEncoder is Checkpoint for the game's encoder of version v
// (0: the preset's), saved as dir/GAME-vV.ckpt for v > 0. An encoder
// without an action for every pair of squares gets the dense policy head
// where the preset has the from-to head.
func CheckpointEncoder(t testing.TB, dir, game string, v int, seed uint64) string {
	t.Helper()
	name := game + ".ckpt"
	if v > 0 {
		name = fmt.Sprintf("%s-v%d.ckpt", game, v)
	}
	return save(t, dir, game, v, seed, "", name)
}

// save writes the shrunk preset network of encoder v with the value head
// valueHead as dir/name.
func save(t testing.TB, dir, game string, v int, seed uint64, valueHead, name string) string {
	t.Helper()
	cfg, err := configs.Preset(game)
	if err != nil {
		t.Fatal(err)
	}
	if v != 0 && v != cfg.Network.EncoderVersion {
		cfg.Network.EncoderVersion = v
		cfg.Network.PolicyHead = ""
		cfg.Network.PolicyChannels = min(cfg.Network.PolicyChannels, 4) // a small dense layer
	}
	s, err := configs.NetSpec(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.Blocks, s.Filters, s.ValueHead = 1, 8, valueHead
	p, err := net.NewParams(s, seed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := checkpoints.Save(path, &checkpoints.Checkpoint{Params: p}); err != nil {
		t.Fatal(err)
	}
	return path
}
