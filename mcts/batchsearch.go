package mcts

import (
	"context"
	"fmt"

	"github.com/tabula-zero/tabula/game"
)

// leaf is a position of a batch waiting for the evaluator: the path from
// the root to it (each node under one virtual visit), its legal moves and
// where the evaluator writes their priors.
type leaf struct {
	path   []*node
	moves  []game.Move
	priors []float32
}

// searchBatch is Search's PUCT loop through a batch evaluator: it descends
// until a batch is full, each path under a virtual visit, evaluates the
// batch in one call and backs the values up in the order the leaves were
// found. A descent that ends at a leaf already in the batch (a collision)
// leaves its virtual visits until the batch is evaluated, so that the next
// one leans further away; as many collisions as the batch holds end it
// early. Leaves whose game is over or that the solver proved are backed up
// at once. It returns the simulations done. With the same evaluator
// answers the search is deterministic; its visits differ from the
// one-at-a-time loop's, which sees every value before the next descent.
//
// A pending descent counts as a visit in the exploration term only, its
// value left out, rather than as a lost visit (AlphaGo's virtual loss): a
// virtual loss marks the moves being searched as losing, which spread a
// batch over so many root moves that the search played far weaker, while
// a virtual visit only steers the next descent to another leaf, and
// batched search showed no loss against the one-at-a-time loop at equal
// simulations (the matches are in docs/results.md).
func (t *Tree) searchBatch(ctx context.Context, sims int, be BatchEvaluator) (int, error) {
	capacity := be.Capacity()
	for len(t.leaves) < 2*capacity {
		t.leaves = append(t.leaves, leaf{})
	}
	if len(t.values) < capacity {
		t.values = make([]float32, capacity)
		t.drawValues = make([]float32, capacity)
	}
	bde, _ := be.(BatchDrawEvaluator)
	switch {
	case t.draws == nil:
		bde = nil
	case bde == nil:
		// Its batches give no draw probabilities: the tree reports no
		// WDL rather than one of zeros.
		t.draws = nil
	}
	done := 0
	for done < sims && t.root.proven == unknown {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		// Queued leaves fill t.leaves from the front, collisions from the
		// back.
		queued, collided := 0, 0
		for done+queued < sims && queued < capacity && collided < capacity && t.root.proven == unknown {
			switch t.descend(be, &t.leaves[queued], &t.leaves[len(t.leaves)-1-collided]) {
			case descentQueued:
				queued++
			case descentDecided:
				done++
			case descentCollided:
				collided++
			}
		}
		var err error
		switch {
		case queued > 0 && bde != nil:
			err = bde.FlushDraws(t.values[:queued], t.drawValues[:queued])
		case queued > 0:
			clear(t.drawValues[:queued])
			err = be.Flush(t.values[:queued])
		}
		// The virtual visits go before any value is backed up, so that a
		// failure leaves the batch's leaves as plain unexpanded ones.
		for i := range queued {
			t.leaves[i].release()
		}
		for i := range collided {
			t.leaves[len(t.leaves)-1-i].release()
		}
		if err != nil {
			return done, fmt.Errorf("mcts: evaluate a batch of %d: %w", queued, err)
		}
		for i := range queued {
			l := &t.leaves[i]
			v := t.values[i]
			if err := t.expand(l.path[len(l.path)-1], l.moves, l.priors, v); err != nil {
				return done, err
			}
			t.backup(l.path, v, t.drawValues[i])
			done++
		}
	}
	return done, nil
}

// The outcomes of one descent.
const (
	descentQueued   = iota // a new leaf joined the batch
	descentDecided         // a leaf with a known value was backed up
	descentCollided        // the leaf is already in the batch
)

// release takes back the virtual visits of l's path.
func (l *leaf) release() {
	for _, n := range l.path {
		n.inflight--
	}
}

// descend walks from the root to a leaf by PUCT and queues it in l, backs
// it up when its value is known, or, when it is queued already, records
// the path in collision; a queued or collided path takes a virtual visit.
func (t *Tree) descend(be BatchEvaluator, l, collision *leaf) int {
	p := t.pos
	n := t.root
	path := append(t.path[:0], n)
	for n.expanded && n.proven == unknown {
		c := t.selectChild(n)
		p.Make(c.move)
		n = c
		path = append(path, n)
	}
	t.path = path
	outcome := descentQueued
	var v float32
	switch d, ok := t.decided(n); {
	case ok:
		outcome, v = descentDecided, d
	case n.inflight > 0:
		outcome = descentCollided
	default:
		l.moves = p.GenerateMoves(l.moves[:0])
		if cap(l.priors) < len(l.moves) {
			l.priors = make([]float32, len(l.moves), max(len(l.moves), 64))
		}
		l.priors = l.priors[:len(l.moves)]
		be.Queue(p, l.moves, l.priors)
	}
	for range len(path) - 1 {
		p.Unmake()
	}
	switch outcome {
	case descentDecided:
		t.backup(path, v, drawOf(n))
	case descentQueued:
		l.path = append(l.path[:0], path...)
	case descentCollided:
		l = collision
		l.path = append(l.path[:0], path...)
	}
	if outcome != descentDecided {
		for _, x := range path {
			x.inflight++
		}
	}
	return outcome
}
