//go:build !unix

package tablebase

import (
	"io"
	"os"
)

// mapFile reads the whole file where memory maps are not available.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	b := make([]byte, size)
	if _, err := f.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, nil, err
	}
	return b, func() error { return nil }, nil
}
