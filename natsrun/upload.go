package natsrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/internal/inputfile"
)

// Upload publishes every shard that appears in spool (a worker's local
// replay directory) and deletes it once the server has stored it, until
// ctx ends. While the server is away the shards wait on disk, and a
// worker killed between a publish and the delete publishes again on its
// next start: the message id keeps the second copy out. sent hears about
// each shard stored; fail about each failed attempt (it is retried).
func (h *Hub) Upload(ctx context.Context, spool string, sent func(Sent), fail func(error)) error {
	for {
		if err := h.Drain(ctx, spool, sent); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !errors.Is(err, errPublish) {
				return err
			}
			fail(err) // the server is away: wait, then start again
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
}

var errPublish = errors.New("natsrun: publish failed")

// Sent is a shard the server stored: its name, the publish's round trip
// to the server's acknowledgement, and the shard's age then (from its
// file's write: the wait in the spool included).
type Sent struct {
	Name         string
	Publish, Age time.Duration
}

// Drain publishes the shards in spool once, deleting each that the server
// stored, and stops at the first that fails. Another uploader on the same
// spool may take a shard first; the message id keeps a second copy out.
func (h *Hub) Drain(ctx context.Context, spool string, sent func(Sent)) error {
	names, err := pending(spool)
	if err != nil {
		return err
	}
	for _, name := range names {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		path := filepath.Join(spool, name)
		// Only a regular file within a shard's bound is read: a FIFO in
		// the spool would block the worker.
		b, err := inputfile.ReadFile(path, "shard", data.MaxFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue // another uploader took it
		}
		if err != nil {
			return fmt.Errorf("natsrun: %w", err)
		}
		written := time.Now()
		if st, err := os.Stat(path); err == nil {
			written = st.ModTime()
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		t0 := time.Now()
		err = h.PublishShard(pctx, name, b)
		took := time.Since(t0)
		cancel()
		if err != nil {
			return fmt.Errorf("%w: %w", errPublish, err)
		}
		// The worker's next start must not reuse the name (nor the games
		// seeded from its number).
		if err := data.RecordSent(spool, name); err != nil {
			return err
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("natsrun: %w", err)
		}
		sent(Sent{Name: name, Publish: took, Age: time.Since(written)})
	}
	return nil
}

// pending lists the finished shards in spool, oldest name first
// (temporary files of writes under way start with a dot).
func pending(spool string) ([]string, error) {
	es, err := os.ReadDir(spool)
	if err != nil {
		return nil, fmt.Errorf("natsrun: spool: %w", err)
	}
	var names []string
	for _, e := range es {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, data.Ext) && !strings.HasPrefix(n, ".") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}
