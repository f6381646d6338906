package metrics

import (
	"os"
	"path/filepath"
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
		got[1].Kind != "evaluation" || got[1].Pons[0].OptimalRate != 0.5 {
		t.Fatalf("read %+v", got)
	}
}
