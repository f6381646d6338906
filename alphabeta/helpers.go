package alphabeta

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/tabula-zero/tabula/game"
)

// Lazy SMP: the helpers of a search run iterative deepening of their own
// on copies of the root position, sharing the main thread's TT, and do
// nothing else: what they find reaches the main thread only as TT entries
// (cutoffs, bounds and moves to try first). Helpers of odd id start one
// ply deeper, so that the threads spread over two depths rather than
// repeat each other's work; their own killers and history order their
// trees differently too.

// startHelpers starts the helpers on copies of p (after prepare) and
// returns the function that stops them and waits for them to return.
func (s *Searcher) startHelpers(p Position) (stop func()) {
	s.running = nil
	if len(s.helpers) == 0 {
		return func() {}
	}
	var flag atomic.Bool
	var wg sync.WaitGroup
	for _, h := range s.helpers {
		q, ok := p.Clone().(Position)
		if !ok {
			break // cannot happen for the games of this module: Clone keeps the type
		}
		h.published.Store(0)
		s.running = append(s.running, h)
		wg.Go(func() { h.help(q, &flag) })
	}
	return func() {
		flag.Store(true)
		wg.Wait()
	}
}

// help is a helper's search: iterative deepening until stop, or until it
// finds a mate within the horizon (the main thread settles its distance).
func (s *Searcher) help(p Position, stop *atomic.Bool) {
	s.prepare(context.Background(), p, Limits{})
	s.stop = stop
	prev := 0
	// The first iteration starts even when stop is already set (a search
	// over at once): every thread of a search searches some nodes.
	for depth := 1 + s.id%2; depth <= MaxDepth; depth++ {
		if depth > 1+s.id%2 && stop.Load() {
			break
		}
		s.rootBest, s.rootScore = game.NoMove, -Infinity
		score := s.root(depth, prev)
		if s.aborted {
			break
		}
		prev = score
		if IsMate(score) && Mate-abs(score) <= depth {
			break
		}
	}
	s.published.Store(s.nodes)
}
