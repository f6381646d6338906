package configs

import (
	"strings"
	"testing"
	"time"
)

func TestOverride(t *testing.T) {
	base := presetBefore(t, "connect4")
	b, err := Override(base, []string{
		"training.learning_rate=0.01",
		"gating.matches=[{opponent: best, games: 40, simulations: 64, threshold: 0.55}]", "gating.matches[0].games=10", "training.rates=[0.1, 0.01]",
		"replay.min_samples=3000",
		"evaluation.every=1m", "evaluation.matches=[{opponent: random, games: 2, simulations: 0}]", "evaluation.pons=null",
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(b, "overridden")
	if err != nil {
		t.Fatal(err)
	}
	if c.Training.LearningRate != 0.01 || c.Gating.Matches[0].Games != 10 || c.Training.Rates[0] != 0.1 ||
		c.Replay.MinSamples != 3000 || c.Evaluation.Every != time.Minute || len(c.Evaluation.Matches) != 1 || c.Evaluation.Set("pons") != nil {
		t.Fatalf("overrides not applied: %+v %+v %+v", c.Training, c.Gating, c.Evaluation)
	}
	// What was not set is the preset's.
	p, _ := Preset("connect4")
	if c.Network != p.Network || c.Search != p.Search || c.Seed != p.Seed {
		t.Fatal("an override changed other settings")
	}
	// An optional section that the text lacks is added.
	lion := presetBefore(t, "lion")
	lion = []byte(withoutEvaluation(string(lion)))
	if b, err = Override(lion, []string{"evaluation.every=2m", "evaluation.matches=[{opponent: random, games: 2, simulations: 0}]"}); err != nil {
		t.Fatal(err)
	}
	if c, err := Parse(b, "lion"); err != nil || c.Evaluation.Every != 2*time.Minute {
		t.Fatalf("added section: %v", err)
	}
	for _, bad := range []struct{ set, want string }{
		{"training.learning_rate", "PATH=VALUE"},
		{"training.rates[9]=1", "rates has no item 9"},
		{"gating.matches[x].games=2", "key or key[i]"},
		{"seed.value=2", "not a mapping"},
		{"training.lr[0]=1", "no list"},
		{"search.simulations=[1", "not YAML"},
	} {
		if _, err := Override(base, []string{bad.set}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want an error with %q", bad.set, err, bad.want)
		}
	}
	// A run's sealed copy can be overridden (the result is unsealed).
	sealed := p.MarshalSealed()
	if b, err = Override(sealed, []string{"seed=7"}); err != nil {
		t.Fatal(err)
	}
	if c, err := Parse(b, "resealed"); err != nil || c.Seed != 7 {
		t.Fatalf("sealed config overridden: %v", err)
	}
	// A misspelt key passes Override and is named when the result is parsed.
	b, _ = Override(base, []string{"training.lerning_rate=1"})
	if _, err := Parse(b, "overridden"); err == nil || !strings.Contains(err.Error(), "lerning_rate") {
		t.Fatalf("misspelt key: %v", err)
	}
}
