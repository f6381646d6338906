//go:build unix

package export

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An output path holding a device, a FIFO or a link to a device is
// refused and stays what it was; a device as the checkpoint is refused,
// not read without end.
func TestSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	null := filepath.Join(dir, "null.onnx")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.onnx")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-new", "lion", "-o", null}, "character device, not a regular file: refusing to replace it"},
		{[]string{"-new", "lion", "-o", fifo}, "named pipe (FIFO), not a regular file: refusing to replace it"},
		{[]string{"-new", "lion", "-o", model, "-samples", "2", "-samples-out", fifo}, "named pipe (FIFO)"},
		{[]string{"-checkpoint", "/dev/zero", "-o", model}, "character device, not a regular file"},
		{[]string{"-checkpoint", fifo, "-o", model}, "named pipe (FIFO), not a regular file"},
	} {
		var out bytes.Buffer
		if err := run(c.args, &out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.args, err, c.want)
		}
	}
	for _, p := range []string{fifo, null} {
		if st, err := os.Stat(p); err != nil || st.Mode().IsRegular() {
			t.Errorf("%s was replaced by a regular file", p)
		}
	}
	if _, err := os.Stat(model); err == nil {
		t.Errorf("%s written although its samples' path was refused", model)
	}
}
