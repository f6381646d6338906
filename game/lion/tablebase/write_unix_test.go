//go:build unix

package tablebase

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// WriteFile refuses to rename a table over what is not a regular file:
// a link to a device or a FIFO stays what it was.
func TestWriteFileRefusesSpecialTargets(t *testing.T) {
	tb := build(t, Material{0, 0, 0})
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	null := filepath.Join(dir, "null.tb")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, null} {
		if err := tb.WriteFile(p); err == nil || !strings.Contains(err.Error(), "refusing to replace it") {
			t.Errorf("WriteFile(%s): %v", p, err)
		}
		if st, err := os.Stat(p); err != nil || st.Mode().IsRegular() {
			t.Errorf("%s was replaced", p)
		}
	}
}
