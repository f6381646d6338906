package nnuedata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tabula-zero/tabula/internal/inputfile"
)

// Shard is a shard file of a directory.
type Shard struct {
	Path string
	Seq  int
}

// List returns the shards of dir in sequence order. Other files (the
// metrics, a writer's temporary files) are left out.
func List(dir string) ([]Shard, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("nnuedata: %w", err)
	}
	var out []Shard
	for _, e := range es {
		if seq, ok := ParseName(e.Name()); ok && !e.IsDir() {
			out = append(out, Shard{Path: filepath.Join(dir, e.Name()), Seq: seq})
		}
	}
	slices.SortFunc(out, func(a, b Shard) int { return a.Seq - b.Seq })
	return out, nil
}

// ReadFile reads a shard file into d's buffers: a regular file of at most
// MaxFile bytes (a FIFO, a device or a larger file is refused before a
// byte is read). Errors name the file.
func (d *Decoder) ReadFile(path string) (Header, []Record, error) {
	b, err := inputfile.ReadFile(path, "shard", MaxFile)
	if err != nil {
		return Header{}, nil, fmt.Errorf("nnuedata: %w", err)
	}
	h, recs, err := d.Decode(b)
	if err != nil {
		return h, nil, fmt.Errorf("nnuedata: %s: %w", path, err)
	}
	return h, recs, nil
}

// Read reads a shard file into records of their own.
func Read(path string) (Header, []Record, error) {
	var d Decoder
	return d.ReadFile(path)
}

// ReadHeader reads a shard's header and checks the file whole (framing,
// checksum, the frame's stated size) without decompressing its records.
func ReadHeader(path string) (Header, error) {
	b, err := inputfile.ReadFile(path, "shard", MaxFile)
	if err != nil {
		return Header{}, fmt.Errorf("nnuedata: %w", err)
	}
	h, _, err := parse(b)
	if err != nil {
		return h, fmt.Errorf("nnuedata: %s: %w", path, err)
	}
	return h, nil
}

// ErrStop, returned by a ReadDir callback, ends the reading early
// without an error.
var ErrStop = errors.New("stop reading")

// ReadDir streams the records of every shard of dir, in sequence order,
// to fn, one shard at a time. recs is reused for the next shard: copy
// what must outlive the call. Reading stops at the first error (a damaged
// shard names its file) or when fn returns one; ErrStop stops it with
// none.
func ReadDir(dir string, fn func(h *Header, recs []Record) error) error {
	shards, err := List(dir)
	if err != nil {
		return err
	}
	var d Decoder
	for _, s := range shards {
		h, recs, err := d.ReadFile(s.Path)
		if err != nil {
			return err
		}
		if err := fn(&h, recs); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// Count returns the shards and records of dir from the shards' headers,
// each file checked as ReadHeader does: what a trainer sizes its arrays
// by before ReadDir.
func Count(dir string) (shards, records int, err error) {
	list, err := List(dir)
	if err != nil {
		return 0, 0, err
	}
	for _, s := range list {
		h, err := ReadHeader(s.Path)
		if err != nil {
			return 0, 0, err
		}
		records += h.Records
	}
	return len(list), records, nil
}
