package configs_test

import (
	"os"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/configs"
	_ "github.com/tabula-zero/tabula/selfplay" // registers the check of selfplay.abzero.m
)

// A program that links selfplay refuses a schedule abzero cannot read, as
// configs did when it imported abzero.
func TestHookOfSelfPlay(t *testing.T) {
	base, err := os.ReadFile("testdata/presets-before/connect4.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(base), "  shard_samples: 2000", "  shard_samples: 2000\n  abzero: {generations: 5, depth: 2, m: \"linear:1,2\"}", 1)
	_, err = configs.Parse([]byte(text), "cfg.yaml")
	if err == nil || !strings.Contains(err.Error(), "selfplay.abzero.m") || !strings.Contains(err.Error(), "linear:1,2") {
		t.Fatalf("a bad schedule: %v", err)
	}
	good := strings.Replace(text, "linear:1,2", "linear:1,2,0,5", 1)
	if _, err := configs.Parse([]byte(good), "cfg.yaml"); err != nil {
		t.Fatal(err)
	}
}
