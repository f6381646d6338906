package c4solver

import (
	"os"
	"strconv"
	"testing"

	"github.com/tabula-zero/tabula/game/connect4"
)

// BenchmarkSets solves the positions of Pons' sets one per iteration, in
// file order, each with an empty table (Pons' protocol), so that with
// -benchtime=1000x ns/op is the mean time per position over the whole set
// and nodes/pos the mean node count:
//
//	go test -run '^$' -bench 'Sets/L2_R1' -benchtime=1000x ./alphabeta/c4solver/
//	go test -run '^$' -bench 'Sets/L1_R2' -benchtime=1000x -timeout 2h ./alphabeta/c4solver/
func BenchmarkSets(b *testing.B) {
	for _, set := range []string{"L3_R1", "L2_R1", "L2_R2", "L1_R1", "L1_R2", "L1_R3"} {
		b.Run(set, func(b *testing.B) {
			ps := loadSet(b, "Test_"+set, 1)
			for _, algo := range Algorithms() {
				b.Run(algo, func(b *testing.B) {
					benchPositions(b, algo, ps)
				})
			}
		})
	}
}

func benchPositions(b *testing.B, algo string, ps []testPos) {
	s, err := New(algo, ttMiBFromEnv())
	if err != nil {
		b.Fatal(err)
	}
	s.SetMirror(os.Getenv("TABULA_C4_MIRROR") == "1")
	var nodes uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tp := ps[i%len(ps)]
		s.Reset()
		if v := s.Solve(tp.pos); v != tp.score {
			b.Fatalf("line %d %s: score %d, Pons %d", tp.line, tp.moves, v, tp.score)
		}
		nodes += s.Nodes()
	}
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/pos")
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/pos")
}

// ttMiBFromEnv returns TABULA_C4_TT (MiB) or DefaultTTMiB.
func ttMiBFromEnv() int {
	if v, err := strconv.Atoi(os.Getenv("TABULA_C4_TT")); err == nil && v > 0 {
		return v
	}
	return DefaultTTMiB
}

// BenchmarkEmptyBoard solves the start position (score 1) with the
// fastest algorithm, a 1 GiB table and the mirrored lookup unless
// TABULA_C4_MIRROR=0 (TABULA_C4_ALGO and TABULA_C4_TT override). It takes
// minutes:
//
//	go test -run '^$' -bench EmptyBoard -benchtime=1x -timeout 1h ./alphabeta/c4solver/
func BenchmarkEmptyBoard(b *testing.B) {
	algo := Fastest
	if a := os.Getenv("TABULA_C4_ALGO"); a != "" {
		algo = a
	}
	mib := 1024
	if v, err := strconv.Atoi(os.Getenv("TABULA_C4_TT")); err == nil && v > 0 {
		mib = v
	}
	s, err := New(algo, mib)
	if err != nil {
		b.Fatal(err)
	}
	s.SetMirror(os.Getenv("TABULA_C4_MIRROR") != "0")
	var nodes uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Reset()
		if v := s.Solve(connect4.New()); v != 1 {
			b.Fatalf("start position scores %d, want 1", v)
		}
		nodes += s.Nodes()
	}
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/solve")
}

// BenchmarkSearchDepth measures the heuristic search at depth 8 on the
// first 100 positions of L1_R1.
func BenchmarkSearchDepth(b *testing.B) {
	ps := loadSet(b, "Test_L1_R1", 10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		SearchDepth(ps[i%len(ps)].pos, 8)
	}
}
