package mcts

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/tabula-zero/tabula/game"
)

// Mover is a player's search: one Tree kept across the moves of a game.
// Each search first looks for the new position in the old tree (the same
// position, or one or two plies below its root: the move played from it
// and the reply; game.PathBelow) and keeps that subtree; otherwise it
// starts a new tree. With no simulations it plays the raw policy: the
// evaluator's prior over the legal moves, no search.
//
// A Mover is not safe for concurrent use. Its searches are deterministic
// for a deterministic evaluator and no noise.
type Mover struct {
	cfg  Config
	eval Evaluator
	rng  *rand.Rand
	tree *Tree
	// Reuse keeps subtrees between moves (on by default).
	Reuse bool
}

// moverStream separates the Mover's noise stream from other users of
// the same seed.
const moverStream = 0x61627a65726f

// NewMover returns a mover searching with cfg and eval; seed feeds the
// Dirichlet noise (used only when a search asks for noise).
func NewMover(cfg Config, eval Evaluator, seed uint64) *Mover {
	return &Mover{cfg: cfg, eval: eval, rng: rand.New(rand.NewPCG(seed, moverStream)), Reuse: true}
}

// NewGame forgets the tree and reseeds the noise.
func (m *Mover) NewGame(seed uint64) {
	m.tree = nil
	m.rng = rand.New(rand.NewPCG(seed, moverStream))
}

// Limits bound one search of a Mover.
type Limits struct {
	// Sims is the number of simulations. Without Interruptible, 0 plays
	// the raw policy; with it, 0 searches until ctx ends.
	Sims int
	// Noise adds Dirichlet noise at the root (self-play).
	Noise bool
	// Interruptible runs the search in chunks of a few simulations, and
	// ctx ending stops it with the result so far (the raw policy when no
	// chunk finished) instead of failing it: a player on a clock or told
	// to stop still answers. Gumbel search needs a simulation budget
	// known in advance, so it refuses to be interrupted.
	Interruptible bool
	// Done, if not nil, ends an interruptible search when it reports true
	// after a chunk (say, once the principal variation is deep enough).
	Done func(Result) bool
	// Progress, if not nil, is called after each chunk of an
	// interruptible search.
	Progress func(Result)
}

// chunkSims is the simulations an interruptible search runs between
// checks of its context: a tree search cancelled midway is dropped, its
// visits with it.
const chunkSims = 8

// Search searches p (which it does not modify) within lim. The Result's
// Policy is the visit share (or Gumbel's improved policy), Best the move
// to play at temperature 0, Simulations those of this search. The raw
// policy gives the evaluator's priors as Policy, their argmax as Best and
// as the one-move PV, all visits 0.
func (m *Mover) Search(ctx context.Context, p game.Position, lim Limits) (Result, error) {
	if lim.Sims < 0 {
		return Result{}, fmt.Errorf("mcts: %d simulations", lim.Sims)
	}
	if lim.Interruptible && m.cfg.Gumbel {
		return Result{}, errors.New("mcts: a Gumbel search needs a simulation budget and cannot be interrupted")
	}
	if p.Status().Over() {
		return Result{}, ErrGameOver
	}
	if !lim.Interruptible {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		if lim.Sims == 0 {
			return RawPolicy(m.eval, p)
		}
		m.sync(p)
		res, err := m.tree.Search(ctx, lim.Sims, lim.Noise)
		if err != nil {
			m.tree = nil
			return Result{}, err
		}
		return res, nil
	}
	m.sync(p)
	var (
		res  Result
		sims int
	)
	for lim.Sims == 0 || sims < lim.Sims {
		if ctx.Err() != nil {
			if sims == 0 {
				return RawPolicy(m.eval, p)
			}
			break
		}
		n := chunkSims
		if be, ok := m.eval.(BatchEvaluator); ok {
			n = max(n, be.Capacity()) // a whole batch per chunk
		}
		if lim.Sims > 0 {
			n = min(n, lim.Sims-sims)
		}
		r, err := m.tree.Search(context.Background(), n, lim.Noise)
		if err != nil {
			m.tree = nil
			return Result{}, err
		}
		sims += r.Simulations
		res = r
		res.Simulations = sims
		if r.Proven || r.Simulations == 0 || lim.Done != nil && lim.Done(res) {
			break
		}
		if lim.Progress != nil {
			lim.Progress(res)
		}
	}
	return res, nil
}

// sync points m.tree at p, keeping what the old tree knows about it.
func (m *Mover) sync(p game.Position) {
	if m.tree != nil && m.Reuse {
		if path, ok := game.PathBelow(m.tree.Position(), p, 2); ok {
			for _, mv := range path {
				if m.tree.Advance(mv) != nil {
					m.tree = nil
					break
				}
			}
			if m.tree != nil {
				return
			}
		}
	}
	m.tree = NewTree(m.cfg, m.eval, p, m.rng)
}

// RawPolicy evaluates p once and plays the most probable move: the
// network alone, no search.
func RawPolicy(eval Evaluator, p game.Position) (Result, error) {
	moves := p.GenerateMoves(nil)
	if len(moves) == 0 {
		return Result{}, errors.New("mcts: no legal move")
	}
	priors := make([]float32, len(moves))
	var (
		v, d float32
		err  error
	)
	de := drawsOf(eval)
	if de != nil {
		v, d, err = de.EvaluateDraw(p, moves, priors)
	} else {
		v, err = eval.Evaluate(p, moves, priors)
	}
	if err != nil {
		return Result{}, fmt.Errorf("mcts: evaluate: %w", err)
	}
	best := 0
	for i := range priors {
		if priors[i] > priors[best] {
			best = i
		}
	}
	res := Result{Moves: moves, Visits: make([]int, len(moves)), Policy: priors, Best: moves[best],
		PV: []game.Move{moves[best]}, Value: v}
	if de != nil {
		res.WDL, res.HasWDL = wdlOf(v, d), true
	}
	return res, nil
}

// MostVisited returns the move among allowed (any move when allowed is
// nil) with the most visits, then the highest policy; NoMove when r has
// none of them. It is the move to play when the search's own choice is
// banned (searchmoves, banmoves).
func (r Result) MostVisited(allowed []game.Move) game.Move {
	best := -1
	for i, m := range r.Moves {
		if allowed != nil && !slices.Contains(allowed, m) {
			continue
		}
		if best < 0 || r.Visits[i] > r.Visits[best] || r.Visits[i] == r.Visits[best] && r.Policy[i] > r.Policy[best] {
			best = i
		}
	}
	if best < 0 {
		return game.NoMove
	}
	return r.Moves[best]
}
