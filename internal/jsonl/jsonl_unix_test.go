//go:build unix

package jsonl

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO is refused, not written into for whoever reads it.
func TestRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "metrics.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	l, err := Open(fifo)
	if err == nil {
		l.Close()
		t.Fatal("a FIFO opened")
	}
	if !strings.Contains(err.Error(), "named pipe (FIFO), not a regular file") {
		t.Fatal(err)
	}
}
