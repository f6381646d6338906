package player

import (
	"reflect"
	"testing"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/mcts"
)

// RunSearch sets every constant of mcts.Config from the section but the
// two the run config does not hold: a constant added to both and not
// mapped fails here.
func TestRunSearchReadsTheSection(t *testing.T) {
	notInConfig := map[string]bool{"CVisit": true, "CScale": true}
	def := mcts.DefaultConfig()
	// Every value off its default.
	s := configs.Search{Kind: SearchGumbel, CInit: 2, CBase: 3, FPUReduction: 0.5, DirichletAlpha: 0.7,
		NoiseEpsilon: 0.1, GumbelM: 5, Solver: !def.Solver, ProvenTargets: !def.ProvenTargets}
	got, d := reflect.ValueOf(RunSearch(s)), reflect.ValueOf(def)
	for i := range got.NumField() {
		name := got.Type().Field(i).Name
		if same := got.Field(i).Equal(d.Field(i)); same != notInConfig[name] {
			t.Errorf("mcts.Config.%s: %v from the section, default %v", name, got.Field(i), d.Field(i))
		}
	}
}

// The presets search as they did when selfplay.MCTSConfig mapped their
// sections (the values below were its output): neither moving the mapping
// here nor a change of the table's defaults changes a preset's search.
func TestPresetsSearchAsBefore(t *testing.T) {
	base := mcts.Config{CInit: 1.25, CBase: 19652, FPUReduction: 0.25, NoiseEpsilon: 0.25, Solver: true, CVisit: 50, CScale: 0.1}
	with := func(alpha float64, gumbel bool, m int, proven bool) mcts.Config {
		c := base
		c.NoiseAlpha, c.Gumbel, c.GumbelM, c.ProvenTargets = alpha, gumbel, m, proven
		return c
	}
	for name, want := range map[string]mcts.Config{
		"connect4":     with(1, false, 7, true),
		"lion":         with(0.5, false, 16, true),
		"xiangqi":      with(0.3, true, 16, false),
		"xiangqi-zero": with(0.3, true, 16, false),
	} {
		c, err := configs.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := RunSearch(c.Search); got != want {
			t.Errorf("preset %s searches with\n%+v, before with\n%+v", name, got, want)
		}
	}
}

// One set of defaults: the option table's search rows, mapped, are
// mcts.DefaultConfig, the constants the engine, the arena and the Play
// page start from, and the search knobs' defaults are the same values. A
// default changed on one side only fails here.
func TestRunSearchDefaults(t *testing.T) {
	def := mcts.DefaultConfig()
	if got := RunSearch(configs.Defaults().Search); got != def {
		t.Errorf("the option table's search defaults map to\n%+v, mcts.DefaultConfig is\n%+v", got, def)
	}
	if got := Default(KindNet, "connect4").MCTS; got != def {
		t.Errorf("a net: spec's defaults search with %+v, not mcts.DefaultConfig", got)
	}
	for knob, want := range map[string]float64{KnobCInit: def.CInit, KnobFPU: def.FPUReduction} {
		if got := DefaultFloat(knob); got != want {
			t.Errorf("knob %s defaults to %v, mcts to %v", knob, got, want)
		}
	}
	if got, want := Lookup(KnobSearch).Default, configs.Defaults().Search.Kind; got != want {
		t.Errorf("knob search defaults to %s, the option table to %s", got, want)
	}
}
