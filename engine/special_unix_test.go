//go:build unix

package engine

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A Tablebase that is not a regular file is refused at once, naming what
// it is: a FIFO without a writer once blocked the command loop for good
// (no readyok, SIGTERM ignored), and /dev/stdin read the GUI's commands.
func TestTablebaseNotARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "tb.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	s := New()
	for path, want := range map[string]string{
		fifo:        "is a named pipe (FIFO), not a regular file",
		"/dev/null": "is a character device, not a regular file",
		t.TempDir(): "is a directory, not a regular file",
	} {
		done := make(chan error, 1)
		go func() { done <- s.SetSearchOption(optTablebase, path) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "option Tablebase: ") || !strings.Contains(err.Error(), want) {
				t.Errorf("Tablebase %s: %v, want %q", path, err, want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("Tablebase %s: the option hangs", path)
		}
	}
}
