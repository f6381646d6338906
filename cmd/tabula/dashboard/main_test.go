package dashboard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/configs/configstest"
)

// -run takes run directories as given and a directory of runs as its
// runs, the one whose metrics were written last first; anything else is
// refused with what it is not.
func TestRunsOf(t *testing.T) {
	parent := t.TempDir()
	cfg := configstest.TinyConnectFour(t).MarshalSealed()
	old := time.Now().Add(-time.Hour)
	for i, name := range []string{"a", "b", "c"} {
		dir := filepath.Join(parent, name)
		os.Mkdir(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "config.yaml"), cfg, 0o644)
		metrics := filepath.Join(dir, "metrics.jsonl")
		os.WriteFile(metrics, nil, 0o644)
		at := old.Add(time.Duration(i) * time.Minute)
		if name == "b" {
			at = time.Now() // written last
		}
		os.Chtimes(metrics, at, at)
	}
	os.Mkdir(filepath.Join(parent, "notes"), 0o755)
	a, b, c := filepath.Join(parent, "a"), filepath.Join(parent, "b"), filepath.Join(parent, "c")
	if got, err := runsOf([]string{parent}); err != nil || got[0] != b || len(got) != 3 || !slices.Contains(got, a) || !slices.Contains(got, c) {
		t.Errorf("a directory of runs: %q %v, want b first of a, b and c", got, err)
	}
	if got, err := runsOf([]string{c, a}); err != nil || !slices.Equal(got, []string{c, a}) {
		t.Errorf("two runs: %q %v", got, err)
	}
	if _, err := runsOf([]string{filepath.Join(parent, "notes")}); err == nil || !strings.Contains(err.Error(), "neither a run directory nor a directory of runs") {
		t.Errorf("a directory of no runs: %v", err)
	}
	os.WriteFile(filepath.Join(a, "config.yaml"), []byte("game: [broken"), 0o644)
	if _, err := runsOf([]string{a}); err == nil || !strings.Contains(err.Error(), "-run "+a) {
		t.Errorf("a run whose config does not read: %v", err)
	}
}
