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

// A caller waits for its loop's parts, not for its helpers: with a helper
// that has not started (asleep on a busy machine, here never started),
// the caller runs every part itself and returns; the helper's mailbox
// keeps the loop until the helper takes it, finds nothing left and lets
// go of it, and meanwhile loops run without that helper.
func TestForDoesNotWaitForAHelperThatHasNotStarted(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	h := &helper{worker: 1, wake: make(chan struct{}, 1)}
	saved := pool.Load()
	pool.Store(&[]*helper{h})
	defer pool.Store(saved)
	counts := make([]atomic.Int32, 8)
	f := func(p int) { counts[p].Add(1) }
	check := func(want int32) {
		t.Helper()
		for p := range counts {
			if c := counts[p].Load(); c != want {
				t.Fatalf("part %d ran %d times, want %d", p, c, want)
			}
		}
	}
	For(len(counts), f)
	check(1)
	stale := h.mail.Load()
	if stale == nil {
		t.Fatal("the loop was not posted to the helper")
	}
	For(len(counts), f) // the helper's mailbox is full: the caller goes alone
	check(2)
	if h.mail.Load() != stale {
		t.Fatal("a second loop replaced the first in the helper's mailbox")
	}
	go h.serve()
	for h.mail.Load() != nil {
		runtime.Gosched()
	}
	For(len(counts), f)
	check(3)
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
