// Package atomicfile writes files so that readers never see a partial
// file and a crash leaves either the old file or the new one: write to a
// temporary file in the same directory, fsync it, rename it over the
// target, fsync the directory.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/internal/inputfile"
)

// Write creates or replaces path with what fill writes. On any error the
// target is untouched and the temporary file removed. Only a regular
// file is replaced: a device, FIFO, socket or directory at path (or at
// the end of a symbolic link there) is refused, since renaming over it
// would put a plain file in its place (-o /dev/null run as root would
// replace /dev/null).
func Write(path string, perm os.FileMode, fill func(w io.Writer) error) (err error) {
	if err := CheckTarget(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+tempInfix+"*")
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("atomicfile: sync %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("atomicfile: close %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	// The rename is durable once the directory entry is on disk.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// CheckTarget reports whether path may be written by Write: it does not
// exist or is a regular file.
func CheckTarget(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("atomicfile: %s is %s, not a regular file: refusing to replace it", path, inputfile.Kind(st.Mode()))
	}
	return nil
}

// WriteBytes replaces path with data atomically.
func WriteBytes(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// tempInfix marks the temporary files of Write: "." + base + tempInfix +
// random digits.
const tempInfix = ".tmp-"

// RemoveStale deletes the temporary files that writes killed midway left
// in dir, those last modified at least minAge ago (0: all of them; pass
// more where another process may be writing into dir right now). It
// returns how many it removed.
func RemoveStale(dir string, minAge time.Duration) (int, error) {
	es, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("atomicfile: %w", err)
	}
	n := 0
	for _, e := range es {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, ".") || !strings.Contains(name, tempInfix) {
			continue
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < minAge {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err == nil {
			n++
		}
	}
	return n, nil
}
