package rundir

import (
	"errors"
	"fmt"

	"github.com/tabula-zero/tabula/internal/filelock"
)

// Lock takes an exclusive lock on RUN/lock so that a second trainer on
// the same run is refused. The lock dies with the process (kill -9 too).
func (d Dir) Lock() (release func(), err error) {
	release, err = filelock.Lock(d.lockFile())
	if errors.Is(err, filelock.ErrHeld) {
		return nil, fmt.Errorf("rundir: run %s is in use by another trainer (%w)", d, err)
	}
	if err != nil {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	return release, nil
}
