package abzero

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
)

// MCTS is the network's mover on its own: an MCTS tree kept across the
// moves of one game. Each search first looks for the new position in the
// old tree (the same position, or one or two plies below its root: the
// move played from it and the reply) and keeps that subtree; otherwise it
// starts a new tree. With zero simulations it plays the raw policy: the
// evaluator's prior over the legal moves, no search.
//
// An MCTS is not safe for concurrent use. Searches are deterministic for a
// deterministic evaluator and no noise.
type MCTS struct {
	cfg  mcts.Config
	eval mcts.Evaluator
	seed uint64
	rng  *rand.Rand
	tree *mcts.Tree
	// Reuse keeps subtrees between moves (on by default).
	Reuse bool
}

// NewMCTS returns a mover searching with cfg and eval; seed feeds the
// Dirichlet noise (only used when a search asks for noise).
func NewMCTS(cfg mcts.Config, eval mcts.Evaluator, seed uint64) *MCTS {
	return &MCTS{cfg: cfg, eval: eval, seed: seed, rng: rand.New(rand.NewPCG(seed, 0x61627a65726f)), Reuse: true}
}

// NewGame forgets the tree and reseeds the noise.
func (s *MCTS) NewGame(seed uint64) {
	s.tree = nil
	s.seed = seed
	s.rng = rand.New(rand.NewPCG(seed, 0x61627a65726f))
}

// Search runs sims simulations on p (p is not modified) and returns the
// search result; Result.Policy is the visit share (or Gumbel's improved
// policy), Result.Best the move to play. With sims == 0 it returns the
// evaluator's priors as Policy, their argmax as Best, all visits 0.
func (s *MCTS) Search(ctx context.Context, p game.Position, sims int, noise bool) (mcts.Result, error) {
	if sims < 0 {
		return mcts.Result{}, fmt.Errorf("abzero: %d simulations", sims)
	}
	if p.Status().Over() {
		return mcts.Result{}, mcts.ErrGameOver
	}
	if err := ctx.Err(); err != nil {
		return mcts.Result{}, err
	}
	if sims == 0 {
		return rawPolicy(s.eval, p)
	}
	s.sync(p)
	res, err := s.tree.Search(ctx, sims, noise)
	if err != nil {
		s.tree = nil
		return mcts.Result{}, err
	}
	return res, nil
}

// sync points s.tree at p, keeping what the old tree knows about it.
func (s *MCTS) sync(p game.Position) {
	if s.tree != nil && s.Reuse {
		if path, ok := findBelow(s.tree.Position(), p, 2); ok {
			for _, m := range path {
				if s.tree.Advance(m) != nil {
					s.tree = nil
					break
				}
			}
			if s.tree != nil {
				return
			}
		}
	}
	s.tree = mcts.NewTree(s.cfg, s.eval, p, s.rng)
}

// findBelow looks for target at most depth plies below root (by key and
// ply) and returns the moves that lead there.
func findBelow(root, target game.Position, depth int) ([]game.Move, bool) {
	q := root.Clone()
	var path []game.Move
	var walk func(d int) bool
	walk = func(d int) bool {
		if q.Key() == target.Key() && q.Ply() == target.Ply() {
			return true
		}
		if d == 0 || q.Ply() >= target.Ply() || q.Status().Over() {
			return false
		}
		for _, m := range q.GenerateMoves(nil) {
			q.Make(m)
			path = append(path, m)
			if walk(d - 1) {
				return true
			}
			path = path[:len(path)-1]
			q.Unmake()
		}
		return false
	}
	if walk(depth) {
		return path, true
	}
	return nil, false
}

// rawPolicy evaluates p once and plays the most probable move.
func rawPolicy(eval mcts.Evaluator, p game.Position) (mcts.Result, error) {
	moves := p.GenerateMoves(nil)
	if len(moves) == 0 {
		return mcts.Result{}, errors.New("abzero: no legal move")
	}
	priors := make([]float32, len(moves))
	v, err := eval.Evaluate(p, moves, priors)
	if err != nil {
		return mcts.Result{}, fmt.Errorf("abzero: evaluate: %w", err)
	}
	best := 0
	for i := range priors {
		if priors[i] > priors[best] {
			best = i
		}
	}
	return mcts.Result{Moves: moves, Visits: make([]int, len(moves)), Policy: priors, Best: moves[best], Value: v}, nil
}
