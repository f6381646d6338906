// Package parallel runs the parts of a loop on every core through a pool
// of long-lived helper goroutines. A training step runs a few hundred
// such loops; starting goroutines for each (and the closures handing them
// their work) was most of what the step allocated.
//
// Each helper has a mailbox the caller posts its loop to. An idle helper
// watches its mailbox for a while (spin) before it sleeps, and so does a
// caller waiting for its helpers: waking a sleeping goroutine costs tens
// of microseconds where a virtual machine halts an idle core, and a step's
// loops follow each other closer than that. A watcher does not yield the
// processor while it watches: a goroutine that yields (runtime.Gosched)
// goes to the scheduler's global queue, which no idle core is woken to
// look at, so the caller and its helper could end up taking turns on one
// core while the other stood idle for milliseconds (an execution trace of
// Connect Four's training step at batch 64 on a Xeon: a core idle 18% of
// the step, in gaps of 1-5 ms). The pool's loops run while nothing else in
// the process wants the cores (a training step: self-play is paused), and
// a watch ends in sleep within spin.
//
// Each worker (the caller is worker 0, helper i worker i+1) starts on its
// own contiguous share of the parts and takes the others' remaining parts
// only when its own are done. A step's loops go over the same images one
// after the other, so each core finds its share of the data in its own
// cache from the loop before: handing the parts out in one queue moved
// them between the cores' caches at every loop: Connect Four's training
// step at batch 64 ran 14-18% slower so.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// spin is how long an idle helper, or a caller waiting for its helpers,
// watches before it sleeps: longer than the gaps of a training step
// (its loops, and the serial update and batch checks between two steps,
// about 0.35 ms for Connect Four), short enough that a pool left idle
// soon sleeps.
const spin = time.Millisecond

// polls is how many times a watcher reads its word between looks at the
// clock.
const polls = 64

// For calls f(part) for every part in [0, parts) on up to GOMAXPROCS
// goroutines, the caller's included, and returns when all are done. Parts
// may run in any order and concurrently, so f must write disjoint data per
// part. f must not call For itself (a helper waiting inside f could keep
// the pool from finishing the outer loop). Callers on several goroutines
// share the helpers: a helper busy with another caller's loop is passed
// over, and the caller runs the parts nobody else takes.
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
	workers = min(workers, maxWorkers)
	hs := ensureHelpers(workers - 1)
	l := loops.Get().(*loop)
	l.f, l.parts, l.workers = f, int64(parts), int64(workers)
	for w := range l.workers {
		l.shares[w].next.Store(w * l.parts / l.workers)
		l.shares[w].end = (w + 1) * l.parts / l.workers
	}
	l.pending.Store(int64(parts))
	l.wg.Add(parts)
	want := int64(workers - 1)
	l.refs.Store(1 + want)
	posted := int64(0)
	for _, h := range hs {
		if posted == want {
			break
		}
		if h.post(l) {
			posted++
		}
	}
	if posted < want { // helpers busy elsewhere: this caller does their share
		l.refs.Add(posted - want)
	}
	l.run(0)
	// The caller waits for the parts, not for the helpers: a helper that
	// has not started (asleep, or its core taken) finds nothing left when
	// it does, and lets go of the loop then.
	watch(func() bool { return l.pending.Load() == 0 })
	l.wg.Wait()
	l.release()
}

// watch polls done for up to spin; it returns early when done holds.
func watch(done func() bool) {
	start := time.Now()
	for {
		for range polls {
			if done() {
				return
			}
		}
		if time.Since(start) >= spin {
			return
		}
	}
}

// maxWorkers bounds the workers of one loop.
const maxWorkers = 64

// loop is one For call, shared with the helpers posted to it.
type loop struct {
	f              func(int)
	parts, workers int64
	shares         [maxWorkers]share
	pending        atomic.Int64   // parts not finished yet, for the caller's spin
	wg             sync.WaitGroup // the same count, for a caller that sleeps
	refs           atomic.Int64   // the caller and the helpers posted that hold it still
}

// release lets go of l; the last one to do so returns it to the pool.
func (l *loop) release() {
	if l.refs.Add(-1) == 0 {
		l.f = nil
		loops.Put(l)
	}
}

// share is one worker's contiguous run of parts: next is taken, by its
// worker or by another one that finished its own, until it reaches end.
type share struct {
	next atomic.Int64
	end  int64
	_    [48]byte // one share a cache line
}

// run is worker w's part of the loop: its own share, then what is left of
// the others'.
func (l *loop) run(w int64) {
	for i := range l.workers {
		s := &l.shares[(w+i)%l.workers]
		for {
			p := s.next.Add(1) - 1
			if p >= s.end {
				break
			}
			l.f(int(p))
			l.pending.Add(-1)
			l.wg.Done()
		}
	}
}

// helper is one helper goroutine's mailbox.
type helper struct {
	worker int64                // 1 + its place in the pool
	mail   atomic.Pointer[loop] // the loop posted to it; nil when empty
	asleep atomic.Bool
	wake   chan struct{} // a hint to look at mail again; buffered 1
	_      [64]byte      // keeps helpers' words on separate cache lines
}

// post hands l to h unless h's mailbox is full, waking h if it sleeps.
func (h *helper) post(l *loop) bool {
	if !h.mail.CompareAndSwap(nil, l) {
		return false
	}
	if h.asleep.Load() {
		select {
		case h.wake <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
	return true
}

// serve runs the loops posted to h, watching its mailbox for spin after
// each before it sleeps.
func (h *helper) serve() {
	for {
		l := h.mail.Swap(nil)
		if l == nil {
			watch(func() bool { return h.mail.Load() != nil })
			if l = h.mail.Swap(nil); l == nil {
				// Sleep; a post after asleep is set sees it and wakes us,
				// one before it is found by the second look.
				h.asleep.Store(true)
				if l = h.mail.Swap(nil); l == nil {
					<-h.wake
				}
				h.asleep.Store(false)
				if l == nil {
					continue
				}
			}
		}
		l.run(h.worker % l.workers) // a helper posted in a busy one's place shares a share
		l.release()
	}
}

var (
	loops     = sync.Pool{New: func() any { return new(loop) }}
	helpersMu sync.Mutex
	pool      atomic.Pointer[[]*helper]
)

// ensureHelpers starts helpers until there are at least n and returns
// them all.
func ensureHelpers(n int) []*helper {
	if hs := pool.Load(); hs != nil && len(*hs) >= n {
		return *hs
	}
	helpersMu.Lock()
	defer helpersMu.Unlock()
	var hs []*helper
	if p := pool.Load(); p != nil {
		hs = *p
	}
	for len(hs) < n {
		h := &helper{worker: int64(len(hs) + 1), wake: make(chan struct{}, 1)}
		go h.serve()
		hs = append(hs[:len(hs):len(hs)], h)
	}
	pool.Store(&hs)
	return hs
}
