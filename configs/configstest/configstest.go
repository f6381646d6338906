// Package configstest holds configs for tests.
package configstest

import (
	"testing"

	"github.com/tabula-zero/tabula/configs"
)

// TinyConnectFour is the Connect Four preset shrunk so that a training run
// takes generations of seconds: a 1x8 network, 8 simulations, small
// shards, window and batches, no gate and no evaluation.
func TinyConnectFour(t testing.TB) *configs.Config {
	t.Helper()
	cfg, err := configs.Preset("connect4")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Network.Blocks, cfg.Network.Filters, cfg.Network.ValueHidden = 1, 8, 8
	cfg.Search.Simulations = 8
	// The preset's random starts (up to 20 plies) can play a whole short
	// game without a search; the tests here watch searched games.
	cfg.SelfPlay.OpeningPliesMax = 0
	cfg.SelfPlay.ParallelGames, cfg.SelfPlay.BatchSize, cfg.SelfPlay.ShardSamples = 8, 8, 100
	cfg.Replay.Window, cfg.Replay.MinSamples = 2000, 200
	cfg.Training.BatchSize, cfg.Training.StepsPerGeneration, cfg.Training.SampleRatio = 16, 10, 1
	cfg.Gating.Matches = nil
	cfg.Evaluation = configs.Evaluation{}
	return cfg
}
