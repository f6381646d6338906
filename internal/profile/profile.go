// Package profile writes a command's CPU profile (-cpuprofile), so that
// a long run can be profiled where it is slow rather than in a benchmark.
package profile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/tabula-zero/tabula/internal/atomicfile"
)

// StartCPU starts profiling the process's CPU use; stop ends it and
// writes the profile (pprof's gzipped format, for `go tool pprof`) to
// path at once, so that a killed run leaves no half-written file. An
// empty path profiles nothing. A directory that does not exist fails
// here, before any work, not when the run ends.
func StartCPU(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("cpuprofile %s: no directory %s", path, filepath.Dir(path))
	}
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return nil, fmt.Errorf("cpuprofile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := atomicfile.WriteBytes(path, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("cpuprofile: %w", err)
		}
		return nil
	}, nil
}
