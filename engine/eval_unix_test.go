//go:build unix

package engine

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An EvalFile that is not a regular file is refused at once, naming what
// it is, as Tablebase is: a FIFO without a writer would block the command
// loop, /dev/stdin would read the GUI's commands.
func TestEvalFileNotARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "eval.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	s := New()
	for path, want := range map[string]string{
		fifo:         "is a named pipe (FIFO), not a regular file",
		"/dev/zero":  "is a character device, not a regular file",
		"/dev/stdin": "not a regular file",
	} {
		done := make(chan error, 1)
		go func() { done <- s.SetSearchOption(optEvalFile, path) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "option EvalFile: ") || !strings.Contains(err.Error(), want) {
				t.Errorf("EvalFile %s: %v, want %q", path, err, want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("EvalFile %s: the option hangs", path)
		}
	}
}
