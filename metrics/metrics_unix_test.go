//go:build unix

package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO or a device at the metrics path is refused, not waited on (a
// FIFO with no writer blocks an open for reading) or read without end.
func TestReadRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "metrics.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	paths := map[string]string{fifo: "named pipe (FIFO), not a regular file"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		link := filepath.Join(dir, "zero.jsonl")
		if err := os.Symlink("/dev/zero", link); err != nil {
			t.Fatal(err)
		}
		paths[link] = "character device, not a regular file"
	}
	for path, want := range paths {
		done := make(chan error, 1)
		lines := 0
		go func() { done <- ReadErr(path, func(Metric) { lines++ }) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) || lines != 0 {
				t.Errorf("%s: %d lines, %v; want an error naming %q", path, lines, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no answer in 10 s (blocked on the open)", path)
		}
		Read(path, func(Metric) { t.Errorf("%s: a line read", path) })
	}
}
