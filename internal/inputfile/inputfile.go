// Package inputfile opens files that come from outside the process
// (checkpoints, shards, configs, metrics, records, tablebases) so that
// what is at the path cannot hang or exhaust the reader: only regular
// files are read (a FIFO is opened without blocking and refused, as are
// devices, sockets and directories), and a file's size is checked against
// the limit of what it holds before a byte is read.
package inputfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Open opens path for reading when it is a regular file of at most max
// bytes (max <= 0: any size), following symbolic links. what names the
// file's kind in errors ("checkpoint", "shard"). The caller closes the
// file.
func Open(path, what string, max int64) (*os.File, int64, error) {
	f, err := openNonblocking(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if err := Check(path, what, st, max); err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// ReadFile reads path whole under Open's rules. The file may not grow
// past max while it is read.
func ReadFile(path, what string, max int64) ([]byte, error) {
	f, size, err := Open(path, what, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit := max
	if limit <= 0 {
		limit = size
	}
	b := make([]byte, 0, size)
	b, err = readAll(b, io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if max > 0 && int64(len(b)) > max {
		return nil, fmt.Errorf("%s %s grew past %d bytes while it was read", what, path, max)
	}
	return b, nil
}

// Check reports whether st (of path) is a regular file of at most max
// bytes (max <= 0: any size).
func Check(path, what string, st fs.FileInfo, max int64) error {
	m := st.Mode()
	if !m.IsRegular() {
		return fmt.Errorf("%s %s is %s, not a regular file", what, path, Kind(m))
	}
	if max > 0 && st.Size() > max {
		return fmt.Errorf("%s %s is %d bytes; a %s is at most %d", what, path, st.Size(), what, max)
	}
	return nil
}

// Kind names what a file mode is, for errors.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file (mode " + m.String() + ")"
}

func readAll(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
