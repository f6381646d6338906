package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Every part runs exactly once, for part counts around the worker count,
// also when several goroutines share the pool at once.
func TestForRunsEveryPartOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for _, parts := range []int{0, 1, 2, 3, 4, 5, 17, 1000} {
				counts := make([]atomic.Int32, parts)
				For(parts, func(p int) { counts[p].Add(1) })
				for p := range counts {
					if c := counts[p].Load(); c != 1 {
						t.Errorf("%d parts: part %d ran %d times", parts, p, c)
					}
				}
			}
		})
	}
	wg.Wait()
}

// More processors than a loop has shares: the extra ones stay out and
// every part still runs once.
func TestForManyProcessors(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(maxWorkers + 16))
	for _, parts := range []int{maxWorkers - 1, maxWorkers + 1, 5000} {
		counts := make([]atomic.Int32, parts)
		For(parts, func(p int) { counts[p].Add(1) })
		for p := range counts {
			if c := counts[p].Load(); c != 1 {
				t.Fatalf("%d parts: part %d ran %d times", parts, p, c)
			}
		}
	}
}

func TestForAllocatesNothing(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	sums := make([]int, 64)
	f := func(p int) { sums[p] += p }
	For(64, f) // starts the helpers
	if a := testing.AllocsPerRun(100, func() { For(64, f) }); a != 0 {
		t.Errorf("For allocates %v objects per call", a)
	}
	for p, s := range sums {
		if s != 102*p {
			t.Fatalf("part %d summed %d, want %d", p, s, 102*p)
		}
	}
}

// BenchmarkFor is the round trip of a loop of two parts doing little: a
// training step of a small network runs a few hundred of these.
func BenchmarkFor(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var sums [2][16]int
	f := func(p int) {
		for i := range 200 {
			sums[p][i%16] += i
		}
	}
	For(2, f)
	for b.Loop() {
		For(2, f)
	}
}
