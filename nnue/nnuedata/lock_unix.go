//go:build unix

package nnuedata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive lock on DIR/lock, so that a second generator
// on the directory (which would fill the same shard numbers) is refused.
// The lock dies with the process, kill -9 too.
func lockDir(dir string) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("nnuedata: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("nnuedata: %s is in use by another generator (lock held on %s)", dir, f.Name())
		}
		return nil, fmt.Errorf("nnuedata: lock %s: %w", f.Name(), err)
	}
	f.Truncate(0)
	fmt.Fprintf(f, "%d\n", os.Getpid())
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
