//go:build unix

package arena

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every file the arena reads (a network, openings, a position set, a
// run's records) is refused with its kind named when it is a FIFO or a
// device: never a wait for a writer, never a read without end.
func TestRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	zero := filepath.Join(dir, "zero.ckpt")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(run, "arena"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(run, "arena", "gate.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-variant", "connect4", "-a", "net:" + zero + ",sims=2", "-b", "random", "-games", "2"}, "character device, not a regular file"},
		{[]string{"-variant", "connect4", "-a", "net:" + fifo + ",sims=2", "-b", "random", "-games", "2"}, "named pipe (FIFO), not a regular file"},
		{[]string{"-variant", "connect4", "-a", "random", "-b", "ab:depth=2", "-openings", fifo}, "named pipe (FIFO), not a regular file"},
		{[]string{"-variant", "connect4", "-a", "random", "-pons", fifo}, "named pipe (FIFO), not a regular file"},
		{[]string{"-variant", "xiangqi", "-a", "random", "-xiangqi-set", fifo}, "named pipe (FIFO), not a regular file"},
		{[]string{"-variant", "lion", "-a", "random", "-lion-oracle", zero}, "character device, not a regular file"},
		{[]string{"-ratings", "-run", run}, "named pipe (FIFO), not a regular file"},
	} {
		done := make(chan error, 1)
		go func() { _, _, err := runArgs(t, c.args...); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: %v, want an error with %q", c.args, err, c.want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%v: no answer in 20 s", c.args)
		}
	}
}
