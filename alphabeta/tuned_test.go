package alphabeta_test

import (
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all"
)

// Every feature a game's AlphaBetaTuned capability names is one Set
// knows, and DefaultOptionsFor turns exactly those on: a misspelt name
// would otherwise leave the feature off unnoticed.
func TestTunedFeaturesKnown(t *testing.T) {
	tuned := game.WithCapability[game.AlphaBetaTuned]()
	if len(tuned) == 0 {
		t.Fatal("no registered game names alpha-beta features")
	}
	for _, g := range tuned {
		c, _ := game.Capability[game.AlphaBetaTuned](g)
		want := alphabeta.DefaultOptions()
		for _, f := range c.AlphaBetaFeatures() {
			if err := want.Set(f, true); err != nil {
				t.Errorf("%s: %v", g.Name, err)
			}
		}
		if got := alphabeta.DefaultOptionsFor(g.Name); got != want {
			t.Errorf("%s: DefaultOptionsFor = %+v, want %+v", g.Name, got, want)
		}
		if want == alphabeta.DefaultOptions() {
			t.Errorf("%s: its tuned features change nothing", g.Name)
		}
	}
}
