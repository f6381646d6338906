package configs

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/net/infer"
)

func TestPresets(t *testing.T) {
	for _, g := range []string{"connect4", "lion", "xiangqi", "xiangqi-zero"} {
		c, err := Preset(g)
		if err != nil {
			t.Fatal(err)
		}
		if game, _, _ := strings.Cut(g, "-"); c.Game != game {
			t.Errorf("preset %s names game %s", g, c.Game)
		}
		back, err := Parse(c.Marshal(), "canonical")
		if err != nil || !reflect.DeepEqual(back, c) {
			t.Fatalf("%s: canonical form does not round-trip: %v", g, err)
		}
	}
	if _, err := Preset("chess"); err == nil {
		t.Fatal("preset for an unknown game")
	}
	// The rules-only preset is the Xiangqi preset without its teacher,
	// with a cosine as long as its slower self-play feeds in the same CPU
	// time and the ladder's lowest rungs as its anchors.
	xq, _ := Preset("xiangqi")
	zero, _ := Preset("xiangqi-zero")
	if xq.SelfPlay.ABZero.TeacherGenerations == 0 || !reflect.DeepEqual(zero.SelfPlay.ABZero, SelfPlayABZero{}) {
		t.Fatalf("teacher: xiangqi %+v, xiangqi-zero %+v", xq.SelfPlay.ABZero, zero.SelfPlay.ABZero)
	}
	if zero.Training.TotalSteps >= xq.Training.TotalSteps {
		t.Errorf("xiangqi-zero's cosine (%d steps) is not shorter than the teacher's (%d)", zero.Training.TotalSteps, xq.Training.TotalSteps)
	}
	xq.SelfPlay.ABZero = SelfPlayABZero{}
	xq.Training.TotalSteps, xq.Evaluation = zero.Training.TotalSteps, zero.Evaluation
	if !reflect.DeepEqual(xq, zero) {
		t.Errorf("xiangqi-zero differs from xiangqi beyond the teacher:\n%s\n%s", xq.Marshal(), zero.Marshal())
	}
}

func TestErrors(t *testing.T) {
	base := presetBefore(t, "connect4")
	for _, c := range []struct {
		edit func(string) string
		want []string
	}{
		{func(s string) string { return strings.Replace(s, "  filters: 32", "  filters: 32\n  filtres: 3", 1) }, []string{"filtres", "cfg.yaml"}},
		{func(s string) string {
			return strings.Replace(s, "simulations: 100\n  kind", "simulations: many\n  kind", 1)
		}, []string{"many", "cfg.yaml"}},
		{func(s string) string { return strings.Replace(s, "  momentum: 0.9", "  momentum: 1.5", 1) }, []string{"training.momentum = 1.5", "cfg.yaml"}},
		{func(s string) string { return strings.Replace(s, "  ops: fast", "  ops: turbo", 1) }, []string{"training.ops", "turbo"}},
		{func(s string) string { return strings.Replace(s, "kind: puct", "kind: alphazero", 1) }, []string{"search.kind", "alphazero"}},
		{func(s string) string { return strings.Replace(s, "game: connect4", "game: go", 1) }, []string{"unknown game", "go"}},
		{func(s string) string { return strings.Replace(s, "rules: {}", "rules: {TryRule: safe}", 1) }, []string{"rules", "TryRule"}},
		{func(s string) string {
			return strings.Replace(s, "  matches: []", "  matches: [{opponent: best, games: 41, simulations: 64, threshold: 0.55}]", 1)
		}, []string{"gating.matches[0].games = 41", "even"}},
		{func(s string) string { return strings.Replace(s, "rates: [0.01, 0.002]", "rates: [0.01]", 1) }, []string{"training.boundaries has 2 entries"}},
		{func(s string) string {
			return strings.Replace(s, "  shard_samples: 2000", "  shard_samples: 2000\n  abzero: {generations: 5, depth: 0, m: \"linear:1,2\"}", 1)
		}, []string{"selfplay.abzero.depth = 0"}}, // m's hook: TestHookOfSelfPlay
		{func(s string) string {
			return strings.Replace(s, "  precision: auto", "  precision: fp16", 1)
		}, []string{"selfplay.precision", "fp16", "int8"}},
		{func(s string) string {
			return strings.Replace(s, "  shard_samples: 2000", "  shard_samples: 2000\n  abzero: {generations: 5, dept: 2}", 1)
		}, []string{"dept", "cfg.yaml"}},
		{func(s string) string {
			return strings.Replace(s, "  shard_samples: 2000", "  shard_samples: 2000\n  abzero: {generations: 5, depth: 2, m: \"1\", teacher_generations: 6}", 1)
		}, []string{"selfplay.abzero.teacher_generations = 6", "selfplay.abzero.teacher_temperature = 0"}},
		{func(s string) string {
			return withoutEvaluation(s) + "evaluation: {every: 5m, matches: [{opponent: best, games: 3, simulations: 8}]}\n"
		},
			[]string{"evaluation.matches[0].opponent = best", "evaluation.matches[0].games = 3"}},
		{func(s string) string {
			return withoutEvaluation(s) + "evaluation: {every: 500ms, matches: [{opponent: random, games: 2, simulations: 0}]}\n"
		},
			[]string{"evaluation.every = 500ms"}},
		{func(s string) string { return withoutEvaluation(s) + "evaluation: {every: soon}\n" }, []string{"soon", "cfg.yaml"}},
		{func(s string) string { return withoutEvaluation(s) + "evaluation: {every: 5m}\n" }, []string{"neither matches nor a position-set section"}},
		{func(s string) string {
			return withoutEvaluation(s) + "evaluation: {every: 5m, pons: {set: Test_L9, positions: 2000, simulations: []}}\n"
		}, []string{"evaluation.pons.simulations is empty"}},
		{func(s string) string {
			return strings.Replace(s, "  schedule: piecewise", "  schedule: cosine\n  min_learning_rate: 0.5", 1)
		}, []string{"training.min_learning_rate = 0.5", "training.total_steps = 0"}},
		{func(s string) string {
			return strings.Replace(s, "  schedule: piecewise", "  schedule: piecewise\n  min_learning_rate: 0.001", 1)
		}, []string{"training.min_learning_rate is for the cosine schedule"}},
		{func(s string) string {
			return strings.Replace(s, "  discount: 0.97", "  discount: 0.1", 1)
		}, []string{"selfplay.discount = 0.1"}},
		{func(s string) string {
			return strings.Replace(s, "  opening_plies_max: 20", "  opening_plies: 4\n  opening_plies_max: 3", 1)
		}, []string{"selfplay.opening_plies_max = 3 is outside [4, 100]"}},
		{func(s string) string {
			return strings.Replace(s, "  value_hidden: 32", "  value_hidden: 32\n  encoder_version: 5", 1)
		}, []string{"network.encoder_version: game: connect4 has no encoder version 5"}},
		{func(s string) string {
			return strings.Replace(s, "  value_hidden: 32", "  value_hidden: 32\n  policy_head: fromto", 1)
		}, []string{"network.policy_head = fromto needs an encoder with an action for every pair of squares; connect4's encoder 1 has 7 actions for 42 squares"}},
		{func(s string) string {
			return strings.Replace(s, "  value_hidden: 32", "  value_hidden: 32\n  policy_head: attention", 1)
		}, []string{`network.policy_head = "attention" is not fromto`}},
		{func(s string) string {
			return strings.Replace(s, "  value_hidden: 32", "  value_hidden: 32\n  value_head: categorical", 1)
		}, []string{`network.value_head = "categorical" is not wdl`}},
		{func(string) string { return "" }, []string{"empty"}},
		// Cut short after a section header or a key: no silent zero
		// values (a key left out takes its default).
		{func(s string) string { return s[:strings.Index(s, "gating:")+len("gating:\n")] }, []string{"gating has no value"}},
		{func(s string) string { return s[:strings.Index(s, "gating:")] + "gating: {matches: }\n" }, []string{"gating.matches has no value"}},
		{func(s string) string { return strings.Replace(s, "seed: 1\n", "seed:\n", 1) }, []string{"seed has no value"}},
		{func(s string) string {
			return withoutEvaluation(s) + "evaluation: {every: 5m, pons: {set: Test_L2_R1, positions: , simulations: [0]}}\n"
		}, []string{"evaluation.pons.positions has no value"}},
		{func(s string) string { return strings.Replace(s, "game: connect4\n", "", 1) }, []string{"missing game"}},
	} {
		path := filepath.Join(t.TempDir(), "cfg.yaml")
		os.WriteFile(path, []byte(c.edit(string(base))), 0o644)
		_, err := Load(path)
		if err == nil {
			t.Errorf("accepted; want an error with %q", c.want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not mention %q", err, w)
			}
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("missing file accepted")
	}
}

// The evaluation section reads as written and survives the canonical
// form (its interval as a duration); a position-set section is read under
// whatever key, in its shape, which Validate checks whatever the program
// links.
func TestEvaluationSection(t *testing.T) {
	base := presetBefore(t, "connect4")
	text := withoutEvaluation(string(base)) + "evaluation:\n  every: 5m\n  matches:\n    - {opponent: \"ab:depth=4\", games: 20, simulations: 64}\n" +
		"  pons: {set: Test_L2_R1, positions: 500, simulations: [0, 64]}\n"
	c, err := Parse([]byte(text), "eval.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := c.Evaluation
	if p := e.Set("pons"); e.Every != 5*time.Minute || len(e.Matches) != 1 || e.Matches[0].Opponent != "ab:depth=4" || p == nil ||
		p.Positions != 500 || !reflect.DeepEqual(p.Simulations, []int{0, 64}) || len(e.Sections()) != 1 {
		t.Fatalf("evaluation read as %+v", e)
	}
	back, err := Parse(c.MarshalSealed(), "sealed")
	if err != nil || !reflect.DeepEqual(back, c) {
		t.Fatalf("evaluation does not round-trip: %v\n%s", err, c.Marshal())
	}
	// positions defaults to 0 (all); a section without simulations, with
	// a fraction or outside the shape's ranges is refused by Parse.
	lion := presetBefore(t, "lion")
	c, err = Parse([]byte(withoutEvaluation(string(lion))+"evaluation: {every: 5m, matches: [{opponent: random, games: 2}], lion_oracle: {simulations: [0, 32]}}\n"), "lion.yaml")
	if o := c.Evaluation.Set("lion_oracle"); err != nil || o == nil || o.Positions != 0 || !reflect.DeepEqual(o.Simulations, []int{0, 32}) {
		t.Fatalf("lion_oracle read as %+v: %v", o, err)
	}
	if back, err := Parse(c.MarshalSealed(), "sealed"); err != nil || !reflect.DeepEqual(back, c) {
		t.Fatalf("lion_oracle does not round-trip: %v\n%s", err, c.Marshal())
	}
	_, err = Parse([]byte(withoutEvaluation(string(base))+"evaluation: {every: 5m, lion_oracle: {positions: -1, simulations: []}}\n"), "c4.yaml")
	if err == nil || !strings.Contains(err.Error(), "evaluation.lion_oracle.positions = -1 is outside [0, 100000]") || !strings.Contains(err.Error(), "lion_oracle.simulations is empty") {
		t.Fatalf("a section out of its shape: %v", err)
	}
	_, err = Parse([]byte(withoutEvaluation(string(base))+"evaluation: {every: 5m, pons: {set: Test_L2_R1, positions: 10, colour: red, simulations: [0]}}\n"), "c4.yaml")
	if err == nil || !strings.Contains(err.Error(), "colour") {
		t.Fatalf("an unknown key in a section: %v", err)
	}
}

// CheckSets holds the sections to their measures' declarations: an
// undeclared key, another game and a value outside the measure's rows
// are refused by key.
func TestCheckSets(t *testing.T) {
	specs := []SetSpec{{Key: "demo", Game: "connect4", Options: []Option{
		{Path: "set", Required: true, Values: []string{"a", "b"}, Help: "h"},
		{Path: "positions", Required: true, Range: in(1, 10), Help: "h"},
		{Path: "simulations", Required: true, Range: in(0, 8), Help: "h"},
	}}}
	base := withoutEvaluation(string(presetBefore(t, "connect4")))
	for _, c := range []struct {
		section string
		want    []string
	}{
		{"demo: {set: a, positions: 10, simulations: [0, 8]}", nil},
		{"demo: {set: c, positions: 11, simulations: [0, 9]}", []string{`evaluation.demo.set = "c" is not a or b`, "evaluation.demo.positions = 11 is outside [1, 10]", "evaluation.demo.simulations[1] = 9 is outside [0, 8]"}},
		{"demo: {positions: 1, simulations: [0]}", []string{"evaluation.demo.set is missing"}},
		{"dmeo: {set: a, positions: 1, simulations: [0]}", []string{"evaluation.dmeo: no position-set measure has this section (they are demo)"}},
	} {
		cfg, err := Parse([]byte(base+"evaluation: {every: 5m, "+c.section+"}\n"), "c4.yaml")
		if err != nil {
			t.Fatalf("%s: %v", c.section, err)
		}
		err = cfg.CheckSets(specs)
		if (err == nil) != (c.want == nil) {
			t.Fatalf("%s: %v", c.section, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want %q", c.section, err, w)
			}
		}
	}
	cfg, err := Parse([]byte(withoutEvaluation(string(presetBefore(t, "lion")))+"evaluation: {every: 5m, demo: {set: a, positions: 1, simulations: [0]}}\n"), "lion.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.CheckSets(specs); err == nil || !strings.Contains(err.Error(), "evaluation.demo: its positions are connect4's, not lion's") {
		t.Fatalf("a section of another game: %v", err)
	}
}

// withoutEvaluation cuts a preset's evaluation section (its last).
func withoutEvaluation(s string) string { return s[:strings.Index(s, "# The learning benchmark")] }

// A sealed config (a run's frozen copy) reads back, and a copy cut short
// or changed is rejected even where the rest would still parse.
func TestSealed(t *testing.T) {
	c, err := Preset("lion")
	if err != nil {
		t.Fatal(err)
	}
	sealed := c.MarshalSealed()
	back, err := Parse(sealed, "sealed")
	if err != nil || !reflect.DeepEqual(back, c) {
		t.Fatalf("sealed config does not round-trip: %v", err)
	}
	for name, damaged := range map[string]string{
		"cut after a match":     string(sealed[:strings.LastIndex(string(sealed), "    - opponent")]),
		"edited":                strings.Replace(string(sealed), "seed: 1", "seed: 2", 1),
		"checksum line flipped": strings.Replace(string(sealed), "sha256:", "sha256:0", 1),
	} {
		if _, err := Parse([]byte(damaged), "config.yaml"); err == nil || !strings.Contains(err.Error(), "checksum") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Xiangqi's version-4 encoder has an action for every pair of its 90
// squares, which the from-to head needs; the config names both and the
// spec follows.
func TestFromToHead(t *testing.T) {
	c, err := Preset("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	c.Network.EncoderVersion, c.Network.PolicyHead = 4, "fromto"
	back, err := Parse(c.Marshal(), "canonical")
	if err != nil || !reflect.DeepEqual(back, c) {
		t.Fatalf("the from-to config does not round-trip: %v", err)
	}
	s, err := NetSpec(back)
	if err != nil {
		t.Fatal(err)
	}
	if s.PolicyHead != "fromto" || s.Actions != 90*90 || s.EncoderVersion != 4 {
		t.Errorf("spec %+v", s)
	}
}

// network.value_head: wdl round-trips through the config's text and
// reaches the spec, for every game; no preset sets it (the scalar head
// stays the default until matches have measured the other), and a head
// the network does not know is refused by name (TestErrors).
func TestValueHead(t *testing.T) {
	for _, name := range []string{"connect4", "lion", "xiangqi"} {
		c, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if c.Network.ValueHead != "" {
			t.Errorf("the %s preset sets value_head %q", name, c.Network.ValueHead)
		}
		c.Network.ValueHead = "wdl"
		back, err := Parse(c.Marshal(), "canonical")
		if err != nil || !reflect.DeepEqual(back, c) {
			t.Fatalf("%s: the WDL config does not round-trip: %v", name, err)
		}
		s, err := NetSpec(back)
		if err != nil {
			t.Fatal(err)
		}
		if !s.WDLHead() {
			t.Errorf("%s: spec %+v has no WDL head", name, s)
		}
	}
}

// A config for a game the build does not know says so first, not that
// the sections such a game would need are missing.
func TestUnknownGameFirst(t *testing.T) {
	for _, text := range []string{"game: chess\n", "game: chess\nseed: 1\nnetwork: {blocks: 2}\n"} {
		_, err := Parse([]byte(text), "chess.yaml")
		want := `configs: chess.yaml: game: unknown game "chess" (known: connect4, lion, xiangqi)`
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", text, err, want)
		}
	}
	// Without a game key the missing sections are the error.
	if _, err := Parse([]byte("seed: 1\n"), "none.yaml"); err == nil || !strings.Contains(err.Error(), "missing game") {
		t.Errorf("no game: %v", err)
	}
}

// The precisions a config may name are the ones net/infer builds.
func TestPrecisionsAreInfers(t *testing.T) {
	if !slices.Equal(Precisions, infer.Precisions) {
		t.Errorf("configs.Precisions %v, infer.Precisions %v", Precisions, infer.Precisions)
	}
}
