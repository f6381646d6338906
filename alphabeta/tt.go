package alphabeta

import (
	"math/bits"

	"github.com/tabula-zero/tabula/game"
)

// Bound kinds stored in the transposition table.
const (
	boundNone  = 0
	boundUpper = 1 // score <= stored (fail low)
	boundLower = 2 // score >= stored (fail high)
	boundExact = boundUpper | boundLower
)

// ttEntry is 16 bytes: the full key (to reject index collisions), move,
// score, depth, bound and generation.
type ttEntry struct {
	key   uint64
	move  uint32
	score int16
	depth int8
	flags uint8 // bound in the low 2 bits, generation above
}

func (e *ttEntry) bound() uint8 { return e.flags & 3 }
func (e *ttEntry) gen() uint8   { return e.flags >> 2 }

// bucket holds a depth-preferred slot and an always-replace slot.
type bucket [2]ttEntry

// TT is a transposition table of a fixed size. It is not safe for
// concurrent use; each searcher owns one.
type TT struct {
	buckets []bucket
	mask    uint64
	gen     uint8
}

// NewTT returns a table of at most mib MiB (at least one bucket), rounded
// down to a power of two buckets.
func NewTT(mib int) *TT {
	n := uint64(max(mib, 0)) << 20 / 32
	if n == 0 {
		n = 1
	}
	n = 1 << (63 - bits.LeadingZeros64(n))
	return &TT{buckets: make([]bucket, n), mask: n - 1}
}

// Clear empties the table.
func (t *TT) Clear() {
	clear(t.buckets)
	t.gen = 0
}

// NewSearch ages the table: entries of older searches lose priority.
func (t *TT) NewSearch() { t.gen = (t.gen + 1) & 63 }

func (t *TT) probe(key uint64) (ttEntry, bool) {
	b := &t.buckets[key&t.mask]
	for i := range b {
		if b[i].key == key && b[i].bound() != boundNone {
			return b[i], true
		}
	}
	return ttEntry{}, false
}

// store writes into the depth-preferred slot when the new entry is at least
// as deep or the slot is from an older search, else into the other slot.
func (t *TT) store(key uint64, m game.Move, score, depth int, bound uint8) {
	b := &t.buckets[key&t.mask]
	e := ttEntry{key: key, move: uint32(m), score: int16(score), depth: int8(max(min(depth, 127), -128)), flags: bound | t.gen<<2}
	d := &b[0]
	if d.key == key || d.gen() != t.gen || int(d.depth) <= depth {
		if e.move == 0 && d.key == key {
			e.move = d.move // keep the best move of a shallower search
		}
		*d = e
		return
	}
	if e.move == 0 && b[1].key == key {
		e.move = b[1].move
	}
	b[1] = e
}

// Hashfull returns the permille of slots used by the current search.
func (t *TT) Hashfull() int {
	n := min(len(t.buckets), 500)
	used := 0
	for i := 0; i < n; i++ {
		for j := range t.buckets[i] {
			if e := &t.buckets[i][j]; e.bound() != boundNone && e.gen() == t.gen {
				used++
			}
		}
	}
	return used * 1000 / (2 * n)
}
