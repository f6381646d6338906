package nnue

import (
	"context"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/internal/cputime"
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
// network of the default sizes), one sub-benchmark per kernel set this CPU
// runs: the same positions and options (the engine's Xiangqi set), each
// search bounded by nodes from fresh tables, the two evaluations in turn
// position by position so that a shared machine's load falls on both
// alike. It reports each one's nodes a second over the searches' own
// time (alphabeta.Result.Time) and over the process's CPU time, which
// other processes' load does not stretch, and learned/classical for both.
func BenchmarkSearchNPS(b *testing.B) {
	fens := benchFENs()
	net := NewRandom(1)
	for i := range kernelSets {
		ks := &kernelSets[i]
		b.Run(ks.name, func(b *testing.B) {
			o := alphabeta.DefaultOptionsFor("xiangqi")
			o.HashMiB = 16
			s, err := alphabeta.New(o)
			if err != nil {
				b.Fatal(err)
			}
			var nodes [2]uint64
			var wall, cpu [2]time.Duration
			for b.Loop() {
				for _, fen := range fens {
					for kind := range 2 {
						xp, err := xiangqi.Parse(fen, xiangqi.DefaultRules)
						if err != nil {
							b.Fatal(err)
						}
						var p alphabeta.Position = xp
						if kind == 1 {
							np := New(net, xp)
							np.k = ks
							p = np
						}
						s.Clear()
						c0, _ := cputime.Process()
						r := s.Search(context.Background(), p, alphabeta.Limits{Nodes: 50000}, nil)
						c1, _ := cputime.Process()
						nodes[kind] += r.Nodes
						wall[kind] += r.Time
						cpu[kind] += c1 - c0
					}
				}
			}
			nps := func(k int, d time.Duration) float64 { return float64(nodes[k]) / d.Seconds() }
			b.ReportMetric(nps(0, wall[0]), "classical-nodes/s")
			b.ReportMetric(nps(1, wall[1]), "learned-nodes/s")
			b.ReportMetric(nps(1, wall[1])/nps(0, wall[0]), "ratio")
			if cpu[0] > 0 && cpu[1] > 0 {
				b.ReportMetric(nps(0, cpu[0]), "classical-nodes/cpu-s")
				b.ReportMetric(nps(1, cpu[1]), "learned-nodes/cpu-s")
				b.ReportMetric(nps(1, cpu[1])/nps(0, cpu[0]), "cpu-ratio")
			}
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

// BenchmarkUpdate is one incremental update of one perspective (a quiet
// move: a row added, a row subtracted).
func BenchmarkUpdate(b *testing.B) {
	net := NewRandom(1)
	for i := range kernelSets {
		ks := &kernelSets[i]
		b.Run(ks.name, func(b *testing.B) {
			src, dst := make([]int16, net.sizes.L1), make([]int16, net.sizes.L1)
			add, sub := []uint16{100}, []uint16{5000}
			for b.Loop() {
				ks.update(dst, src, net.ftW, add, sub)
				add[0] = (add[0] + 97) % NumFeatures
				sub[0] = (sub[0] + 89) % NumFeatures
			}
		})
	}
}
