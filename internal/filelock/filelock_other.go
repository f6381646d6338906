//go:build !unix

package filelock

import (
	"fmt"
	"os"
)

// Lock records the process id in path. Without Unix file locks a second
// process is not detected: do not start one.
func Lock(path string) (release func(), err error) {
	if err := os.WriteFile(path, []byte(fmt.Sprintf("%d\n", os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	return func() {}, nil
}
