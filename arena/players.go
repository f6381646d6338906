package arena

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/player"
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
	case KindAB, KindNet, KindABZero:
		var ev mcts.Evaluator
		if s.Kind != KindAB {
			var err error
			if ev, err = s.Evaluator(); err != nil {
				return nil, err
			}
		}
		mv, err := s.play.NewMover(ev, s.evalNet)
		if err != nil {
			return nil, fmt.Errorf("arena: %w", err)
		}
		return &specPlayer{name: s.name, mv: mv}, nil
	case KindMCTS:
		ev := &rolloutEval{}
		return &mctsPlayer{name: s.name, sims: s.play.Sims, mc: mcts.NewMover(s.SearchConfig(), ev, 0), rollout: ev}, nil
	}
	if isRolloutKind(s.Kind) && s.newPlayer != nil { // rollout_players.go
		return s.newPlayer()
	}
	return nil, fmt.Errorf("arena: player %q: unknown kind %q", s.Text, s.Kind)
}

// Evaluator returns a new evaluator of the spec's network (net and
// abzero specs): its value and policy without a search.
func (s *Spec) Evaluator() (*mcts.NetEvaluator, error) {
	if s.network == nil {
		return nil, fmt.Errorf("arena: player %q has no network", s.Text)
	}
	return s.network.Evaluator(), nil
}

// SearchConfig is the MCTS constants the spec's network or mcts players
// search with: the defaults with search=, c_init= and fpu= applied, or
// those of the player.Spec it was made of (player.Spec.MCTS). The
// arena's players never add root noise.
func (s *Spec) SearchConfig() mcts.Config {
	if s.play == nil {
		return mcts.DefaultConfig()
	}
	return s.play.MCTS
}

// Play returns the spec of package player an ab:, net: or abzero: spec
// plays (nil for other kinds).
func (s *Spec) Play() *player.Spec { return s.play }

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

// specPlayer plays a spec of package player (ab, net, abzero).
type specPlayer struct {
	name string
	mv   *player.Mover
	done int64 // the last move's effort
}

func (a *specPlayer) Name() string { return a.name }
func (a *specPlayer) Close() error { return nil }

// LastEffort is the last move's nodes (ab) or simulations (net; the
// blend's MCTS, its alpha-beta search not counted).
func (a *specPlayer) LastEffort() int64 { return a.done }

func (a *specPlayer) NewGame(_ game.Position, seed uint64) error {
	a.mv.NewGame(seed)
	return nil
}

func (a *specPlayer) Move(ctx context.Context, p game.Position, _ []game.Move) (game.Move, error) {
	r, err := a.mv.Move(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return game.NoMove, err
		}
		return game.NoMove, fmt.Errorf("arena: %s: %w", a.name, err)
	}
	a.done = r.Effort
	return r.Move, nil
}

// mctsPlayer plays the most visited move of an MCTS search with random
// playouts (no noise, temperature 0), keeping its tree between moves.
type mctsPlayer struct {
	name    string
	sims    int
	mc      *mcts.Mover
	rollout *rolloutEval
	done    int64 // simulations of the last move
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
	res, err := m.mc.Search(ctx, p, mcts.Limits{Sims: m.sims})
	if err != nil {
		return game.NoMove, err
	}
	m.done = int64(res.Simulations)
	return res.Best, nil
}

// LastEffort is the simulations of the last move (0 for the raw policy).
func (m *mctsPlayer) LastEffort() int64 { return m.done }

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
func (s *Spec) Sims() int {
	if s.play == nil || s.Kind == KindAB {
		return 0
	}
	return s.play.Sims
}

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
	c, ps := *s, *s.play
	ps.Sims, ps.MoveTime = 0, 0
	c.play, c.name, c.Text = &ps, name, name
	return &c, nil
}
