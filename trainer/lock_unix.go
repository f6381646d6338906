//go:build unix

package trainer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockRun takes an exclusive lock on RUN/lock so that a second trainer on
// the same run is refused. The lock dies with the process (kill -9 too).
func lockRun(run string) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(run, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("trainer: run %s is in use by another trainer (lock held on %s)", run, f.Name())
		}
		return nil, fmt.Errorf("trainer: lock %s: %w", f.Name(), err)
	}
	f.Truncate(0)
	fmt.Fprintf(f, "%d\n", os.Getpid())
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
