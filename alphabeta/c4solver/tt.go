package c4solver

import "unsafe"

// table is the transposition table: a fixed array of one-word entries
// holding a lower and an upper bound on the exact score of a position,
// always-replace on a collision, bounds merged when the same position is
// stored again.
//
// The packed key (current+mask, 49 bits) is spread by a multiplication by
// an odd constant modulo 2^49, a bijection: the top b bits of the product
// index the 2^b entries and the low 49-b bits, stored in the entry, identify
// the position exactly (Pons' idea of storing only the part of the key that
// the index does not imply, with a power-of-two table instead of a prime).
// With b >= 17 (1 MiB) the check fits in 32 bits.
//
// Entry layout (uint64):
//
//	bits  0-31  check (low 49-b bits of the hashed key)
//	bits 32-37  lower bound + 32
//	bits 38-43  upper bound + 32
//	bits 44-63  generation (1..2^20-1; 0 never matches)
//
// Reset bumps the generation, so clearing costs nothing until the 20-bit
// counter wraps (then the array is zeroed once).
type table struct {
	entries []uint64
	shift   uint   // 49 - b
	check   uint64 // 2^(49-b) - 1
	gen     uint64 // current generation, pre-shifted to bit 44
}

const (
	keyBits  = 49
	keyMask  = 1<<keyBits - 1
	hashMul  = 0x9E3779B97F4A7C15 & keyMask // odd: a bijection mod 2^49
	boundOff = 32
	noLower  = -boundOff    // "no lower bound" (below every score)
	noUpper  = boundOff - 1 // "no upper bound" (above every score)
	genShift = 44
	genMax   = 1<<(64-genShift) - 1
	// matchMask covers the check and generation fields.
	matchMask = 0xFFFFFFFF | uint64(genMax)<<genShift

	minTTBits = 17 // the check must fit in 32 bits
	maxTTBits = 36 // 512 GiB: far beyond any machine this runs on
)

// entrySize is the size of one entry in bytes.
const entrySize = int(unsafe.Sizeof(uint64(0)))

// newTable returns a table of the largest power of two of entries that fits
// in mib MiB (at least 1).
func newTable(mib int) *table {
	b := uint(minTTBits)
	for b < maxTTBits && uint64(1)<<(b+1)*uint64(entrySize) <= uint64(mib)<<20 {
		b++
	}
	return &table{
		entries: allocEntries(1 << b),
		shift:   keyBits - b,
		check:   1<<(keyBits-b) - 1,
		gen:     1 << genShift,
	}
}

// reset forgets every entry.
func (t *table) reset() {
	g := t.gen>>genShift + 1
	if g > genMax {
		clear(t.entries)
		g = 1
	}
	t.gen = g << genShift
}

// probe returns the bounds stored for key.
func (t *table) probe(key uint64) (lo, hi int, ok bool) {
	h := (key * hashMul) & keyMask
	e := t.entries[h>>t.shift]
	if e&matchMask != h&t.check|t.gen {
		return 0, 0, false
	}
	return int(e>>32&63) - boundOff, int(e>>38&63) - boundOff, true
}

// store records lo <= score <= hi for key, tightening the bounds already
// stored for the same position.
func (t *table) store(key uint64, lo, hi int) {
	h := (key * hashMul) & keyMask
	i := h >> t.shift
	id := h&t.check | t.gen
	if e := t.entries[i]; e&matchMask == id {
		lo = max(lo, int(e>>32&63)-boundOff)
		hi = min(hi, int(e>>38&63)-boundOff)
	}
	t.entries[i] = id | uint64(lo+boundOff)<<32 | uint64(hi+boundOff)<<38
}

// sizeBytes returns the memory the entries take.
func (t *table) sizeBytes() int { return len(t.entries) * entrySize }

// mirrorKey returns the packed key of the left-right mirror image. The
// packed key current+mask never carries from one 7-bit column group into
// the next (a column's mask bits are contiguous from the bottom and its
// current bits a subset), so mirroring the key is reversing its groups.
func mirrorKey(k uint64) uint64 {
	const g = 0x7F
	return (k&g)<<42 | (k>>7&g)<<35 | (k>>14&g)<<28 | k&(g<<21) |
		(k>>28&g)<<14 | (k>>35&g)<<7 | k>>42&g
}
