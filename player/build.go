package player

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/tabula-zero/tabula/abzero"
	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/models"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/infer"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/rundir"
)

// Network is a network laid out for play: its parameters in the
// precision asked for, with the game in the encoding it was made with.
// Its evaluators read clones of it, so one Network serves many players.
type Network struct {
	File   string // the checkpoint's path (models/GAME.ckpt for a shipped model)
	Params *net.Params
	Game   game.Game // with the network's encoder
	base   *infer.Net
}

// LoadNetwork loads the network a checkpoint file, run directory or
// shipped model's name names, for playing g (any of g's encoders), laid
// out in precision for batches of up to maxBatch positions.
func LoadNetwork(path string, g game.Game, precision string, maxBatch int) (*Network, error) {
	c, file, g, err := rundir.LoadPlayable(path, g)
	if err != nil {
		return nil, err
	}
	return NewNetwork(file, c.Params, g, precision, maxBatch)
}

// OpenNetwork loads the network path names for whichever game it plays
// (the engine, whose variant may come after the network).
func OpenNetwork(path, precision string, maxBatch int) (*Network, error) {
	c, file, err := rundir.OpenCheckpoint(path)
	if err != nil {
		return nil, err
	}
	return openCheckpoint(c.Params, file, precision, maxBatch)
}

// ShippedNetwork loads the shipped model of gameName (package models).
func ShippedNetwork(gameName, precision string, maxBatch int) (*Network, error) {
	mod, ok := models.Lookup(gameName)
	if !ok {
		return nil, fmt.Errorf("no network ships for %s: name one (a checkpoint file or run directory)", gameName)
	}
	c, file, err := rundir.OpenModel(mod)
	if err != nil {
		return nil, err
	}
	return openCheckpoint(c.Params, file, precision, maxBatch)
}

func openCheckpoint(p *net.Params, file, precision string, maxBatch int) (*Network, error) {
	g, err := game.Lookup(p.Spec.Game)
	if err != nil {
		return nil, fmt.Errorf("%s is a network of a game this program does not play: %w", file, err)
	}
	// The game with the encoder the network was made with, so that
	// networks of any of its encodings play.
	if g, err = g.WithEncoder(p.Spec.EncoderVersion); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return NewNetwork(file, p, g, precision, maxBatch)
}

// NewNetwork lays p out for play of g (in the network's encoding) in
// precision ("" is auto; an 8-bit tower is calibrated on g's start).
func NewNetwork(file string, p *net.Params, g game.Game, precision string, maxBatch int) (*Network, error) {
	start, err := g.New(nil)
	if err != nil {
		return nil, err
	}
	if precision == "" {
		precision = infer.Auto
	}
	n, err := infer.NewPrecision(p, max(1, maxBatch), precision, start, g.Encoder)
	if err != nil {
		return nil, err
	}
	return &Network{File: file, Params: p, Game: g, base: n}, nil
}

// NetSpec is the net spec of a network held in memory (a candidate the
// trainer has not saved): p plays gameName with sims simulations a move
// (0: the raw policy) and the search constants search, the knobs'
// defaults for the rest.
func NetSpec(gameName string, p *net.Params, sims int, search mcts.Config) (*Spec, error) {
	g, err := game.Lookup(gameName)
	if err != nil {
		return nil, err
	}
	if p == nil || p.Spec.Game != g.Name {
		return nil, fmt.Errorf("network is not for %s", g.Name)
	}
	if err := Lookup(KnobSims).Check(strconv.Itoa(sims)); err != nil {
		return nil, fmt.Errorf("sims=%w", err)
	}
	s := Default(KindNet, g.Name)
	s.Params, s.Sims, s.MCTS = p, sims, search
	return s, nil
}

// LoadNetwork lays out the network the spec plays (net, abzero) for
// batches of up to maxBatch positions: Params when held in memory, else
// the one Network names; nil for a spec without one.
func (s *Spec) LoadNetwork(maxBatch int) (*Network, error) {
	g, err := game.Lookup(s.Game)
	if err != nil {
		return nil, err
	}
	switch {
	case s.Params != nil:
		if g, err = g.WithEncoder(s.Params.Spec.EncoderVersion); err != nil {
			return nil, err
		}
		return NewNetwork("", s.Params, g, s.Precision, maxBatch)
	case s.Network != "":
		return LoadNetwork(s.Network, g, s.Precision, maxBatch)
	}
	return nil, nil
}

// Evaluator returns an evaluator of its own (a clone of the network)
// that evaluates one position at a time.
func (n *Network) Evaluator() *mcts.NetEvaluator {
	return mcts.NewNetEvaluator(n.base.Clone(), n.Game.Encoder)
}

// Leaf batches of a network search on several cores: LeafRows positions
// a core, at most MaxLeafBatch (the engine's Threads).
const (
	LeafRows     = 4
	MaxLeafBatch = 16
)

// BatchEvaluator returns an evaluator on threads cores: one position at
// a time for one, else batches of LeafRows a core that a search gathers
// under virtual visits. close stops its helpers. The network must have
// been laid out for MaxLeafBatch positions.
func (n *Network) BatchEvaluator(threads int) (ev *mcts.NetEvaluator, close func()) {
	threads = max(1, min(threads, MaxLeafBatch/LeafRows))
	if threads == 1 {
		return n.Evaluator(), func() {}
	}
	par := infer.ParallelOf(n.base.Clone(), threads)
	return mcts.NewNetBatchEvaluator(par, n.Game.Encoder, threads*LeafRows), par.Close
}

// Forwarder is self-play's batched forward pass: an mcts.Forwarder whose
// Close stops its helper goroutines (Forward fails after).
type Forwarder interface {
	mcts.Forwarder
	Close()
}

// OpenForwarder lays a network out for self-play's batches (up to
// maxBatch positions, split across every core) in precision: the one
// constructor of the batched forward pass, for the trainer, the workers,
// reanalysis and the benchmark. The caller closes it.
func OpenForwarder(p *net.Params, maxBatch int, precision string) (Forwarder, error) {
	return infer.NewParallelPrecision(p, maxBatch, 0, precision)
}

// NewForwarder is OpenForwarder as the plain mcts.Forwarder the trainer's
// and the remote worker's options take (trainer.Options.NewForwarder).
func NewForwarder(p *net.Params, maxBatch int, precision string) (mcts.Forwarder, error) {
	return OpenForwarder(p, maxBatch, precision)
}

// LoadEval loads the learned evaluation the spec asks for: nil for the
// classical one; EvalFile, or without it the shipped network
// (models/xiangqi.nnue). label names it.
func (s *Spec) LoadEval() (n *nnue.Net, label string, err error) {
	if s.Eval != EvalLearned {
		return nil, "", nil
	}
	if s.EvalFile == "" {
		// Decoded once per process.
		n, m, err := nnue.Shipped()
		if err != nil {
			return nil, "", fmt.Errorf("eval=learned without evalfile=FILE: %w", err)
		}
		return n, m.String(), nil
	}
	n, err = nnue.Load(s.EvalFile)
	if err != nil {
		return nil, "", err
	}
	return n, s.EvalFile, nil
}

// ABZeroEval is abzero.Config.Eval for the learned network n (nil: the
// game's own evaluation): the blend's alpha-beta half evaluates with it,
// its MCTS half keeps the plain position.
func ABZeroEval(n *nnue.Net) func(game.Position) (alphabeta.Position, error) {
	if n == nil {
		return nil
	}
	return func(p game.Position) (alphabeta.Position, error) { return nnue.Wrap(n, p) }
}

// Mover plays a spec's moves: alpha-beta, the network's MCTS (keeping its
// tree between moves) or the blend, within the spec's limits. It is used
// by one goroutine at a time.
type Mover struct {
	spec    Spec
	evalNet *nnue.Net
	ab      *alphabeta.Searcher
	mc      *mcts.Mover
	abz     *abzero.Mover
}

// Result is a move and what found it.
type Result struct {
	Move game.Move
	// Effort is the work of the move: alpha-beta's nodes, MCTS's
	// simulations (the blend's simulations; its alpha-beta is not
	// counted).
	Effort    int64
	AlphaBeta alphabeta.Result
	MCTS      mcts.Result
	ABZero    abzero.Decision
}

// NewMover builds the spec's mover: ev evaluates for net and abzero
// (a network's evaluator, or any mcts.Evaluator), evalNet is alpha-beta's
// learned evaluation (nil: the game's own).
func (s *Spec) NewMover(ev mcts.Evaluator, evalNet *nnue.Net) (*Mover, error) {
	m := &Mover{spec: *s, evalNet: evalNet}
	var err error
	switch s.Kind {
	case KindAB:
		m.ab, err = alphabeta.New(s.AlphaBeta)
	case KindNet:
		if ev == nil {
			return nil, errors.New("a network player needs an evaluator")
		}
		m.mc = mcts.NewMover(s.MCTS, ev, 0)
	case KindABZero:
		if ev == nil {
			return nil, errors.New("a blend needs an evaluator")
		}
		cfg := s.ABZeroConfig()
		cfg.Eval = ABZeroEval(evalNet)
		m.abz, err = abzero.New(cfg, ev, 0)
	default:
		err = fmt.Errorf("unknown kind %q", s.Kind)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// NewGame forgets what the mover kept from the last game (alpha-beta's
// table, the tree) and seeds the next.
func (m *Mover) NewGame(seed uint64) {
	switch {
	case m.ab != nil:
		m.ab.Clear()
	case m.mc != nil:
		m.mc.NewGame(seed)
	case m.abz != nil:
		m.abz.NewGame(seed)
	}
}

// Move searches p (which it does not modify) within the spec's limits.
// A search ended by ctx is an error, so that a match that ends fails its
// move rather than play a half-searched one.
func (m *Mover) Move(ctx context.Context, p game.Position) (Result, error) {
	return m.move(ctx, p, false)
}

// MoveUntil is Move for a caller that wants a move even when ctx ends
// the search (the Play page, whose budget or a player waiting stops
// searches): alpha-beta answers with its last completed iteration, the
// network's search and the blend's with what they have. A search ctx
// does not end plays Move's move. Gumbel search cannot be interrupted:
// ctx ending fails it.
func (m *Mover) MoveUntil(ctx context.Context, p game.Position) (Result, error) {
	return m.move(ctx, p, true)
}

func (m *Mover) move(ctx context.Context, p game.Position, until bool) (Result, error) {
	// A search ctx ended is the caller's error unless it takes what the
	// search has.
	ended := func() error {
		if until {
			return nil
		}
		return ctx.Err()
	}
	interruptible := until && !m.spec.MCTS.Gumbel
	switch {
	case m.ab != nil:
		ap, ok := p.(alphabeta.Position)
		if !ok {
			return Result{}, fmt.Errorf("game %s has no alpha-beta support", p.Game())
		}
		if m.evalNet != nil {
			// A fresh wrapper a move: its accumulators start from the
			// position as it is.
			w, err := nnue.Wrap(m.evalNet, p)
			if err != nil {
				return Result{}, err
			}
			ap = w
		}
		res := m.ab.Search(ctx, ap, m.spec.ABLimits(), nil)
		if err := ended(); err != nil {
			return Result{}, err
		}
		if res.Move == game.NoMove {
			return Result{}, fmt.Errorf("no move in %s", p)
		}
		move := res.Move
		if st, ok := m.spec.Strength(p.Game()); ok {
			move, _ = st.Choose(p, move)
		}
		return Result{Move: move, Effort: int64(res.Nodes), AlphaBeta: res}, nil
	case m.mc != nil:
		var res mcts.Result
		var err error
		if m.spec.MoveTime > 0 {
			// Interruptible: the search answers with what it has when its
			// time ends; the match's own end still fails the move.
			tctx, cancel := context.WithTimeout(ctx, m.spec.MoveTime)
			res, err = m.mc.Search(tctx, p, mcts.Limits{Sims: m.spec.Sims, Interruptible: true})
			cancel()
			if err == nil {
				err = ended()
			}
		} else {
			// Interrupted, a search of no simulations (the raw policy)
			// would search until ctx ends.
			res, err = m.mc.Search(ctx, p, mcts.Limits{Sims: m.spec.Sims, Interruptible: interruptible && m.spec.Sims > 0})
		}
		if err != nil {
			return Result{}, err
		}
		if res.Best == game.NoMove {
			return Result{}, fmt.Errorf("no move in %s", p)
		}
		return Result{Move: res.Best, Effort: int64(res.Simulations), MCTS: res}, nil
	default:
		// The blend inside alpha-beta's search: cheaper than multi-PV
		// root scores, and the engine's way. Interruptible, it still
		// searches to the spec's depth and simulations.
		d, err := m.abz.Move(ctx, p, abzero.Limits{InSearch: true, Interruptible: interruptible})
		if err != nil {
			return Result{}, err
		}
		if d.Move == game.NoMove {
			return Result{}, fmt.Errorf("no move in %s", p)
		}
		return Result{Move: d.Move, Effort: int64(d.MCTS.Simulations), ABZero: d, AlphaBeta: d.AlphaBeta, MCTS: d.MCTS}, nil
	}
}

// AlphaBeta is the alpha-beta searcher of an ab mover (nil for other
// kinds), for callers that search with limits of their own (the engine).
func (m *Mover) AlphaBeta() *alphabeta.Searcher { return m.ab }

// MCTS is the network search of a net mover (nil for other kinds).
func (m *Mover) MCTS() *mcts.Mover { return m.mc }

// Spec returns the spec the mover plays.
func (m *Mover) Spec() Spec { return m.spec }

// EvalNet is the learned evaluation the mover's alpha-beta searches with
// (nil: the game's own).
func (m *Mover) EvalNet() *nnue.Net { return m.evalNet }

// ABZero is the blend's mover (nil for other kinds).
func (m *Mover) ABZero() *abzero.Mover { return m.abz }
