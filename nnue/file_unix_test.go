//go:build unix

package nnue

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO at the path is refused, not waited on.
func TestLoadRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if _, err := Load(fifo); err == nil {
		t.Errorf("a FIFO loaded")
	}
}
