package configs

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A retired key at its off value loads as if it were absent and is named
// in Retired; at another value it is an error that
// names the key and where to read why it went.
func TestRetiredKeys(t *testing.T) {
	base, _ := PresetBytes("connect4")
	want, err := Parse(base, "connect4.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// after inserts line after the preset's line anchor.
	after := func(anchor, line string) func(string) string {
		return func(s string) string {
			if !strings.Contains(s, anchor+"\n") {
				t.Fatalf("the preset has no line %q", anchor)
			}
			return strings.Replace(s, anchor+"\n", anchor+"\n"+line+"\n", 1)
		}
	}
	for _, c := range []struct {
		name    string // as Retired and the error name it
		off, on func(string) string
	}{
		{"search.forced_playouts", after("  fast_simulations: 16", "  forced_playouts: 0"), after("  fast_simulations: 16", "  forced_playouts: 2")},
		{"search.discount", after("  fast_simulations: 16", "  discount: 1"), after("  fast_simulations: 16", "  discount: 0.97")},
		{"network.reply_head", after("  value_hidden: 32", "  reply_head: false"), after("  value_hidden: 32", "  reply_head: true")},
		{"replay.window_grow_from", after("  min_samples: 2000", "  window_grow_from: 0"), after("  min_samples: 2000", "  window_grow_from: 20000")},
		{"training.reply_weight", after("  momentum: 0.9", "  reply_weight: 0"), after("  momentum: 0.9", "  reply_weight: 0.15")},
	} {
		cfg, err := Parse([]byte(c.off(string(base))), "off.yaml")
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
		_, err = Parse([]byte(c.on(string(base))), "on.yaml")
		if err == nil || !strings.Contains(err.Error(), "on.yaml: "+c.name+" = ") || !strings.Contains(err.Error(), "docs/retired.md") {
			t.Errorf("%s switched on: %v", c.name, err)
		}
	}
}
