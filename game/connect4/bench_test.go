package connect4

import (
	"testing"

	"github.com/tabula-zero/tabula/game"
)

// BenchmarkPerft8 is the concrete bitboard perft; compare with
// BenchmarkPerftGeneric8 for the cost of the game.Position interface.
func BenchmarkPerft8(b *testing.B) {
	p := New()
	b.ReportAllocs()
	for b.Loop() {
		if n := p.Perft(8); n != perftCounts[7] {
			b.Fatalf("perft(8) = %d", n)
		}
	}
	b.ReportMetric(float64(perftCounts[7])*float64(b.N)/b.Elapsed().Seconds(), "leaves/s")
}

func BenchmarkPerftGeneric8(b *testing.B) {
	p := New()
	b.ReportAllocs()
	for b.Loop() {
		if n := game.PerftGeneric(p, 8); n != perftCounts[7] {
			b.Fatalf("perft(8) = %d", n)
		}
	}
	b.ReportMetric(float64(perftCounts[7])*float64(b.N)/b.Elapsed().Seconds(), "leaves/s")
}

func BenchmarkPerft9(b *testing.B) {
	p := New()
	b.ReportAllocs()
	for b.Loop() {
		if n := p.Perft(9); n != perftCounts[8] {
			b.Fatalf("perft(9) = %d", n)
		}
	}
}

func BenchmarkMakeUnmake(b *testing.B) {
	p, _ := Parse("4453")
	b.ReportAllocs()
	for b.Loop() {
		p.Make(ColumnMove(3))
		p.Unmake()
	}
}
