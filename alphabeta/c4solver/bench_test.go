package c4solver

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game/connect4"
)

// BenchmarkSets solves the positions of Pons' sets one per iteration, in
// file order and cycling, each with an empty table (Pons' protocol). With
// -benchtime=1000x (one pass over a set) or k*1000x (k passes) it reports
// means over the set: nodes/pos; µs/pos, the wall-clock solve time, each
// position's fastest pass counting (on a shared machine the other
// processes only ever slow a solve down; a position's cache lines are long
// evicted when its next pass comes); and cpu-µs/pos, the solving thread's
// CPU time over all passes. TABULA_C4_TT sets the table size in MiB,
// TABULA_C4_MIRROR=1 turns the mirrored lookup on:
//
//	go test -run '^$' -bench 'Sets/L2_R1' -benchtime=5000x ./alphabeta/c4solver/
//	go test -run '^$' -bench 'Sets/L1_R2' -benchtime=2000x -timeout 3h ./alphabeta/c4solver/
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
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fastest := make([]time.Duration, len(ps))
	var nodes uint64
	b.ResetTimer()
	cpu0, cpuOK := threadCPU()
	for i := 0; i < b.N; i++ {
		j := i % len(ps)
		tp := ps[j]
		s.Reset()
		t0 := time.Now()
		v := s.Solve(tp.pos)
		el := time.Since(t0)
		if v != tp.score {
			b.Fatalf("line %d %s: score %d, Pons %d", tp.line, tp.moves, v, tp.score)
		}
		if i < len(ps) || el < fastest[j] {
			fastest[j] = el
		}
		nodes += s.Nodes()
	}
	cpu1, _ := threadCPU()
	b.StopTimer()
	var wall time.Duration
	n := min(b.N, len(ps))
	for _, d := range fastest[:n] {
		wall += d
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/pos")
	b.ReportMetric(float64(wall.Nanoseconds())/1e3/float64(n), "µs/pos")
	if cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/1e3/float64(b.N), "cpu-µs/pos")
	}
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
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var nodes uint64
	b.ResetTimer()
	cpu0, cpuOK := threadCPU()
	for i := 0; i < b.N; i++ {
		s.Reset()
		if v := s.Solve(connect4.New()); v != 1 {
			b.Fatalf("start position scores %d, want 1", v)
		}
		nodes += s.Nodes()
	}
	cpu1, _ := threadCPU()
	b.StopTimer()
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/solve")
	if cpuOK {
		b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s/solve")
	}
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
