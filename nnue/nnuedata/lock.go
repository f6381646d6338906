package nnuedata

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/tabula-zero/tabula/internal/filelock"
)

// lockDir takes an exclusive lock on DIR/lock, so that a second generator
// on the directory (which would fill the same shard numbers) is refused.
// The lock dies with the process, kill -9 too.
func lockDir(dir string) (release func(), err error) {
	release, err = filelock.Lock(filepath.Join(dir, "lock"))
	if errors.Is(err, filelock.ErrHeld) {
		return nil, fmt.Errorf("nnuedata: %s is in use by another generator (%w)", dir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("nnuedata: %w", err)
	}
	return release, nil
}
