// Package jsonl appends records to JSON-lines files (metrics, logs of a
// run) so that damage stays local: a line cut short by a kill or a full
// disk is ended before the next record, and a failed write is reported,
// not dropped.
package jsonl

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/tabula-zero/tabula/internal/inputfile"
)

// Log is a JSON-lines file open for appending. Its methods are safe for
// concurrent use.
type Log struct {
	mu   sync.Mutex
	f    *os.File
	path string
	err  error // the first failed write
}

// Open opens (or creates) path for appending. When its last line lacks
// its line break, one is written first, so that the next record starts a
// line of its own; readers skip the broken line.
//
// Only a regular file (or a link to one) is opened: records written to
// a device such as /dev/zero or /dev/null would be dropped without an
// error, and a FIFO would hold them for whoever reads it.
func Open(path string) (*Log, error) {
	// Checked before the open too, so that a device is never opened.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, notRegular(path, st)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, st)
	}
	if err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err = f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			_, err = f.Write([]byte{'\n'})
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Log{f: f, path: path}, nil
}

func notRegular(path string, st os.FileInfo) error {
	return fmt.Errorf("%s is %s, not a regular file: records written there would be lost; remove it to start a new file", path, inputfile.Kind(st.Mode()))
}

// Append writes v as one line. After a failed write every later Append
// returns that first error.
func (l *Log) Append(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", l.path, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		l.err = fmt.Errorf("write %s: %w", l.path, err)
	}
	return l.err
}

// Err returns the first failed write, or nil.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Close closes the file and returns the first failed write or the close
// error.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	cerr := l.f.Close()
	if l.err != nil {
		return l.err
	}
	if cerr != nil {
		return fmt.Errorf("close %s: %w", l.path, cerr)
	}
	return nil
}
