package nnuetrain

import (
	"sync"
	"sync/atomic"
)

// pool runs the parts of a loop on a fixed number of goroutines, the
// caller's included. A part's work never depends on which goroutine runs
// it, so the thread count changes the speed, never the bits.
type pool struct {
	f     func(part int)
	parts int64
	next  atomic.Int64
	start []chan struct{}
	wg    sync.WaitGroup
}

func newPool(threads int) *pool {
	p := &pool{start: make([]chan struct{}, max(threads, 1)-1)}
	for i := range p.start {
		c := make(chan struct{})
		p.start[i] = c
		go func() {
			for range c {
				p.work()
				p.wg.Done()
			}
		}()
	}
	return p
}

// run calls f(part) for every part in [0, parts) and returns when all
// are done. f is a func value made once: run allocates nothing.
func (p *pool) run(parts int, f func(part int)) {
	p.f, p.parts = f, int64(parts)
	p.next.Store(0)
	helpers := min(len(p.start), parts-1)
	p.wg.Add(max(helpers, 0))
	for _, c := range p.start[:max(helpers, 0)] {
		c <- struct{}{}
	}
	p.work()
	p.wg.Wait()
	p.f = nil
}

func (p *pool) work() {
	for {
		i := p.next.Add(1) - 1
		if i >= p.parts {
			return
		}
		p.f(int(i))
	}
}

// close ends the helper goroutines.
func (p *pool) close() {
	for _, c := range p.start {
		close(c)
	}
	p.start = nil
}
