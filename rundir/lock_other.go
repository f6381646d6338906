//go:build !unix

package rundir

import (
	"fmt"
	"os"
)

// Lock records the process in RUN/lock. Without Unix file locks a second
// trainer on the run is not detected: do not start one.
func (d Dir) Lock() (release func(), err error) {
	if err := os.WriteFile(d.lockFile(), []byte(fmt.Sprintf("%d\n", os.Getpid())), 0o644); err != nil {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	return func() {}, nil
}
