package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Prune deletes the checkpoints a run no longer needs, keeping:
//
//   - the checkpoints the best and latest pointers name (what workers
//     follow and what the run resumes from);
//   - every name in keep (the trainer's: the networks its evaluations
//     measured, which the charts and ratings stand for);
//   - the newest last checkpoints up to latest, latest included;
//   - any checkpoint newer than latest (a save a stop cut short, which
//     the next start reports before it replaces it).
//
// last below 1 keeps every checkpoint. A pointer that does not resolve
// stops Prune before it deletes anything: which checkpoint it meant
// cannot be told then. Each file goes in one unlink, so a process killed
// midway leaves a run whose pointers name files that are there and that
// resumes. It returns the names it deleted.
func (d Dir) Prune(keep map[string]bool, last int) ([]string, error) {
	if last < 1 {
		return nil, nil
	}
	pointed := map[string]bool{}
	for _, p := range []string{Best, Latest} {
		path, err := d.Pointer(p)
		if err != nil {
			return nil, fmt.Errorf("rundir: keeping every checkpoint: %w", err)
		}
		pointed[filepath.Base(path)] = true
	}
	latest, _ := d.Pointer(Latest)
	names, err := d.List()
	if err != nil {
		return nil, err
	}
	at := slices.Index(names, filepath.Base(latest))
	if at < 0 {
		return nil, fmt.Errorf("rundir: keeping every checkpoint: %s is not among them", filepath.Base(latest))
	}
	var removed []string
	for i, n := range names[:at+1] {
		if pointed[n] || keep[n] || i > at-last {
			continue
		}
		if err := os.Remove(d.Checkpoint(n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("rundir: %w", err)
		}
		removed = append(removed, n)
	}
	return removed, nil
}
