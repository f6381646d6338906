package alphabeta

import (
	"testing"

	"github.com/tabula-zero/tabula/game"
)

// BenchmarkTTProbeStore measures one probe and one store at random keys in
// a 64 MiB table (one thread): the cost of the table on the hot path.
func BenchmarkTTProbeStore(b *testing.B) {
	t := NewTT(64)
	x := uint64(0x9e3779b97f4a7c15)
	hits := 0
	for b.Loop() {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		if _, ok := t.probe(x & 0xffffffffff); ok {
			hits++
		}
		t.store(x, game.Move(x>>40), int(int16(x>>20)), int(x>>58), boundExact)
	}
	_ = hits
}
