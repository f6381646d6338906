// Package abzero is the Alpha-Beta-Zero mover of the CheapChess seed: an
// MCTS search guided by the network and a multi-PV alpha-beta search of
// the same position, and the move played is
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
// Mover runs both searches, the network's first (its MCTS is an
// mcts.Mover, whose tree lives across the moves of a game); Blender runs the alpha-beta half for a
// caller with its own MCTS (self-play, whose tree also makes the training
// targets). Both choose through the same blend.
package abzero

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

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
	// Eval, when not nil, makes the position alpha-beta searches from the
	// one being played: a position of its own (the caller keeps p), with
	// another evaluation than the game's (the learned Xiangqi one:
	// nnue.Wrap). The MCTS half always searches the plain position, which
	// the network's encoder reads. nil: a clone of p, the game's own
	// evaluation.
	Eval func(p game.Position) (alphabeta.Position, error)
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
	// Upper: Beta is an upper bound, more than m below the best (the
	// blend's multi-PV margin).
	Upper bool
	V     float64 // Pi*m + Beta
}

// Decision is a mover's choice with the two searches behind it.
// Candidates is empty when the move did not come from the blend: an
// interrupted search left alpha-beta without root scores (see decide).
type Decision struct {
	Move       game.Move
	M          float64
	Candidates []Candidate // in the MCTS result's move order
	MCTS       mcts.Result
	AlphaBeta  alphabeta.Result
}

// Limits bound one move of a Mover. With neither Time nor Infinite the
// searches run to Config.Depth and Config.Sims (unless Depth or Sims say
// otherwise) and a context that ends fails the move. With Time or
// Infinite (or Interruptible) the move is interruptible: alpha-beta
// deepens (up to Depth when given) and MCTS simulates (up to Sims when
// given) until the time is up or ctx ends, and the move is then made from
// what the searches have.
type Limits struct {
	Depth int
	Sims  int
	// Time is the time for the move (alpha-beta scores every root move
	// after each iteration under a clock: alphabeta.Limits).
	Time          time.Duration
	Infinite      bool
	Interruptible bool
	// Allowed restricts the root (searchmoves, banmoves); nil allows
	// every legal move.
	Allowed []game.Move
	// Info, if not nil, gets alpha-beta's completed iterations.
	Info func(alphabeta.Info)
	// Prior makes pi the network's prior even under a clock: MCTS runs no
	// simulations, so alpha-beta has the whole time but the one forward
	// pass.
	Prior bool
	// InSearch blends inside alpha-beta's search (alphabeta.Limits.
	// RootBonus without MultiPV): the search maximises beta_a + pi_a * m
	// at a plain search's cost, and the Decision has no Candidates. A
	// weight above alphabeta.MaxRootBonus centi-units uses multi-PV.
	// Without it alpha-beta scores each root move pi_a * m can lift to
	// the best exactly (multi-PV).
	InSearch bool
	// SimTime bounds the simulations under a clock (the network's search
	// runs first; alpha-beta takes the rest of Time); 0:
	// DefaultSimShare of Time.
	SimTime time.Duration
}

// DefaultSimShare is the share of a move's time the network's search
// takes before alpha-beta when Limits.SimTime does not say.
const DefaultSimShare = 0.25

// Blender is the alpha-beta half of the mover and the blend. It is not
// safe for concurrent use.
type Blender struct {
	cfg Config
	ab  *alphabeta.Searcher
}

// NewBlender returns a blender with cfg (cfg.Sims and cfg.MCTS are not
// used: the caller searches).
func NewBlender(cfg Config) (*Blender, error) {
	if cfg.MateValue == 0 {
		cfg.MateValue = DefaultMateValue
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	ab, err := alphabeta.New(cfg.AlphaBeta)
	if err != nil {
		return nil, fmt.Errorf("abzero: %w", err)
	}
	return &Blender{cfg: cfg, ab: ab}, nil
}

// Config returns the settings.
func (b *Blender) Config() Config { return b.cfg }

// SetM changes the network weight (for a schedule over training).
func (b *Blender) SetM(m float64) error {
	c := b.cfg
	c.M = m
	if err := c.check(); err != nil {
		return err
	}
	b.cfg = c
	return nil
}

// NewGame clears the alpha-beta table, so that a game does not depend on
// the games searched before it.
func (b *Blender) NewGame() { b.ab.Clear() }

// Blend searches p with multi-PV alpha-beta to Config.Depth and blends
// its root scores with mres, the caller's MCTS result for p.
func (b *Blender) Blend(ctx context.Context, p game.Position, mres mcts.Result) (Decision, error) {
	abp, err := b.alphaBetaPosition(p)
	if err != nil {
		return Decision{}, err
	}
	abres := b.ab.Search(ctx, abp, alphabeta.Limits{Depth: b.cfg.Depth, MultiPV: true, RootBonus: b.bonus(mres)}, nil)
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}
	return b.decide(p, mres, abres, nil, false)
}

// teachCutoff is how many temperatures below the best a teacher's move
// may score and still get a share of the policy target: e^-8 of the
// best's, so that forty such moves would hold about 1% of it.
const teachCutoff = 8

// Teach searches p with multi-PV alpha-beta alone, as a teacher that
// needs no network, and returns the root in the shape of a tree search's
// result: Policy is softmax(beta/temperature) over the root moves within
// teachCutoff temperatures of the best, 0 for the rest (beta in soldiers,
// mates clamped; temperature > 0 in soldiers), Best is
// alpha-beta's move, Value is left to the caller (the score's scale is
// the game's). Moves are in alpha-beta's order, best first.
func (b *Blender) Teach(ctx context.Context, p game.Position, temperature float64) (mcts.Result, alphabeta.Result, error) {
	if math.IsNaN(temperature) || temperature <= 0 {
		return mcts.Result{}, alphabeta.Result{}, fmt.Errorf("abzero: teacher temperature %v must be > 0", temperature)
	}
	abp, err := b.alphaBetaPosition(p)
	if err != nil {
		return mcts.Result{}, alphabeta.Result{}, err
	}
	// Moves more than teachCutoff temperatures below the best would get
	// less than e^-teachCutoff of its share: alpha-beta only bounds them
	// (a fifth fewer nodes at depth 2 with the classic options) and they
	// get none.
	abres := b.ab.Search(ctx, abp, alphabeta.Limits{Depth: b.cfg.Depth, MultiPV: true, MultiPVMargin: marginFor(teachCutoff * temperature)}, nil)
	if err := ctx.Err(); err != nil {
		return mcts.Result{}, alphabeta.Result{}, err
	}
	if len(abres.RootScores) == 0 {
		return mcts.Result{}, abres, fmt.Errorf("abzero: alpha-beta returned no root scores for %s", p)
	}
	res := mcts.Result{Best: abres.Move, Moves: make([]game.Move, len(abres.RootScores)), Policy: make([]float32, len(abres.RootScores))}
	// RootScores come best first, so the first beta is the softmax's
	// maximum and every exponent is <= 0.
	top := Beta(abres.RootScores[0].Score, b.cfg.MateValue)
	sum := 0.0
	shares := make([]float64, len(abres.RootScores))
	for i, rs := range abres.RootScores {
		res.Moves[i] = rs.Move
		if !rs.Upper {
			shares[i] = math.Exp((Beta(rs.Score, b.cfg.MateValue) - top) / temperature)
		}
		sum += shares[i]
	}
	for i := range shares {
		res.Policy[i] = float32(shares[i] / sum)
	}
	return res, abres, nil
}

// margin is the multi-PV margin the blend can use: a move scored more
// than m soldiers below the best cannot win, since its visit share adds
// at most m, so alpha-beta need only bound it. With allowed moves the best
// of them may be any score below the best: all exact.
func (b *Blender) margin(allowed []game.Move) int {
	if allowed != nil {
		return 0
	}
	return marginFor(b.cfg.M)
}

// bonus is what the blend adds to each root move's alpha-beta score, in
// the searcher's centi-units: pi_a * m, with pi from mres, which must be
// complete before the search starts (alphabeta.Limits.RootBonus).
func (b *Blender) bonus(mres mcts.Result) func(game.Move) float64 {
	pi := VisitShares(mres)
	of := make(map[game.Move]float64, len(pi))
	for i, mv := range mres.Moves {
		of[mv] = pi[i] * b.cfg.M * 100
	}
	return func(mv game.Move) float64 { return of[mv] }
}

// marginFor is the multi-PV margin in centi-units that keeps every move
// within soldiers of the best exact; 0 (all exact) when that is beyond
// any score.
func marginFor(soldiers float64) int {
	m := math.Ceil(soldiers*100) + 1
	if m >= alphabeta.Infinity/2 {
		return 0
	}
	return int(m)
}

// decide blends the two results. Without alpha-beta root scores (a stop
// or the clock came before they were complete) an interruptible move
// plays alpha-beta's move when it completed an iteration, else the most
// visited allowed move; any other move fails.
func (b *Blender) decide(p game.Position, mres mcts.Result, abres alphabeta.Result, allowed []game.Move, interruptible bool) (Decision, error) {
	d := Decision{M: b.cfg.M, MCTS: mres, AlphaBeta: abres}
	if len(abres.RootScores) == 0 {
		if !interruptible {
			return Decision{}, fmt.Errorf("abzero: alpha-beta returned no root scores for %s", p)
		}
		switch {
		case abres.Depth > 0 && (allowed == nil || slices.Contains(allowed, abres.Move)):
			d.Move = abres.Move
		default:
			d.Move = mres.MostVisited(allowed)
		}
		if d.Move == game.NoMove && allowed != nil {
			d.Move = allowed[0]
		}
		return d, nil
	}
	d.Move, d.Candidates = combine(mres, abres, b.cfg.M, b.cfg.MateValue, allowed)
	return d, nil
}

// Mover is the Alpha-Beta-Zero mover for one game at a time. It is not
// safe for concurrent use.
type Mover struct {
	Blender
	mc *mcts.Mover
}

// New returns a mover evaluating positions with eval; seed feeds the MCTS
// noise.
func New(cfg Config, eval mcts.Evaluator, seed uint64) (*Mover, error) {
	if eval == nil {
		return nil, errors.New("abzero: nil evaluator")
	}
	b, err := NewBlender(cfg)
	if err != nil {
		return nil, err
	}
	return &Mover{Blender: *b, mc: mcts.NewMover(cfg.MCTS, eval, seed)}, nil
}

// NewGame clears the alpha-beta table and the MCTS tree.
func (mv *Mover) NewGame(seed uint64) {
	mv.Blender.NewGame()
	mv.mc.NewGame(seed)
}

// Move searches p (which it does not modify) with MCTS, then alpha-beta,
// and returns the allowed move maximising pi_a * m + beta_a.
func (mv *Mover) Move(ctx context.Context, p game.Position, lim Limits) (Decision, error) {
	abp, err := mv.alphaBetaPosition(p)
	if err != nil {
		return Decision{}, err
	}
	if st := p.Status(); st.Over() {
		return Decision{}, mcts.ErrGameOver
	}
	timed := lim.Time > 0 || lim.Infinite
	interruptible := timed || lim.Interruptible
	al := alphabeta.Limits{Depth: lim.Depth, Time: lim.Time, MultiPV: true, MultiPVMargin: mv.margin(lim.Allowed)}
	ml := mcts.Limits{Sims: lim.Sims, Noise: mv.cfg.Noise, Interruptible: interruptible}
	if !timed {
		al.Depth = cmp.Or(al.Depth, mv.cfg.Depth)
		ml.Sims = cmp.Or(ml.Sims, mv.cfg.Sims)
		// No simulations and no clock: the raw policy, at once.
		ml.Interruptible = interruptible && ml.Sims > 0
	}
	if lim.Prior {
		ml.Sims, ml.Interruptible = 0, false
	}
	parent := ctx
	var cancel context.CancelFunc
	if lim.Time > 0 {
		ctx, cancel = context.WithTimeout(ctx, lim.Time)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	// The network's search comes first, then alpha-beta with every
	// thread and pi_a * m known: added inside its search (InSearch), or
	// as each root move's own bar in multi-PV (alphabeta.Limits.
	// RootBonus). (Both searches side by side on the clock lost: 0.237
	// against plain alpha-beta at 100 ms, docs/notebook/xiangqi-selfplay.md.)
	start := time.Now()
	mctx := ctx
	switch {
	case lim.Prior:
		// One forward pass: a stop or a clock that ends before it does
		// not fail the move.
		mctx = context.WithoutCancel(ctx)
	case lim.Time > 0:
		share := cmp.Or(lim.SimTime, time.Duration(float64(lim.Time)*DefaultSimShare))
		var mcancel context.CancelFunc
		mctx, mcancel = context.WithTimeout(ctx, min(share, lim.Time))
		defer mcancel()
	case lim.Infinite && ml.Sims == 0:
		ml.Sims = max(mv.cfg.Sims, 1) // until stop is alpha-beta's
	}
	mres, err := mv.mc.Search(mctx, p, ml)
	if err != nil {
		return Decision{}, err
	}
	if lim.Allowed == nil {
		al.RootBonus = mv.bonus(mres)
		if lim.InSearch && mv.cfg.M*100 <= alphabeta.MaxRootBonus {
			al.MultiPV, al.MultiPVMargin = false, 0
		}
	}
	if lim.Time > 0 {
		al.Time = max(lim.Time-time.Since(start), time.Millisecond)
	}
	abres := mv.ab.Search(ctx, abp, al, lim.Info)
	if err := parent.Err(); err != nil && !interruptible {
		return Decision{}, err
	}
	if al.RootBonus != nil && !al.MultiPV && abres.Depth > 0 {
		// The search's move is the blend's.
		return Decision{Move: abres.Move, M: mv.cfg.M, MCTS: mres, AlphaBeta: abres}, nil
	}
	return mv.decide(p, mres, abres, lim.Allowed, interruptible)
}

// alphaBetaPosition returns the position alpha-beta searches for p: its
// own copy, evaluated as Config.Eval says.
func (b *Blender) alphaBetaPosition(p game.Position) (alphabeta.Position, error) {
	if b.cfg.Eval != nil {
		abp, err := b.cfg.Eval(p)
		if err != nil {
			return nil, fmt.Errorf("abzero: the alpha-beta position: %w", err)
		}
		if abp == nil {
			return nil, fmt.Errorf("abzero: the evaluation gave no position for %s", p)
		}
		return abp, nil
	}
	abp, ok := p.Clone().(alphabeta.Position)
	if !ok {
		return nil, fmt.Errorf("abzero: game %s has no alpha-beta support", p.Game())
	}
	return abp, nil
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
	return combine(r, ab, m, mateValue, nil)
}

// combine is Combine with the argmax over the allowed moves only (all with
// allowed nil); the candidates still cover every move.
func combine(r mcts.Result, ab alphabeta.Result, m, mateValue float64, allowed []game.Move) (game.Move, []Candidate) {
	scores := make(map[game.Move]alphabeta.RootScore, len(ab.RootScores))
	for _, rs := range ab.RootScores {
		scores[rs.Move] = rs
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
			s.Score = -alphabeta.Mate
		}
		c := Candidate{Move: mvv, Pi: pi[i], Beta: Beta(s.Score, mateValue), Upper: s.Upper}
		c.V = c.Pi*m + c.Beta
		cands[i] = c
		if allowed != nil && !slices.Contains(allowed, mvv) {
			continue
		}
		if best < 0 || c.V > cands[best].V || (c.V == cands[best].V && rank(i) > rank(best)) {
			best = i
		}
	}
	if best < 0 {
		return game.NoMove, cands
	}
	return cands[best].Move, cands
}
