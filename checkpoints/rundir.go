package checkpoints

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tabula-zero/tabula/internal/atomicfile"
)

// Run directory layout: RUN/checkpoints/<name>.ckpt, and the pointer
// files RUN/best and RUN/latest holding a checkpoint's file name.
const (
	Subdir     = "checkpoints"
	Ext        = ".ckpt"
	BestFile   = "best"
	LatestFile = "latest"
)

// ErrNoCheckpoint is returned when a run has no checkpoint (a new run).
var ErrNoCheckpoint = errors.New("checkpoints: no checkpoint")

// Name is the file name of the checkpoint of a generation and step;
// names sort in training order.
func Name(generation int, step int64) string {
	return fmt.Sprintf("g%06d-s%09d%s", generation, step, Ext)
}

// SaveRun writes c into run's checkpoint directory and points latest at
// it. It returns the file name.
func SaveRun(run string, c *Checkpoint) (string, error) {
	dir := filepath.Join(run, Subdir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("checkpoints: %w", err)
	}
	name := Name(c.Generation, c.Step)
	if err := Save(filepath.Join(dir, name), c); err != nil {
		return "", err
	}
	return name, SetPointer(run, LatestFile, name)
}

// List returns the checkpoint file names of run in training order.
func List(run string) ([]string, error) {
	es, err := os.ReadDir(filepath.Join(run, Subdir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	var names []string
	for _, e := range es {
		if !e.IsDir() && strings.HasSuffix(e.Name(), Ext) && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// SetPointer atomically points run's best or latest file at a checkpoint
// name, which must exist.
func SetPointer(run, pointer, name string) error {
	if pointer != BestFile && pointer != LatestFile {
		return fmt.Errorf("checkpoints: unknown pointer %q", pointer)
	}
	if name != filepath.Base(name) || !strings.HasSuffix(name, Ext) {
		return fmt.Errorf("checkpoints: bad checkpoint name %q", name)
	}
	if _, err := os.Stat(filepath.Join(run, Subdir, name)); err != nil {
		return fmt.Errorf("checkpoints: %s: %w", pointer, err)
	}
	return atomicfile.WriteBytes(filepath.Join(run, pointer), []byte(name+"\n"), 0o644)
}

// Pointer returns the path of the checkpoint run's best or latest file
// names, or ErrNoCheckpoint when the pointer does not exist.
func Pointer(run, pointer string) (string, error) {
	b, err := os.ReadFile(filepath.Join(run, pointer))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s has no %s pointer", ErrNoCheckpoint, run, pointer)
	}
	if err != nil {
		return "", fmt.Errorf("checkpoints: %w", err)
	}
	name := strings.TrimSpace(string(b))
	if name == "" || name != filepath.Base(name) {
		return "", fmt.Errorf("checkpoints: %s/%s holds a bad name %q", run, pointer, name)
	}
	path := filepath.Join(run, Subdir, name)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("checkpoints: %s/%s points at a missing checkpoint: %w", run, pointer, err)
	}
	return path, nil
}
