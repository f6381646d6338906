// Package abzero is the Alpha-Beta-Zero mover of the CheapChess seed: an
// MCTS search guided by the network and a multi-PV alpha-beta search run on
// the same position at the same time, and the move played is
//
//	argmax_a V(a) = pi_a * m + beta_a
//
// with pi_a the MCTS visit share of move a (the network's prior when the
// mover runs no simulations), beta_a the alpha-beta score of a in the
// seed's units (soldier = 1: the searcher's centi-units / 100) and m the
// weight of the network, which a Schedule can raise over training (low
// early: lean on alpha-beta; high late: alpha-beta only vetoes blunders).
//
// Mate scores are clamped: a move that mates in k plies scores
// beta = MateValue - k/100, one that is mated in k plies -(MateValue -
// k/100), so that beta stays finite, mates dominate every material score
// and sooner mates (later losses) are preferred.
//
// The package also holds the plain MCTS mover (MCTS), which keeps its tree
// between the moves of a game.
package abzero

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
)

// DefaultMateValue is the default clamp of mate scores, in soldiers.
const DefaultMateValue = 1000

// Config sets up a Mover.
type Config struct {
	// M is the weight of the network's visit share (m >= 0).
	M float64
	// Depth is the alpha-beta search depth (>= 1).
	Depth int
	// Sims is the number of MCTS simulations (0: the raw policy).
	Sims int
	// MCTS are the tree search constants; Noise adds Dirichlet noise at
	// the root (self-play only).
	MCTS  mcts.Config
	Noise bool
	// AlphaBeta are the alpha-beta options (alphabeta.DefaultOptions with
	// a smaller table is a good start).
	AlphaBeta alphabeta.Options
	// MateValue clamps mate scores, in soldiers (0: DefaultMateValue).
	MateValue float64
}

// DefaultConfig returns m, depth and sims with the default search
// settings (a 16 MiB alpha-beta table).
func DefaultConfig(m float64, depth, sims int) Config {
	ab := alphabeta.DefaultOptions()
	ab.HashMiB = 16
	return Config{M: m, Depth: depth, Sims: sims, MCTS: mcts.DefaultConfig(), AlphaBeta: ab, MateValue: DefaultMateValue}
}

func (c Config) check() error {
	if math.IsNaN(c.M) || math.IsInf(c.M, 0) || c.M < 0 {
		return fmt.Errorf("abzero: weight m = %v must be finite and >= 0", c.M)
	}
	if c.Depth < 1 || c.Depth > alphabeta.MaxDepth {
		return fmt.Errorf("abzero: alpha-beta depth %d out of range [1, %d]", c.Depth, alphabeta.MaxDepth)
	}
	if c.Sims < 0 {
		return fmt.Errorf("abzero: %d simulations", c.Sims)
	}
	if math.IsNaN(c.MateValue) || c.MateValue < 0 {
		return fmt.Errorf("abzero: mate value %v must be >= 0", c.MateValue)
	}
	return nil
}

// Candidate is one root move with the parts of its value.
type Candidate struct {
	Move game.Move
	Pi   float64 // visit share (prior with no simulations)
	Beta float64 // alpha-beta score in soldiers, mates clamped
	V    float64 // Pi*m + Beta
}

// Decision is a Mover's choice with the two searches behind it.
type Decision struct {
	Move       game.Move
	M          float64
	Candidates []Candidate // in the MCTS result's move order
	MCTS       mcts.Result
	AlphaBeta  alphabeta.Result
}

// Mover is the Alpha-Beta-Zero mover for one game at a time. It is not
// safe for concurrent use; it runs its two searches in two goroutines of
// its own.
type Mover struct {
	cfg  Config
	mc   *MCTS
	ab   *alphabeta.Searcher
	seed uint64
}

// New returns a mover evaluating positions with eval; seed feeds the MCTS
// noise.
func New(cfg Config, eval mcts.Evaluator, seed uint64) (*Mover, error) {
	if cfg.MateValue == 0 {
		cfg.MateValue = DefaultMateValue
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if eval == nil {
		return nil, errors.New("abzero: nil evaluator")
	}
	ab, err := alphabeta.New(cfg.AlphaBeta)
	if err != nil {
		return nil, fmt.Errorf("abzero: %w", err)
	}
	return &Mover{cfg: cfg, mc: NewMCTS(cfg.MCTS, eval, seed), ab: ab, seed: seed}, nil
}

// Config returns the mover's settings.
func (mv *Mover) Config() Config { return mv.cfg }

// SetM changes the network weight (for a schedule over training).
func (mv *Mover) SetM(m float64) error {
	c := mv.cfg
	c.M = m
	if err := c.check(); err != nil {
		return err
	}
	mv.cfg = c
	return nil
}

// NewGame clears the alpha-beta table and the MCTS tree.
func (mv *Mover) NewGame(seed uint64) {
	mv.ab.Clear()
	mv.mc.NewGame(seed)
}

// Move searches p (which it does not modify) with both searches at once
// and returns the move maximising pi_a * m + beta_a. Both searches stop
// when ctx ends; Move then returns ctx's error.
func (mv *Mover) Move(ctx context.Context, p game.Position) (Decision, error) {
	abp, ok := p.Clone().(alphabeta.Position)
	if !ok {
		return Decision{}, fmt.Errorf("abzero: game %s has no alpha-beta support", p.Game())
	}
	if st := p.Status(); st.Over() {
		return Decision{}, mcts.ErrGameOver
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg     sync.WaitGroup
		mres   mcts.Result
		merr   error
		abres  alphabeta.Result
		parent = ctx
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		abres = mv.ab.Search(ctx, abp, alphabeta.Limits{Depth: mv.cfg.Depth, MultiPV: true}, nil)
	}()
	mres, merr = mv.mc.Search(ctx, p, mv.cfg.Sims, mv.cfg.Noise)
	if merr != nil {
		cancel()
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return Decision{}, err
	}
	if merr != nil {
		return Decision{}, merr
	}
	if len(abres.RootScores) == 0 {
		return Decision{}, fmt.Errorf("abzero: alpha-beta returned no root scores for %s", p)
	}
	best, cands := Combine(mres, abres, mv.cfg.M, mv.cfg.MateValue)
	return Decision{Move: best, M: mv.cfg.M, Candidates: cands, MCTS: mres, AlphaBeta: abres}, nil
}

// Beta converts an alpha-beta score (centi-units, mate scores as
// alphabeta.Mate - plies) to the seed's units, clamping mates to
// +-(mateValue - plies/100).
func Beta(score int, mateValue float64) float64 {
	if alphabeta.IsMate(score) {
		if score > 0 {
			return mateValue - float64(alphabeta.Mate-score)/100
		}
		return -(mateValue - float64(alphabeta.Mate+score)/100)
	}
	return float64(score) / 100
}

// VisitShares returns each move's share of the root visits, or the
// policy when there are no visits (the raw-policy mover).
func VisitShares(r mcts.Result) []float64 {
	total := 0
	for _, n := range r.Visits {
		total += n
	}
	pi := make([]float64, len(r.Moves))
	for i := range r.Moves {
		switch {
		case total > 0:
			pi[i] = float64(r.Visits[i]) / float64(total)
		case i < len(r.Policy):
			pi[i] = float64(r.Policy[i])
		}
	}
	return pi
}

// Combine returns argmax_a pi_a * m + beta_a over the MCTS result's moves
// and every candidate's parts. Ties go to the alpha-beta best move, then
// to the MCTS best move, then to the first in move order. A move without
// an alpha-beta score (which a completed multi-PV search never leaves)
// counts as mated at once.
func Combine(r mcts.Result, ab alphabeta.Result, m, mateValue float64) (game.Move, []Candidate) {
	scores := make(map[game.Move]int, len(ab.RootScores))
	for _, rs := range ab.RootScores {
		scores[rs.Move] = rs.Score
	}
	pi := VisitShares(r)
	cands := make([]Candidate, len(r.Moves))
	best := -1
	rank := func(i int) int {
		switch cands[i].Move {
		case ab.Move:
			return 2
		case r.Best:
			return 1
		}
		return 0
	}
	for i, mvv := range r.Moves {
		s, ok := scores[mvv]
		if !ok {
			s = -alphabeta.Mate
		}
		c := Candidate{Move: mvv, Pi: pi[i], Beta: Beta(s, mateValue)}
		c.V = c.Pi*m + c.Beta
		cands[i] = c
		if best < 0 || c.V > cands[best].V || (c.V == cands[best].V && rank(i) > rank(best)) {
			best = i
		}
	}
	if best < 0 {
		return game.NoMove, cands
	}
	return cands[best].Move, cands
}
