package natsrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/data"
)

// Upload publishes every shard that appears in spool (a worker's local
// replay directory) and deletes it once the server has stored it, until
// ctx ends. While the server is away the shards wait on disk, and a
// worker killed between a publish and the delete publishes again on its
// next start: the message id keeps the second copy out. sent hears about
// each shard stored; fail about each failed attempt (it is retried).
func (h *Hub) Upload(ctx context.Context, spool string, sent func(name string), fail func(error)) error {
	for {
		names, err := pending(spool)
		if err != nil {
			return err
		}
		for _, name := range names {
			if ctx.Err() != nil {
				return nil
			}
			path := filepath.Join(spool, name)
			b, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("natsrun: %w", err)
			}
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err = h.PublishShard(pctx, name, b)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				fail(err)
				break // the server is away: wait, then start again
			}
			if err := os.Remove(path); err != nil {
				return fmt.Errorf("natsrun: %w", err)
			}
			sent(name)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
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
