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
