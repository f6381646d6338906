package nnue

import (
	"context"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// benchFENs: the search positions and middle-game positions of random
// games, the same for both evaluations.
func benchFENs() []string {
	fens := append([]string(nil), searchPositions...)
	for i, p := range gametest.RandomPositions(xiangqi.New(xiangqi.DefaultRules), 6, 40, 17) {
		if i%40 == 39 && len(p.GenerateMoves(nil)) > 0 {
			fens = append(fens, p.String())
		}
	}
	return fens
}

// BenchmarkSearchNPS compares alphabeta's nodes a second on one thread
// with the classical evaluation and with the learned one (a random
// network of the default sizes, on each kernel set this CPU runs), the
// same positions and options (the engine's Xiangqi set), each search
// bounded by nodes from fresh tables. nodes/s counts the searches' own
// time (alphabeta.Result.Time).
func BenchmarkSearchNPS(b *testing.B) {
	fens := benchFENs()
	net := NewRandom(1)
	run := func(b *testing.B, wrap func(*xiangqi.Position) alphabeta.Position) {
		o := alphabeta.DefaultOptionsFor("xiangqi")
		o.HashMiB = 16
		s, err := alphabeta.New(o)
		if err != nil {
			b.Fatal(err)
		}
		var nodes uint64
		var dur time.Duration
		for b.Loop() {
			for _, fen := range fens {
				xp, err := xiangqi.Parse(fen, xiangqi.DefaultRules)
				if err != nil {
					b.Fatal(err)
				}
				s.Clear()
				r := s.Search(context.Background(), wrap(xp), alphabeta.Limits{Nodes: 50000}, nil)
				nodes += r.Nodes
				dur += r.Time
			}
		}
		b.ReportMetric(float64(nodes)/dur.Seconds(), "nodes/s")
	}
	b.Run("classical", func(b *testing.B) {
		run(b, func(xp *xiangqi.Position) alphabeta.Position { return xp })
	})
	for i := range kernelSets {
		ks := &kernelSets[i]
		b.Run("learned-"+ks.name, func(b *testing.B) {
			run(b, func(xp *xiangqi.Position) alphabeta.Position {
				p := New(net, xp)
				p.k = ks
				return p
			})
		})
	}
}

// BenchmarkEvaluate is the forward pass alone (accumulators up to date),
// per kernel set; BenchmarkRefresh the accumulators from scratch; and
// BenchmarkMakeEvaluate a move, its incremental update and evaluation,
// and the take-back.
func BenchmarkEvaluate(b *testing.B) {
	b.Run("classical", func(b *testing.B) {
		p := xiangqi.New(xiangqi.DefaultRules)
		for b.Loop() {
			p.Evaluate()
		}
	})
	net := NewRandom(1)
	for i := range kernelSets {
		ks := &kernelSets[i]
		b.Run(ks.name, func(b *testing.B) {
			p := New(net, xiangqi.New(xiangqi.DefaultRules))
			p.k = ks
			p.Evaluate()
			for b.Loop() {
				p.Evaluate()
			}
		})
	}
}

func BenchmarkRefresh(b *testing.B) {
	net := NewRandom(1)
	for i := range kernelSets {
		ks := &kernelSets[i]
		b.Run(ks.name, func(b *testing.B) {
			p := New(net, xiangqi.New(xiangqi.DefaultRules))
			p.k = ks
			for b.Loop() {
				p.refresh(0)
			}
		})
	}
}

func BenchmarkMakeEvaluate(b *testing.B) {
	net := NewRandom(1)
	for i := range kernelSets {
		ks := &kernelSets[i]
		b.Run(ks.name, func(b *testing.B) {
			p := New(net, xiangqi.New(xiangqi.DefaultRules))
			p.k = ks
			p.Evaluate()
			moves := p.GenerateMoves(make([]game.Move, 0, xiangqi.MaxMoves))
			j := 0
			for b.Loop() {
				p.Make(moves[j])
				p.Evaluate()
				p.Unmake()
				j = (j + 1) % len(moves)
			}
		})
	}
}
