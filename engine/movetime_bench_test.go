package engine

import (
	"strconv"
	"testing"
	"time"
)

// BenchmarkMoveTimeThreads measures how late `go movetime 100` answers
// with Threads above the cores: each thread must get a turn on a core to
// see that the time is up, so the engine caps them at the cores. The
// figure is the time from go to bestmove beyond movetime less
// MoveOverhead (the search's deadline); a negative one is early.
//
//	go test -run XXX -bench MoveTimeThreads -benchtime 20x ./engine
func BenchmarkMoveTimeThreads(b *testing.B) {
	for _, threads := range []int{1, 2, 16, 64} {
		b.Run("threads="+strconv.Itoa(threads), func(b *testing.B) {
			s := startSession(b)
			s.send(b, "uci", "setoption name Threads value "+strconv.Itoa(threads), "setoption name Hash value 16", "isready")
			s.until(b, "readyok")
			const budget = 100*time.Millisecond - 50*time.Millisecond // movetime less MoveOverhead
			var worst, total time.Duration
			for b.Loop() {
				s.send(b, "ucinewgame", "position startpos", "isready")
				s.until(b, "readyok")
				start := time.Now()
				s.send(b, "go movetime 100")
				s.until(b, "bestmove")
				late := time.Since(start) - budget
				total += late
				worst = max(worst, late)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "late-ms/move")
			b.ReportMetric(float64(worst.Milliseconds()), "worst-late-ms")
			s.send(b, "quit")
		})
	}
}
