package alphabeta

import (
	"math/bits"
	"sync/atomic"

	"github.com/tabula-zero/tabula/game"
)

// Bound kinds stored in the transposition table.
const (
	boundNone  = 0
	boundUpper = 1 // score <= stored (fail low)
	boundLower = 2 // score >= stored (fail high)
	boundExact = boundUpper | boundLower
)

// ttEntry is an entry as probe returns it: the full key (to reject index
// collisions), move, score, depth, bound and generation.
type ttEntry struct {
	key   uint64
	move  uint32
	score int16
	depth int8
	flags uint8 // bound in the low 2 bits, generation above
}

func (e *ttEntry) bound() uint8 { return e.flags & 3 }
func (e *ttEntry) gen() uint8   { return e.flags >> 2 }

// pack returns the entry's data word: move, score, depth and flags.
func (e *ttEntry) pack() uint64 {
	return uint64(e.move) | uint64(uint16(e.score))<<32 | uint64(uint8(e.depth))<<48 | uint64(e.flags)<<56
}

// unpack reads a data word back.
func unpack(key, data uint64) ttEntry {
	return ttEntry{key: key, move: uint32(data), score: int16(data >> 32), depth: int8(data >> 48), flags: uint8(data >> 56)}
}

// slot is a stored entry, 16 bytes: the data word and a check word, key ^
// data (lockless hashing, Hyatt and Mann). Threads read and write the two
// words with atomic loads and stores but no lock, so a reader may see the
// check word of one store with the data word of another; the key it
// recovers (check ^ data) then does not match, and the torn entry is a
// miss.
type slot struct {
	check atomic.Uint64
	data  atomic.Uint64
}

// load returns the slot's entry, its key recovered from the check word.
func (s *slot) load() ttEntry {
	d := s.data.Load()
	return unpack(s.check.Load()^d, d)
}

func (s *slot) save(e ttEntry) {
	d := e.pack()
	s.check.Store(e.key ^ d)
	s.data.Store(d)
}

// bucket holds a depth-preferred slot and an always-replace slot.
type bucket [2]slot

// TT is a transposition table of a fixed size. Probes and stores are safe
// for concurrent use (the threads of one search share it, lockless);
// NewSearch and Clear are not, and run between searches.
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
		if e := b[i].load(); e.key == key && e.bound() != boundNone {
			return e, true
		}
	}
	return ttEntry{}, false
}

// store writes into the depth-preferred slot when the new entry is at least
// as deep or the slot is from an older search, else into the other slot.
func (t *TT) store(key uint64, m game.Move, score, depth int, bound uint8) {
	b := &t.buckets[key&t.mask]
	e := ttEntry{key: key, move: uint32(m), score: int16(score), depth: int8(max(min(depth, 127), -128)), flags: bound | t.gen<<2}
	d := b[0].load()
	if d.key == key || d.gen() != t.gen || int(d.depth) <= depth {
		if e.move == 0 && d.key == key {
			e.move = d.move // keep the best move of a shallower search
		}
		b[0].save(e)
		return
	}
	if e.move == 0 {
		if a := b[1].load(); a.key == key {
			e.move = a.move
		}
	}
	b[1].save(e)
}

// Hashfull returns the permille of slots used by the current search.
func (t *TT) Hashfull() int {
	n := min(len(t.buckets), 500)
	used := 0
	for i := 0; i < n; i++ {
		for j := range t.buckets[i] {
			if e := t.buckets[i][j].load(); e.bound() != boundNone && e.gen() == t.gen {
				used++
			}
		}
	}
	return used * 1000 / (2 * n)
}
