// Package parallel runs the parts of a loop on every core through a pool
// of long-lived helper goroutines. A training step runs a few hundred
// such loops; starting goroutines for each (and the closures handing them
// their work) was most of what the step allocated.
//
// Helpers and the caller wait for each other by yielding for a while
// (spin) before they sleep: waking a sleeping goroutine costs tens of
// microseconds where a virtual machine halts an idle core, and a step's
// loops follow each other closer than that.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// spin is how long an idle helper, or a caller waiting for its helpers,
// yields before it sleeps: longer than the gap between two loops of a
// training step, short enough that a pool left idle sleeps at once.
const spin = 200 * time.Microsecond

// For calls f(part) for every part in [0, parts) on up to GOMAXPROCS
// goroutines, the caller's included, and returns when all are done. Parts
// are handed out in order but may run in any order and concurrently, so f
// must write disjoint data per part. f must not call For itself (a helper
// waiting inside f could keep the pool from finishing the outer loop).
//
// For allocates nothing in steady state when f is a func value made once
// (not a closure built per call).
func For(parts int, f func(part int)) {
	workers := min(parts, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for p := 0; p < parts; p++ {
			f(p)
		}
		return
	}
	ensureHelpers(workers - 1)
	l := loops.Get().(*loop)
	l.f, l.parts = f, int64(parts)
	l.next.Store(0)
	l.left.Store(int64(workers - 1))
	l.wg.Add(workers - 1)
	for range workers - 1 {
		work <- l
	}
	l.run()
	for start := time.Now(); l.left.Load() > 0 && time.Since(start) < spin; {
		runtime.Gosched()
	}
	l.wg.Wait()
	l.f = nil
	loops.Put(l)
}

// loop is one For call, shared with the helpers that join it.
type loop struct {
	f     func(int)
	parts int64
	next  atomic.Int64
	left  atomic.Int64 // helpers not done yet, for the caller's spin
	wg    sync.WaitGroup
}

func (l *loop) run() {
	for {
		p := l.next.Add(1) - 1
		if p >= l.parts {
			return
		}
		l.f(int(p))
	}
}

var (
	loops = sync.Pool{New: func() any { return new(loop) }}
	// work hands loops to the helpers. Its buffer lets For post all its
	// requests without waiting for busy helpers; a helper that joins late
	// finds the parts taken and leaves at once.
	work      = make(chan *loop, 256)
	helpersMu sync.Mutex
	helpers   int
)

// ensureHelpers starts helpers until there are at least n.
func ensureHelpers(n int) {
	helpersMu.Lock()
	defer helpersMu.Unlock()
	for ; helpers < n; helpers++ {
		go help()
	}
}

// help runs the loops posted to work, yielding for spin after each before
// it sleeps on the channel.
func help() {
	for {
		var l *loop
		for idle := time.Now(); l == nil; {
			select {
			case l = <-work:
			default:
				if time.Since(idle) < spin {
					runtime.Gosched()
					continue
				}
				l = <-work
			}
		}
		l.run()
		l.left.Add(-1)
		l.wg.Done()
	}
}
