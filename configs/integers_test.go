package configs

import (
	"math"
	"strings"
	"testing"
)

// An integer field takes integers of its type only: a fraction or a
// number past the type's range is an error naming the line and the key,
// where the YAML decoder alone truncates (8.5 to 8) or wraps (2^64 to
// 2^63) without a word.
func TestIntegerFields(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"game: connect4\nsearch:\n  simulations: 8.5\n", []string{"line 3: search.simulations = 8.5 is not an integer"}},
		{"game: connect4\nseed: 18446744073709551616\n", []string{"line 2: seed = 18446744073709551616 is outside [0, 18446744073709551615]"}},
		{"game: connect4\nseed: 99999999999999999999999\n", []string{"seed = 99999999999999999999999 is outside [0, 18446744073709551615]"}},
		{"game: connect4\nseed: -1\n", []string{"line 2: seed = -1 is outside [0, 18446744073709551615]"}},
		{"game: connect4\nseed: 1.5e3\n", []string{"seed = 1.5e3 is not an integer (write it in digits alone"}},
		{"game: connect4\nselfplay: {parallel_games: 9223372036854775808}\n", []string{"selfplay.parallel_games = 9223372036854775808 is outside [-9223372036854775808, 9223372036854775807]"}},
		{"game: connect4\nreplay: {window: 1e6}\n", []string{"replay.window = 1e6 is not an integer"}},
		{"game: connect4\nnetwork: {blocks: .nan}\n", []string{"network.blocks = .nan is not an integer"}},
		{"game: connect4\ntraining: {boundaries: [100, 200.5], rates: [0.1, 0.01]}\n", []string{"line 2: training.boundaries[1] = 200.5 is not an integer"}},
		{"game: connect4\ngating:\n  matches:\n    - {opponent: random, games: 2.5, simulations: 4}\n", []string{"line 4: gating.matches[0].games = 2.5"}},
		// Every bad field is named, an alias's at its anchor.
		{"game: connect4\nsearch: {simulations: &s 8.5, fast_simulations: *s, gumbel_m: 7.25}\n",
			[]string{"search.simulations = 8.5", "search.fast_simulations = 8.5", "search.gumbel_m = 7.25"}},
		// A merge key brings its mapping's fields.
		{"game: connect4\ngating:\n  matches:\n    - &m {opponent: random, games: 2, simulations: 3.5}\n    - <<: *m\n      games: 4\n",
			[]string{"gating.matches[0].simulations = 3.5", "gating.matches[1].simulations = 3.5"}},
		{"game: connect4\nevaluation: {every: 5m, pons: {set: Test_L2_R1, positions: 10, simulations: [0, 6.4]}}\n",
			[]string{"evaluation.pons.simulations[1] = 6.4"}},
	} {
		_, err := Parse([]byte(c.text), "cfg.yaml")
		if err == nil {
			t.Errorf("%q accepted; want %q", c.text, c.want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) || !strings.Contains(err.Error(), "cfg.yaml") {
				t.Errorf("%q: error %q does not say %q", c.text, err, w)
			}
		}
	}
	// The extremes of a type, and other ways YAML writes integers, read
	// as written.
	for text, want := range map[string]uint64{
		"game: connect4\nseed: 18446744073709551615\n": math.MaxUint64,
		"game: connect4\nseed: 0x10\n":                 16,
		"game: connect4\nseed: 0\n":                    0,
	} {
		c, err := Parse([]byte(text), "cfg.yaml")
		if err != nil || c.Seed != want {
			t.Errorf("%q: seed %v, %v; want %d", text, c, err, want)
		}
	}
	c, err := Parse([]byte("game: connect4\nsearch: {simulations: 8}\ntraining: {warmup_steps: 9223372036854775807}\n"), "cfg.yaml")
	if err != nil || c.Search.Simulations != 8 || c.Training.WarmupSteps != math.MaxInt64 {
		t.Errorf("integers refused: %+v, %v", c, err)
	}
	// A sealed copy is checked the same way (its lines counted from the
	// seal's).
	sealed := string(mustPreset(t, "connect4").MarshalSealed())
	edited := []byte(strings.Replace(sealed, "simulations: 100\n", "simulations: 100.5\n", 1))
	if _, err := Parse(edited, "config.yaml"); err == nil {
		t.Error("an edited sealed copy accepted")
	}
}

func mustPreset(t *testing.T, game string) *Config {
	t.Helper()
	c, err := Preset(game)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
