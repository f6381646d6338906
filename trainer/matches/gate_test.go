package matches

import (
	"testing"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/configs/configstest"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/rundir"
)

// The gate's players search with the run's constants (c_init, c_base,
// FPU, Gumbel and gumbel_m, the solver), not the defaults.
func TestGateUsesRunSearch(t *testing.T) {
	cfg := configstest.TinyConnectFour(t)
	cfg.Search.CInit, cfg.Search.CBase, cfg.Search.FPUReduction = 2.5, 500, 0.1
	cfg.Search.Kind, cfg.Search.GumbelM, cfg.Search.Solver = "gumbel", 5, false
	cfg.Gating.Matches = []configs.GateMatch{{Opponent: "best", Games: 2, Simulations: 4}}
	p, err := rundir.FreshParams(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, b, err := gatePlayers(cfg.Game, player.RunSearch(cfg.Search), 0, cfg.Gating.Matches[0], p, 2, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := player.RunSearch(cfg.Search)
	if want == mcts.DefaultConfig() {
		t.Fatal("the test config equals the defaults")
	}
	for _, s := range []*arena.Spec{a, b} {
		if got := s.SearchConfig(); got != want {
			t.Errorf("%s searches with %+v, want the run's %+v", s.Name(), got, want)
		}
	}
}
