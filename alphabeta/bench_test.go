package alphabeta_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// BenchmarkXiangqiStart reports time to depth and nodes per second from the
// Xiangqi start position (fresh tables each run), with the engine's
// Xiangqi options.
func BenchmarkXiangqiStart(b *testing.B) {
	for _, depth := range []int{6, 8, 10, 12} {
		b.Run(fmt.Sprintf("depth%d", depth), func(b *testing.B) {
			var nodes uint64
			for b.Loop() {
				s, _ := alphabeta.New(alphabeta.DefaultOptionsFor("xiangqi"))
				p := xiangqi.New(xiangqi.DefaultRules)
				r := s.Search(context.Background(), p, alphabeta.Limits{Depth: depth}, nil)
				nodes += r.Nodes
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

// BenchmarkXiangqiAlgorithms compares the algorithms at a fixed depth on
// the start position with the default pruning.
func BenchmarkXiangqiAlgorithms(b *testing.B) {
	for _, algo := range alphabeta.Algorithms {
		b.Run(algo, func(b *testing.B) {
			var nodes uint64
			for b.Loop() {
				o := alphabeta.DefaultOptions()
				o.Algorithm = algo
				s, _ := alphabeta.New(o)
				r := s.Search(context.Background(), xiangqi.New(xiangqi.DefaultRules), alphabeta.Limits{Depth: 7}, nil)
				nodes += r.Nodes
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
		})
	}
}

// BenchmarkXiangqiMultiPV reports what scoring every root move costs on
// top of the search (nodes/op over middlegame positions, fresh tables):
// none, exact multi-PV, and multi-PV with a margin. The Alpha-Beta-Zero
// blend searches with Xiangqi's pruning set and, at m = 1 soldier, a margin
// of 101 centi-units; the teacher with the classic set and, at temperature
// 0.5, a margin of 401 (abzero.Blender).
func BenchmarkXiangqiMultiPV(b *testing.B) {
	var ps []alphabeta.Position
	for _, p := range gametest.RandomPositions(xiangqi.New(xiangqi.DefaultRules), 8, 30, 5) {
		if len(p.GenerateMoves(nil)) > 0 {
			ps = append(ps, p.(alphabeta.Position))
		}
	}
	for _, set := range []struct {
		name   string
		opts   alphabeta.Options
		depths []int
		margin int
	}{
		{"xiangqi", alphabeta.DefaultOptionsFor("xiangqi"), []int{2, 3, 4, 5}, 101},
		{"classic", alphabeta.DefaultOptions(), []int{2, 3}, 401},
	} {
		for _, depth := range set.depths {
			for _, v := range []struct {
				name   string
				multi  bool
				margin int
				bonus  func(game.Move) float64
			}{
				{"none", false, 0, nil},
				{"exact", true, 0, nil},
				{fmt.Sprintf("margin%d", set.margin), true, set.margin, nil},
				{"margin31", true, 31, nil},
				{"prior30", true, 0, syntheticPrior(30)},
				{"prior100", true, 0, syntheticPrior(100)},
				{"insearch30", false, 0, syntheticPrior(30)},
				{"insearch100", false, 0, syntheticPrior(100)},
			} {
				b.Run(fmt.Sprintf("%s/depth%d/%s", set.name, depth, v.name), func(b *testing.B) {
					var nodes uint64
					for b.Loop() {
						for _, p := range ps {
							o := set.opts
							o.HashMiB = 16 // the blend's table (abzero.DefaultConfig)
							s, _ := alphabeta.New(o)
							r := s.Search(context.Background(), p, alphabeta.Limits{Depth: depth, MultiPV: v.multi, MultiPVMargin: v.margin, RootBonus: v.bonus}, nil)
							nodes += r.Nodes
						}
					}
					b.ReportMetric(float64(nodes)/float64(b.N*len(ps)), "nodes/op")
				})
			}
		}
	}
}

// syntheticPrior is a blend's bonus of weight m (centi-units) over a
// made-up prior in the shape of a trained network's: one move in eight
// (by a hash of the move, so unrelated to its score) holds 0.9 of it in
// unequal parts, every other move a small equal share of the rest.
func syntheticPrior(m float64) func(game.Move) float64 {
	return func(mv game.Move) float64 {
		if h := uint32(mv) * 2654435761; h>>29 == 0 {
			return m * 0.9 * float64(h>>20&0xff) / 255 / 2.5
		}
		return m * 0.1 / 40
	}
}
