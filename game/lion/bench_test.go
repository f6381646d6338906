package lion

import (
	"testing"

	"github.com/tabula-zero/tabula/game"
)

func benchPerft(b *testing.B, depth int, generic bool) {
	p := start(b, nil)
	want := perftCounts["safe"][depth-1]
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var n uint64
		if generic {
			n = game.PerftGeneric(p, depth)
		} else {
			n = p.Perft(depth)
		}
		if n != want {
			b.Fatalf("perft(%d) = %d, want %d", depth, n, want)
		}
	}
	b.ReportMetric(float64(want)*float64(b.N)/b.Elapsed().Seconds(), "leaves/s")
}

// BenchmarkPerft7 is the specialised perft on the concrete type.
func BenchmarkPerft7(b *testing.B) { benchPerft(b, 7, false) }

// BenchmarkPerftGeneric7 is the same count through the game.Position
// interface; the ratio to BenchmarkPerft7 is the cost of the interface.
func BenchmarkPerftGeneric7(b *testing.B) { benchPerft(b, 7, true) }

func BenchmarkMakeUnmake(b *testing.B) {
	ps := randomPositions(b, safeOpts, 5)
	var buf [maxMoves]game.Move
	b.ReportAllocs()
	for b.Loop() {
		for _, gp := range ps {
			p := gp.(*Position)
			for _, m := range p.GenerateMoves(buf[:0]) {
				p.Make(m)
				p.Unmake()
			}
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	ps := randomPositions(b, safeOpts, 5)
	enc := Encoder{}
	c, h, w := enc.Shape()
	dst := make([]float32, c*h*w)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range ps {
			enc.Encode(p, dst)
		}
	}
}
