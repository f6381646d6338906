//go:build unix

package filelock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A lock held by another process is refused with ErrHeld, and is free
// again once released. flock(1) plays the other process when it exists;
// within one process the second open file description conflicts too.
func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	release, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q, want the process id", b)
	}
	if _, err := Lock(path); !errors.Is(err, ErrHeld) {
		t.Fatalf("a second lock: %v, want ErrHeld", err)
	}
	if flock, err := exec.LookPath("flock"); err == nil {
		if out, err := exec.Command(flock, "-n", path, "true").CombinedOutput(); err == nil {
			t.Errorf("another process took the held lock: %s", out)
		}
	}
	release()
	again, err := Lock(path)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
}
