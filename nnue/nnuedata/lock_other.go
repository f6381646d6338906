//go:build !unix

package nnuedata

import (
	"fmt"
	"os"
	"path/filepath"
)

// lockDir records the process in DIR/lock. Without Unix file locks a
// second generator on the directory is not detected: do not start one.
func lockDir(dir string) (release func(), err error) {
	if err := os.WriteFile(filepath.Join(dir, "lock"), []byte(fmt.Sprintf("%d\n", os.Getpid())), 0o644); err != nil {
		return nil, fmt.Errorf("nnuedata: %w", err)
	}
	return func() {}, nil
}
