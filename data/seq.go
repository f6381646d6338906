package data

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/inputfile"
)

// ParseName reads a shard file name (Header.Name): generation, worker and
// sequence number.
func ParseName(name string) (gen int, worker string, seq int, ok bool) {
	n, found := strings.CutSuffix(name, Ext)
	i, j := strings.Index(n, "-"), strings.LastIndex(n, "-")
	if !found || i < 0 || j <= i || !strings.HasPrefix(n, "g") {
		return 0, "", 0, false
	}
	gen, err1 := strconv.Atoi(n[1:i])
	seq, err2 := strconv.Atoi(n[j+1:])
	worker = n[i+1 : j]
	if err1 != nil || err2 != nil || CheckWorker(worker) != nil {
		return 0, "", 0, false
	}
	return gen, worker, seq, true
}

// seqMarker is the file in a directory that remembers the next sequence
// number of a worker whose shards left it (uploaded and deleted).
func seqMarker(dir, worker string) string { return filepath.Join(dir, ".next-seq-"+worker) }

// NextSeq returns the sequence number after the highest one worker has
// written in dir, counting shards that have left it (RecordSent), so a
// restarted worker never reuses a name, nor the games seeded from it.
func NextSeq(dir, worker string) int {
	next := 0
	// A marker that is not a small regular file (a FIFO would block) is
	// ignored: the shards still in dir give the sequence.
	if b, err := inputfile.ReadFile(seqMarker(dir, worker), "sequence marker", 64); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			next = n
		}
	}
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if _, w, seq, ok := ParseName(e.Name()); ok && w == worker {
			next = max(next, seq+1)
		}
	}
	return next
}

// RecordSent notes that the shard named name leaves dir (before it is
// deleted), so that NextSeq stays past it.
func RecordSent(dir, name string) error {
	_, worker, seq, ok := ParseName(name)
	if !ok {
		return fmt.Errorf("data: %q is not a shard name", name)
	}
	if NextSeq(dir, worker) > seq+1 {
		return nil
	}
	if err := atomicfile.WriteBytes(seqMarker(dir, worker), []byte(strconv.Itoa(seq+1)+"\n"), 0o644); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	return nil
}
