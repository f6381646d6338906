package configs

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A retired key at its off value loads as if it were absent and is named
// in Retired; at another value it is an error that names the key and
// where to read why it went.
func TestRetiredKeys(t *testing.T) {
	base := presetBefore(t, "connect4")
	// at returns the preset with the line anchor replaced by format with
	// the key and its value ("" for none) in place of %s.
	at := func(anchor, format string) func(kv string) string {
		return func(kv string) string {
			if !strings.Contains(string(base), anchor+"\n") {
				t.Fatalf("the preset has no line %q", anchor)
			}
			return strings.Replace(string(base), anchor+"\n", strings.ReplaceAll(format, "%s", kv)+"\n", 1)
		}
	}
	// line puts the key on a line of its own after anchor, in a block
	// mapping.
	line := func(anchor string) func(string) string {
		return func(kv string) string {
			if kv == "" {
				return string(base)
			}
			return at(anchor, anchor+"\n  %s")(kv)
		}
	}
	gate := at("  matches: []", "  matches: [{opponent: best, games: 2, simulations: 8, threshold: 0.55%s}]")
	eval := at("    - {opponent: random, games: 20, simulations: 0}", "    - {opponent: random, games: 20, simulations: 0%s}")
	abzero := at("  shard_samples: 2000", "  shard_samples: 2000\n  abzero: {generations: 5, depth: 2, m: \"1\"%s}")
	for _, c := range []struct {
		name    string // as Retired and the error name it
		text    func(kv string) string
		off, on string
	}{
		{"search.forced_playouts", line("  fast_simulations: 16"), "forced_playouts: 0", "forced_playouts: 2"},
		{"search.discount", line("  fast_simulations: 16"), "discount: 1", "discount: 0.97"},
		{"network.reply_head", line("  value_hidden: 32"), "reply_head: false", "reply_head: true"},
		{"training.reply_weight", line("  momentum: 0.9"), "reply_weight: 0", "reply_weight: 0.15"},
		{"replay.window_grow_from", line("  min_samples: 2000"), "window_grow_from: 0", "window_grow_from: 20000"},
		{"selfplay.abzero.options", abzero, ", options: classic", ", options: game"},
		{"selfplay.abzero.played_weight", abzero, ", played_weight: 0", ", played_weight: 0.5"},
		{"selfplay.abzero.expert_temperature", abzero, ", expert_temperature: 0", ", expert_temperature: 1"},
		{"gating.every", line("gating:"), "every: 1", "every: 4"},
		{"gating.matches[0].candidate", gate, ", candidate: net", ", candidate: \"abzero:m=1,depth=2\""},
		{"evaluation.matches[0].candidate", eval, ", candidate: \"\"", ", candidate: \"abzero:m=1,depth=2\""},
		{"selfplay.resign_threshold", line("  shard_samples: 2000"), "resign_threshold: 0", "resign_threshold: -0.9"},
		{"selfplay.resign_off_share", line("  shard_samples: 2000"), "resign_off_share: 0.1", "resign_off_share: 2"},
		{"selfplay.discount_floor", line("  shard_samples: 2000"), "discount_floor: 0", "discount_floor: 0.5"},
		{"gating.matches[0].sprt", gate, ", sprt: null", ", sprt: {elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05}"},
		{"evaluation.matches[0].sprt", eval, ", sprt: null", ", sprt: {elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05}"},
	} {
		want, err := Parse([]byte(c.text("")), "without.yaml")
		if err != nil {
			t.Fatalf("%s: the config without the key: %v", c.name, err)
		}
		cfg, err := Parse([]byte(c.text(c.off)), "off.yaml")
		if err != nil {
			t.Errorf("%s at its off value: %v", c.name, err)
			continue
		}
		if !slices.Equal(cfg.Retired, []string{c.name}) {
			t.Errorf("%s at its off value: retired %q", c.name, cfg.Retired)
		}
		cfg.Retired = nil
		if !reflect.DeepEqual(cfg, want) {
			t.Errorf("%s at its off value changed the config:\n%s", c.name, cfg.Marshal())
		}
		_, err = Parse([]byte(c.text(c.on)), "on.yaml")
		if err == nil || !strings.Contains(err.Error(), "on.yaml: "+c.name+" = ") || !strings.Contains(err.Error(), "docs/retired.md") {
			t.Errorf("%s switched on: %v", c.name, err)
		}
	}
}

// A run frozen before the retirements (testdata: the sealed Xiangqi
// preset as the build before them wrote it, which spells out every key)
// loads, names the retired keys it had, and is the config its text is
// without them: the run resumes as it was.
func TestFrozenBeforeRetirement(t *testing.T) {
	b, err := os.ReadFile("testdata/frozen-before-retirement.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(b, "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"evaluation.matches[0].candidate", "evaluation.matches[1].candidate", "evaluation.matches[2].candidate",
		"evaluation.matches[3].candidate", "gating.matches[0].candidate", "selfplay.resign_threshold", "selfplay.resign_off_share"}
	if got := slices.Sorted(slices.Values(c.Retired)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("retired %q, want %q", c.Retired, want)
	}
	var kept []string
	for i, l := range strings.Split(string(b), "\n") {
		if i > 0 && !strings.Contains(l, "resign_") && !strings.Contains(l, "candidate: ") {
			kept = append(kept, l)
		}
	}
	stripped, err := Parse([]byte(strings.Join(kept, "\n")), "stripped.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Retired = nil
	// That build left selfplay.precision out at fp32 (""): sealed, it
	// reads so; unsealed, the stripped text takes today's default.
	if c.SelfPlay.Precision != "" || stripped.SelfPlay.Precision != "auto" {
		t.Errorf("selfplay.precision %q sealed, %q stripped; want \"\" and auto", c.SelfPlay.Precision, stripped.SelfPlay.Precision)
	}
	stripped.SelfPlay.Precision = ""
	// Nor did it know training.keep_checkpoints: sealed, the run keeps
	// every checkpoint as it did; unsealed, the default.
	if c.Training.KeepCheckpoints != 0 || stripped.Training.KeepCheckpoints != 3 {
		t.Errorf("training.keep_checkpoints %d sealed, %d stripped; want 0 and 3", c.Training.KeepCheckpoints, stripped.Training.KeepCheckpoints)
	}
	stripped.Training.KeepCheckpoints = 0
	if !reflect.DeepEqual(c, stripped) {
		t.Errorf("the frozen config reads as\n%s\nwithout its retired keys it is\n%s", c.Marshal(), stripped.Marshal())
	}
	if c.Game != "xiangqi" || c.SelfPlay.ABZero.TeacherGenerations != 1000 || len(c.Evaluation.Matches) != 4 {
		t.Errorf("read as %+v", c)
	}
}
