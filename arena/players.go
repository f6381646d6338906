package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tabula-zero/tabula/abzero"
	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/nnue"
)

// New makes a player from the spec. Players made from one spec share the
// network weights (read-only) but nothing else, so each may run in its own
// goroutine.
func (s *Spec) New() (Player, error) {
	if _, err := game.Lookup(s.Game); err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	switch s.Kind {
	case KindCustom:
		return s.newPlayer()
	case KindRandom:
		return &randomPlayer{name: s.name}, nil
	case KindTB:
		return &tbPlayer{name: s.name, t: s.table}, nil
	case KindAB:
		ab, err := alphabeta.New(s.abOpts)
		if err != nil {
			return nil, fmt.Errorf("arena: %w", err)
		}
		return &abPlayer{name: s.name, s: ab, lim: s.limits, net: s.evalNet}, nil
	case KindNet:
		ev, err := s.Evaluator()
		if err != nil {
			return nil, err
		}
		return &mctsPlayer{name: s.name, sims: s.sims, moveTime: s.moveTime, mc: mcts.NewMover(s.SearchConfig(), ev, 0)}, nil
	case KindMCTS:
		ev := &rolloutEval{}
		return &mctsPlayer{name: s.name, sims: s.sims, mc: mcts.NewMover(s.SearchConfig(), ev, 0), rollout: ev}, nil
	case KindABZero:
		ev, err := s.Evaluator()
		if err != nil {
			return nil, err
		}
		cfg := abzero.DefaultConfig(s.m, s.limits.Depth, s.sims)
		cfg.MCTS = s.SearchConfig()
		cfg.AlphaBeta = s.abOpts
		if net := s.evalNet; net != nil {
			// The blend's alpha-beta half evaluates with the learned
			// network; its MCTS half keeps the plain position.
			cfg.Eval = func(p game.Position) (alphabeta.Position, error) { return nnue.Wrap(net, p) }
		}
		mv, err := abzero.New(cfg, ev, 0)
		if err != nil {
			return nil, fmt.Errorf("arena: %w", err)
		}
		return &abzeroPlayer{name: s.name, mv: mv}, nil
	}
	if isRolloutKind(s.Kind) && s.newPlayer != nil { // rollout_players.go
		return s.newPlayer()
	}
	return nil, fmt.Errorf("arena: player %q: unknown kind %q", s.Text, s.Kind)
}

// Evaluator returns a new evaluator of the spec's network (net and
// abzero specs): its value and policy without a search.
func (s *Spec) Evaluator() (*mcts.NetEvaluator, error) {
	if s.base == nil {
		return nil, fmt.Errorf("arena: player %q has no network", s.Text)
	}
	return mcts.NewNetEvaluator(s.base.Clone(), s.enc), nil
}

// SearchConfig is the MCTS constants the spec's network or mcts players
// search with: NetOptions.Search when given, else the defaults (with
// Gumbel as the spec says; c_init= and fpu= make a NetOptions.Search of
// their own). The arena's players never add root noise.
func (s *Spec) SearchConfig() mcts.Config {
	if s.search != nil {
		return *s.search
	}
	c := mcts.DefaultConfig()
	c.Gumbel = s.gumbel
	return c
}

// randomPlayer plays uniformly random legal moves, seeded per game.
type randomPlayer struct {
	name string
	rng  *rand.Rand
}

func (r *randomPlayer) Name() string { return r.name }
func (r *randomPlayer) Close() error { return nil }

func (r *randomPlayer) NewGame(_ game.Position, seed uint64) error {
	r.rng = rand.New(rand.NewPCG(seed, 0x72616e646f6d))
	return nil
}

func (r *randomPlayer) Move(_ context.Context, p game.Position, _ []game.Move) (game.Move, error) {
	ms := p.GenerateMoves(nil)
	if len(ms) == 0 {
		return game.NoMove, fmt.Errorf("arena: random: no legal move in %s", p)
	}
	return ms[r.rng.IntN(len(ms))], nil
}

// abPlayer searches with alpha-beta; its table is cleared every game.
type abPlayer struct {
	name  string
	s     *alphabeta.Searcher
	lim   alphabeta.Limits
	net   *nnue.Net // the learned evaluation (nil: the game's own)
	nodes int64     // the last search's
}

func (a *abPlayer) Name() string      { return a.name }
func (a *abPlayer) LastEffort() int64 { return a.nodes }
func (a *abPlayer) Close() error      { return nil }

func (a *abPlayer) NewGame(game.Position, uint64) error {
	a.s.Clear()
	return nil
}

func (a *abPlayer) Move(ctx context.Context, p game.Position, _ []game.Move) (game.Move, error) {
	ap, ok := p.(alphabeta.Position)
	if !ok {
		return game.NoMove, fmt.Errorf("arena: %s: game %s has no alpha-beta support", a.name, p.Game())
	}
	if a.net != nil {
		// A fresh wrapper a move: its accumulators start from the
		// position as it is.
		w, err := nnue.Wrap(a.net, p)
		if err != nil {
			return game.NoMove, fmt.Errorf("arena: %s: %w", a.name, err)
		}
		ap = w
	}
	res := a.s.Search(ctx, ap, a.lim, nil)
	a.nodes = int64(res.Nodes)
	if err := ctx.Err(); err != nil {
		return game.NoMove, err
	}
	if res.Move == game.NoMove {
		return game.NoMove, fmt.Errorf("arena: %s: no move in %s", a.name, p)
	}
	return res.Move, nil
}

// mctsPlayer plays the most visited move of an MCTS search (no noise,
// temperature 0), keeping its tree between moves.
type mctsPlayer struct {
	name     string
	sims     int
	moveTime time.Duration // > 0: each search ends when it is up (and at sims when sims > 0)
	mc       *mcts.Mover
	rollout  *rolloutEval
	done     int64 // simulations of the last move
}

func (m *mctsPlayer) Name() string { return m.name }
func (m *mctsPlayer) Close() error { return nil }

func (m *mctsPlayer) NewGame(_ game.Position, seed uint64) error {
	m.mc.NewGame(seed)
	if m.rollout != nil {
		m.rollout.rng = rand.New(rand.NewPCG(seed, 0x726f6c6c))
	}
	return nil
}

func (m *mctsPlayer) Move(ctx context.Context, p game.Position, _ []game.Move) (game.Move, error) {
	if m.moveTime > 0 {
		return m.timedMove(ctx, p)
	}
	res, err := m.mc.Search(ctx, p, mcts.Limits{Sims: m.sims})
	if err != nil {
		return game.NoMove, err
	}
	m.done = int64(res.Simulations)
	return res.Best, nil
}

// timedMove searches until moveTime is up (or sims are done): an
// interruptible search, which answers with what it has when its time
// ends; the match's own end still fails the move.
func (m *mctsPlayer) timedMove(ctx context.Context, p game.Position) (game.Move, error) {
	tctx, cancel := context.WithTimeout(ctx, m.moveTime)
	defer cancel()
	res, err := m.mc.Search(tctx, p, mcts.Limits{Sims: m.sims, Interruptible: true})
	if err != nil {
		return game.NoMove, err
	}
	if err := ctx.Err(); err != nil {
		return game.NoMove, err
	}
	m.done = int64(res.Simulations)
	return res.Best, nil
}

// LastEffort is the simulations of the last move (0 for the raw policy).
func (m *mctsPlayer) LastEffort() int64 { return m.done }

// abzeroPlayer is the Alpha-Beta-Zero mover.
type abzeroPlayer struct {
	name string
	mv   *abzero.Mover
	done int64 // MCTS simulations of the last move
}

func (a *abzeroPlayer) Name() string { return a.name }
func (a *abzeroPlayer) Close() error { return nil }

func (a *abzeroPlayer) NewGame(_ game.Position, seed uint64) error {
	a.mv.NewGame(seed)
	return nil
}

func (a *abzeroPlayer) Move(ctx context.Context, p game.Position, _ []game.Move) (game.Move, error) {
	// The blend inside alpha-beta's search: the engine's, and cheaper than
	// multi-PV root scores (docs/notebook/xiangqi-selfplay.md).
	d, err := a.mv.Move(ctx, p, abzero.Limits{InSearch: true})
	if err != nil {
		return game.NoMove, err
	}
	a.done = int64(d.MCTS.Simulations)
	return d.Move, nil
}

// LastEffort is the MCTS simulations of the last move; the alpha-beta
// search beside it is not counted.
func (a *abzeroPlayer) LastEffort() int64 { return a.done }

// rolloutEval is classic MCTS's evaluation: uniform priors and the result
// of one uniformly random playout to the end of the game.
type rolloutEval struct {
	rng   *rand.Rand
	moves []game.Move
}

// maxRollout bounds a playout (a game's ply cap normally ends it sooner).
const maxRollout = 1000

func (r *rolloutEval) Evaluate(p game.Position, moves []game.Move, priors []float32) (float32, error) {
	for i := range moves {
		priors[i] = 1 / float32(len(moves))
	}
	if r.rng == nil {
		r.rng = rand.New(rand.NewPCG(0, 0x726f6c6c))
	}
	q := p.Clone()
	sign := float32(1)
	v := float32(0)
	for range maxRollout {
		if st := q.Status(); st.Over() {
			v = sign * st.Result.Value()
			break
		}
		r.moves = q.GenerateMoves(r.moves[:0])
		if len(r.moves) == 0 {
			break
		}
		q.Make(r.moves[r.rng.IntN(len(r.moves))])
		sign = -sign
	}
	return v, nil
}

// Sims is the simulations per move of a net or mcts spec (0: the raw
// policy).
func (s *Spec) Sims() int { return s.sims }

// Measured is a player a test-set report measures, with the title its
// line carries.
type Measured struct {
	Spec  *Spec
	Title string
}

// MeasuredPlayers are the players a test-set report (the Lion oracle,
// the Xiangqi set) measures for s: a searching network's raw policy,
// then its search; any other player alone.
func (s *Spec) MeasuredPlayers() ([]Measured, error) {
	if s.Kind != KindNet || s.Sims() == 0 {
		return []Measured{{s, s.Name()}}, nil
	}
	raw, err := s.RawPolicy(s.Name() + " raw policy")
	if err != nil {
		return nil, err
	}
	return []Measured{{raw, raw.Name()}, {s, fmt.Sprintf("%s with %d simulations", s.Name(), s.Sims())}}, nil
}

// RawPolicy returns a network spec playing its raw policy (no search), so
// that an accuracy report can set the search's moves beside the
// network's own; name names it.
func (s *Spec) RawPolicy(name string) (*Spec, error) {
	if s.Kind != KindNet {
		return nil, fmt.Errorf("arena: player %q is not a network player (net:)", s.Text)
	}
	c := *s
	c.sims, c.name, c.Text = 0, name, name
	return &c, nil
}
