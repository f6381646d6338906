package xiangqi

import (
	"fmt"
	"testing"

	"github.com/tabula-zero/tabula/game"
)

// BenchmarkPerft5 is the figure compared with Fairy-Stockfish's `go perft 5`
// (133,312,995 leaves) on the same machine.
func BenchmarkPerft5(b *testing.B) {
	p := New(DefaultRules)
	for b.Loop() {
		if n := p.Perft(5); n != 133312995 {
			b.Fatalf("perft(5) = %d", n)
		}
	}
}

func BenchmarkPerft4(b *testing.B) {
	p := New(DefaultRules)
	for b.Loop() {
		p.Perft(4)
	}
}

// BenchmarkPerftGeneric4 runs the same tree through the game.Position
// interface: the price of writing search code once for all games.
func BenchmarkPerftGeneric4(b *testing.B) {
	p := New(DefaultRules)
	for b.Loop() {
		game.PerftGeneric(p, 4)
	}
}

func BenchmarkMakeUnmake(b *testing.B) {
	p := New(DefaultRules)
	ms := p.GenerateMoves(nil)
	b.ResetTimer()
	for b.Loop() {
		for _, m := range ms {
			p.Make(m)
			p.Unmake()
		}
	}
}

func BenchmarkLegalMoves(b *testing.B) {
	ps := randomPositions(3, 4)
	var ml [MaxMoves]game.Move
	b.ResetTimer()
	for b.Loop() {
		for _, p := range ps {
			p.(*Position).LegalMoves(&ml)
		}
	}
}

// BenchmarkEncode times the network's input planes of one position (per
// op: all positions of the set; ns/position is one), of encoder
// version 2 and version 3 with the SEE planes.
func BenchmarkEncode(b *testing.B) {
	ps := randomPositions(3, 20)
	for _, enc := range []Encoder{{}, ThreatEncoder} {
		b.Run(fmt.Sprintf("v%d", enc.Version()), func(b *testing.B) {
			c, h, w := enc.Shape()
			planes := make([]float32, c*h*w)
			for b.Loop() {
				for _, p := range ps {
					enc.Encode(p, planes)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ps)), "ns/position")
		})
	}
}

// BenchmarkEvaluate times the static evaluation on positions of random
// games, with and without the terms beyond material and tables.
func BenchmarkEvaluate(b *testing.B) {
	ps := randomPositions(3, 20)
	saved := EvalWeights()
	defer SetEvalWeights(saved)
	tables := append([]int32(nil), saved...)
	clear(tables[firstDynamicTerm:])
	for _, c := range []struct {
		name string
		w    []int32
	}{{"tables", tables}, {"all", saved}} {
		SetEvalWeights(c.w)
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				ps[i%len(ps)].(*Position).Evaluate()
				i++
			}
		})
	}
}

// BenchmarkMoveFeatures times the playout policy's move features (a make,
// an attack test and an unmake) over every legal move of random positions.
func BenchmarkMoveFeatures(b *testing.B) {
	ps := randomPositions(3, 20)
	moves := make([][]game.Move, len(ps))
	for i, p := range ps {
		moves[i] = p.GenerateMoves(nil)
	}
	for b.Loop() {
		for i, p := range ps {
			for _, m := range moves[i] {
				p.(*Position).MoveFeatures(m)
			}
		}
	}
}
