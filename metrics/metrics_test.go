package metrics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Read gives the lines that decode, in order: a line cut off by a crash
// is skipped, and a missing file reads as empty.
func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metrics.jsonl")
	var got []Metric
	Read(path, func(m Metric) { got = append(got, m) })
	if len(got) != 0 {
		t.Fatalf("a missing file gave %d lines", len(got))
	}
	lines := `{"kind":"train","step":5,"workers":[{"name":"w1","samples":7}]}
{"kind":"generation","gene
{"kind":"evaluation","step":9,"pons":[{"set":"x","optimal_rate":0.5}]}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	Read(path, func(m Metric) { got = append(got, m) })
	if len(got) != 2 || got[0].Kind != "train" || got[0].Step != 5 || got[0].Workers[0].Samples != 7 ||
		got[1].Kind != "evaluation" || string(got[1].Measures["pons"]) != `[{"set":"x","optimal_rate":0.5}]` {
		t.Fatalf("read %+v", got)
	}
}

// A line's measures are keys of the line itself: written after the
// fields and read back as they were, beside the fields.
func TestMeasuresRoundTrip(t *testing.T) {
	m := Metric{Kind: "evaluation", Step: 3, EvalSeconds: 1.5}
	if err := m.SetMeasures(map[string]any{"pons": []map[string]any{{"set": "x", "optimal_rate": 0.5}}, "lion_value": map[string]int{"positions": 2}}); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"evaluation","step":3,"eval_s":1.5,"lion_value":{"positions":2},"pons":[{"optimal_rate":0.5,"set":"x"}]}`
	if !strings.Contains(string(b), `"step":3`) || !strings.HasSuffix(string(b), `"eval_s":1.5,"lion_value":{"positions":2},"pons":[{"optimal_rate":0.5,"set":"x"}]}`) {
		t.Fatalf("wrote %s, want the shape of %s", b, want)
	}
	var back Metric
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Step != 3 || back.EvalSeconds != 1.5 || len(back.Measures) != 2 || string(back.Measures["lion_value"]) != `{"positions":2}` {
		t.Fatalf("read back %+v", back)
	}
	if err := (&Metric{}).SetMeasures(map[string]any{"step": 1}); err != nil {
		t.Fatal(err)
	}
	bad := Metric{Measures: map[string]json.RawMessage{"step": json.RawMessage("1")}}
	if _, err := json.Marshal(bad); err == nil {
		t.Fatal("a measure under a field's key was written")
	}
}
