package alphabeta_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
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
