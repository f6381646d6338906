package configs_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tabula-zero/tabula/arena/measure"
	_ "github.com/tabula-zero/tabula/arena/measure/all"
	"github.com/tabula-zero/tabula/configs"
)

var update = flag.Bool("update", false, "rewrite docs/config.md from the option table and the measures' sections")

// docs/config.md is what the table and the registered measures' sections
// generate (this test links every measure; package configs links none).
func TestConfigReference(t *testing.T) {
	path := filepath.Join("..", "docs", "config.md")
	want := configs.Reference(measure.Sections()...)
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the option table (%v); regenerate it: go test ./configs -run TestConfigReference -update", path, err)
	}
}

// Each measure's section declares every key of the shape once, with help,
// a default of the key's type or Required, and what it may hold; every
// preset's sections pass their measures' checks.
func TestMeasureSections(t *testing.T) {
	types := map[string]reflect.Type{}
	for _, o := range configs.SetShape {
		types[o.Path] = reflect.TypeOf(o.Default)
	}
	types["simulations"] = reflect.TypeFor[[]int]()
	for _, sp := range measure.Sections() {
		seen := map[string]bool{}
		for _, o := range sp.Options {
			ft, ok := types[o.Path]
			if !ok || seen[o.Path] {
				t.Errorf("%s: the row %q is no key of a section, or twice", sp.Key, o.Path)
			}
			seen[o.Path] = true
			if o.Help == "" || (o.Default == nil) == !o.Required {
				t.Errorf("%s.%s: want help and a default or Required", sp.Key, o.Path)
			}
			if o.Default != nil && reflect.TypeOf(o.Default) != ft {
				t.Errorf("%s.%s: default is a %T, the field a %s", sp.Key, o.Path, o.Default, ft)
			}
			if o.Range == nil && o.Values == nil && o.Rule == "" {
				t.Errorf("%s.%s: says nothing of what it may hold", sp.Key, o.Path)
			}
		}
		if len(seen) != len(types) {
			t.Errorf("%s declares %d of the %d keys", sp.Key, len(seen), len(types))
		}
	}
	for _, g := range []string{"connect4", "lion", "xiangqi", "xiangqi-zero"} {
		c, err := configs.Preset(g)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Evaluation.Sections()) != 1 {
			t.Errorf("preset %s: %d position-set sections", g, len(c.Evaluation.Sections()))
		}
		if err := measure.CheckConfig(c); err != nil {
			t.Errorf("preset %s: %v", g, err)
		}
	}
}

// The measures' own checks: Pons' sets and positions, and each section
// for its game.
func TestMeasureChecks(t *testing.T) {
	for _, c := range []struct{ game, section, want string }{
		{"connect4", "pons: {set: Test_L9, positions: 2000, simulations: [0]}", `evaluation.pons.set = "Test_L9" is not`},
		{"connect4", "pons: {set: Test_L2_R1, positions: 2000, simulations: [0]}", "evaluation.pons.positions = 2000 is outside [1, 1000]"},
		{"lion", "pons: {set: Test_L2_R1, positions: 10, simulations: [0]}", "evaluation.pons: its positions are connect4's, not lion's"},
		{"connect4", "lion_oracle: {positions: 10, simulations: [0]}", "its positions are lion's, not connect4's"},
		{"xiangqi", "xiangqi_set: {set: other, simulations: [0]}", `evaluation.xiangqi_set.set = "other" is not ""`},
		{"connect4", "ponz: {set: Test_L2_R1, positions: 10, simulations: [0]}", "evaluation.ponz: no position-set measure has this section"},
	} {
		c4, err := configs.Parse([]byte("game: "+c.game+"\nevaluation: {every: 5m, "+c.section+"}\n"), "cfg.yaml")
		if err != nil {
			t.Fatalf("%s: %v", c.section, err)
		}
		if err := measure.CheckConfig(c4); err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%s for %s: %v, want %q", c.section, c.game, err, c.want)
		}
	}
}
