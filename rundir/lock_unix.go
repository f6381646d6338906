//go:build unix

package rundir

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Lock takes an exclusive lock on RUN/lock so that a second trainer on
// the same run is refused. The lock dies with the process (kill -9 too).
func (d Dir) Lock() (release func(), err error) {
	f, err := os.OpenFile(d.lockFile(), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("rundir: run %s is in use by another trainer (lock held on %s)", d, f.Name())
		}
		return nil, fmt.Errorf("rundir: lock %s: %w", f.Name(), err)
	}
	f.Truncate(0)
	fmt.Fprintf(f, "%d\n", os.Getpid())
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
