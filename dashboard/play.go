package dashboard

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/player"
)

// The Play page: a person plays a game against a network (its MCTS),
// alpha-beta or the blend of both (Alpha-Beta-Zero), each a spec of
// package player. The server keeps every game (position and history) under
// an id and checks every move; the page only draws and clicks. A finished
// game is appended to RECORDS/GAME/arena/play.jsonl (and .pgn for
// Xiangqi), so that `tabula arena -run RECORDS/GAME -ratings` rates it.

// PlayOptions configure the Play page.
type PlayOptions struct {
	// Networks are checkpoint files or run directories offered as
	// opponents, each for the game its checkpoint is of.
	Networks []string
	// DefaultNetwork, if not nil, gives a game's default network (a
	// shipped model), offered first.
	DefaultNetwork func(gameName string) (path string, ok bool)
	// NamedNetworks lets the page name any checkpoint or run directory
	// on the server's disk: fine on localhost, not on a public address.
	NamedNetworks bool
	// Records is the directory finished games are saved under
	// (RECORDS/GAME/arena/play.jsonl); "" saves none.
	Records string
	// LionTablebase, if not nil, is Catch the Lion's tablebase, from
	// which the page shows its moves' exact values (truth.go).
	LionTablebase *tablebase.Table
}

// Bounds of what a request may ask: the server is shared, so no game or
// client can take it over.
const (
	// maxSims and maxDepths keep a search within the budget on an
	// ordinary core (Xiangqi's depth 8 with every root move scored took
	// 2-4 s from the start position on a shared 2-core EPYC, depth 10 29
	// s; 20,000 simulations of its shipped network 4 s); searchBudget
	// stops any search that runs past it anyway.
	maxSims       = 20_000
	minMoveTimeMS = 10
	maxMoveTimeMS = 10_000
	// searchBudget: the longest time per move, and a second for such a
	// search to stop by itself (alpha-beta scores the root moves last).
	searchBudget = maxMoveTimeMS*time.Millisecond + time.Second

	// Engine searches: searchSlots run at once, one per client, and a
	// client may have searchQueue more waiting; at most maxWaiting wait in
	// all, each at most maxQueueWait.
	searchSlots  = 2
	searchQueue  = 1
	maxWaiting   = 64
	maxQueueWait = 30 * time.Second
	// searchShare is how long a search runs before it is stopped for a
	// client waiting.
	searchShare = 2 * time.Second

	// Games are kept in memory: maxClientGames per client (a new one
	// beyond that forgets the client's least recently used game, never
	// another client's), maxPlayGames in all (a new one beyond that is
	// refused), each until it has been unused for playIdle.
	maxPlayGames   = 1000
	maxClientGames = 8
	playIdle       = time.Hour
	// maxGone bounds the forgotten games whose reason is kept for their
	// next request.
	maxGone = 4096
	// maxNetworks bounds the networks loaded (-named-networks lets the
	// page name any).
	maxNetworks = 16

	playRecordLabel = "play"
	maxPlayBody     = 1 << 16
	topMoves        = 8
	humanName       = "human"
)

// The defaults of a new game are the knobs' (package player), as the
// arena's specs and the engine's options have them.
var (
	defaultSims  = player.DefaultInt(player.KnobSims)
	defaultDepth = player.DefaultInt(player.KnobDepth)
	defaultM     = player.DefaultFloat(player.KnobM)
)

// The strength a game may ask of alpha-beta: the knob's range.
var (
	minPlayElo = int(player.Lookup(player.KnobElo).Min)
	maxPlayElo = int(player.Lookup(player.KnobElo).Max)
)

// maxDepths bound alpha-beta's depth by game (game.Playable).
func maxDepths() map[string]int {
	out := map[string]int{}
	for _, g := range game.WithCapability[game.Playable]() {
		c, _ := game.Capability[game.Playable](g)
		out[g.Name] = c.PlayMaxDepth()
	}
	return out
}

// errBudget is the cause of a search stopped by its time budget.
var errBudget = errors.New("the time budget per move")

// playRoom holds the games being played.
type playRoom struct {
	opts PlayOptions
	run  string // the run shown, whose best network is offered ("": none)
	// budget is the longest any search runs (searchBudget; tests shorten
	// it).
	budget time.Duration

	mu    sync.Mutex
	games map[string]*playGame
	owned map[string]int // games kept by client
	// gone says why a game recently forgotten was, for its next request.
	gone      map[string]string
	goneOrder []string

	netMu sync.Mutex
	nets  map[string]*arena.Spec // loaded networks by game and path

	gate    *searchGate
	engines *enginePool
	solvers *solverPool // Connect Four's, for the exact values

	// saveMu makes a record's index and its append one step: games
	// ending together must not take the same index.
	saveMu  sync.Mutex
	records map[string]recordFile
}

func newPlayRoom(run string) *playRoom {
	return &playRoom{run: run, budget: searchBudget, games: map[string]*playGame{}, owned: map[string]int{}, gone: map[string]string{},
		nets: map[string]*arena.Spec{}, gate: newSearchGate(searchSlots, searchQueue, maxWaiting, maxQueueWait, searchShare),
		engines: newEnginePool(searchSlots), solvers: &solverPool{max: searchSlots}, records: map[string]recordFile{}}
}

// SetPlay configures the Play page (before Handler is called).
func (s *Server) SetPlay(o PlayOptions) { s.play.opts = o }

// playEngine is the opponent of one game: what it searches with. The
// memory a search needs (alpha-beta's table, a network's copy, the MCTS
// tree) is taken from the pool for the search's time only, so that a game
// kept between moves holds none of it.
type playEngine interface {
	move(ctx context.Context, pool *enginePool, g *playGame) (game.Move, *EngineReply, error)
}

// enginePool keeps the searchers and network evaluators between
// searches: at most max of each kind (the searches that run at once).
type enginePool struct {
	max  int
	mu   sync.Mutex
	ab   map[string][]*pooledSearcher    // by game
	nets map[string][]*mcts.NetEvaluator // by network key
}

// pooledSearcher is an alpha-beta searcher and the game it last searched
// (its table is cleared for another game, so that a game's replies do
// not depend on other games).
type pooledSearcher struct {
	s    *alphabeta.Searcher
	last string
}

func newEnginePool(max int) *enginePool {
	return &enginePool{max: max, ab: map[string][]*pooledSearcher{}, nets: map[string][]*mcts.NetEvaluator{}}
}

// searcher lends an alpha-beta searcher for game id of gameName with
// opts (the same for every game of gameName: the Play page sets no
// alpha-beta option), preferring the one that searched it last; put
// gives it back.
func (p *enginePool) searcher(gameName, id string, opts alphabeta.Options) (s *alphabeta.Searcher, put func(), err error) {
	p.mu.Lock()
	var ps *pooledSearcher
	if list := p.ab[gameName]; len(list) > 0 {
		i := len(list) - 1
		for k, x := range list {
			if x.last == id {
				i = k
			}
		}
		ps = list[i]
		p.ab[gameName] = slices.Delete(list, i, i+1)
	}
	p.mu.Unlock()
	if ps == nil {
		s, err := alphabeta.New(opts)
		if err != nil {
			return nil, nil, err
		}
		ps = &pooledSearcher{s: s}
	} else if ps.last != id {
		ps.s.Clear()
	}
	ps.last = id
	return ps.s, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.ab[gameName]) < p.max {
			p.ab[gameName] = append(p.ab[gameName], ps)
		}
	}, nil
}

// evaluator lends an evaluator of the network spec (key names it).
func (p *enginePool) evaluator(key string, spec *arena.Spec) (ev *mcts.NetEvaluator, put func(), err error) {
	p.mu.Lock()
	if list := p.nets[key]; len(list) > 0 {
		ev = list[len(list)-1]
		p.nets[key] = list[:len(list)-1]
	}
	p.mu.Unlock()
	if ev == nil {
		if ev, err = spec.Evaluator(); err != nil {
			return nil, nil, err
		}
	}
	return ev, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.nets[key]) < p.max {
			p.nets[key] = append(p.nets[key], ev)
		}
	}, nil
}

// rootWDL is a search's root win, draw and loss, or nil when its
// network has no WDL head.
func rootWDL(r mcts.Result) *[3]float64 {
	if !r.HasWDL {
		return nil
	}
	return &[3]float64{float64(r.WDL.Win), float64(r.WDL.Draw), float64(r.WDL.Loss)}
}

// EngineReply is the engine's move with what its search saw.
type EngineReply struct {
	Move string `json:"move"`
	Kind string `json:"kind"` // net, ab or abzero
	// Top are the best root moves: by visits (net, and abzero's network
	// search) or score (ab).
	Top []TopMove `json:"top"`
	// Value is the network's root value for the engine, in [-1, 1].
	Value *float64 `json:"value,omitempty"`
	// WDL is the network's root win, draw and loss for the engine, when
	// its network has the WDL head.
	WDL *[3]float64 `json:"wdl,omitempty"`
	// Score is alpha-beta's score for the engine ("cp 35", "mate 3";
	// abzero's with the network's shares blended in).
	Score       string   `json:"score,omitempty"`
	Depth       int      `json:"depth,omitempty"`
	Simulations int      `json:"simulations,omitempty"`
	Nodes       uint64   `json:"nodes,omitempty"`
	PV          []string `json:"pv,omitempty"`
	Millis      int64    `json:"ms"`
	// Stopped says what cut the search short ("the time budget per
	// move", "another player waiting"), if anything did.
	Stopped string `json:"stopped,omitempty"`
	// Random: the move was drawn at random, as a strength limit plays
	// some at its lowest levels (the search's scores are beside it).
	Random bool `json:"random,omitempty"`
}

// TopMove is one root move of the engine's search.
type TopMove struct {
	Move   string  `json:"move"`
	Share  float64 `json:"share,omitempty"`  // visit share (net, abzero)
	Visits int     `json:"visits,omitempty"` // net, abzero
	Prior  float64 `json:"prior,omitempty"`  // the network's prior (net, abzero)
	Score  string  `json:"score,omitempty"`  // ab: exact, or "<= N" for a bound
}

// stopped says why a search ended early when the request is still
// there: the budget or a client waiting (its result is played), or
// nothing. A request gone away is an error.
func stopped(ctx context.Context) (string, error) {
	if ctx.Err() == nil {
		return "", nil
	}
	if err := context.Cause(ctx); !errors.Is(err, errBudget) && !errors.Is(err, errPreempted) {
		return "", err
	}
	return context.Cause(ctx).Error(), nil
}

// abEngine plays an ab: spec of package player (a depth or a time).
type abEngine struct {
	spec *player.Spec
}

func (a *abEngine) move(ctx context.Context, pool *enginePool, g *playGame) (game.Move, *EngineReply, error) {
	p := g.pos
	ap, ok := p.Clone().(alphabeta.Position)
	if !ok {
		return game.NoMove, nil, fmt.Errorf("%s has no alpha-beta search", p.Game())
	}
	// The learned evaluation (the shipped network, decoded once a
	// process) searches the position wrapped with its accumulators.
	evalNet, _, err := a.spec.LoadEval()
	if err != nil {
		return game.NoMove, nil, err
	}
	if evalNet != nil {
		if ap, err = nnue.Wrap(evalNet, p.Clone()); err != nil {
			return game.NoMove, nil, err
		}
	}
	s, put, err := pool.searcher(g.game, g.id, a.spec.AlphaBeta)
	if err != nil {
		return game.NoMove, nil, err
	}
	defer put()
	lim := a.spec.ABLimits()
	lim.MultiPV = true // every root move's score, for the page
	res := s.Search(ctx, ap, lim, nil)
	why, err := stopped(ctx)
	if err != nil {
		return game.NoMove, nil, err
	}
	if res.Move == game.NoMove {
		return game.NoMove, nil, errors.New("alpha-beta found no move")
	}
	// A strength limit plays some random moves at its lowest levels.
	move, random := res.Move, false
	if st, ok := a.spec.Strength(g.game); ok {
		move, random = st.Choose(p, res.Move)
	}
	r := &EngineReply{Move: p.FormatMove(move), Kind: arena.KindAB, Score: alphabeta.FormatScore(res.Score),
		Depth: res.Depth, Nodes: res.Nodes, Millis: res.Time.Milliseconds(), Stopped: why, Top: []TopMove{}, Random: random}
	for _, m := range res.PV {
		r.PV = append(r.PV, p.FormatMove(m))
	}
	for _, rs := range res.RootScores[:min(len(res.RootScores), topMoves)] {
		t := TopMove{Move: p.FormatMove(rs.Move), Score: alphabeta.FormatScore(rs.Score)}
		if rs.Upper {
			t.Score = "<= " + t.Score
		}
		r.Top = append(r.Top, t)
	}
	return move, r, nil
}

// netEngine plays a spec of package player that searches with a network:
// net: (its MCTS with a number of simulations) or abzero: (that MCTS,
// then alpha-beta to a depth with the network's visit shares added to
// its root moves' scores).
type netEngine struct {
	key  string      // the network's, for the pool
	net  *arena.Spec // the loaded network
	spec *player.Spec
}

// search plays the spec's move with an evaluator of the network lent by
// the pool: a mover (and its tree, its alpha-beta table) a search, so
// that a game kept between moves holds none. The movers are deterministic
// (no noise), so a position gets the same reply. MoveUntil, so that a
// page gone away or the budget stops the search early.
func (n *netEngine) search(ctx context.Context, pool *enginePool, p game.Position) (player.Result, error) {
	ev, put, err := pool.evaluator(n.key, n.net)
	if err != nil {
		return player.Result{}, err
	}
	defer put()
	evalNet, _, err := n.spec.LoadEval()
	if err != nil {
		return player.Result{}, err
	}
	mv, err := n.spec.NewMover(ev, evalNet)
	if err != nil {
		return player.Result{}, err
	}
	return mv.MoveUntil(ctx, p)
}

func (n *netEngine) move(ctx context.Context, pool *enginePool, g *playGame) (game.Move, *EngineReply, error) {
	p := g.pos
	start := time.Now()
	res, err := n.search(ctx, pool, p)
	// Why the search was cut short (its budget, or a waiting player),
	// when it was; a client gone is the error.
	why, gone := stopped(ctx)
	if gone != nil {
		return game.NoMove, nil, gone
	}
	if err != nil {
		return game.NoMove, nil, err
	}
	mr := res.MCTS
	r := &EngineReply{Move: p.FormatMove(res.Move), Kind: n.spec.Kind, Simulations: mr.Simulations, Depth: len(mr.PV),
		Stopped: why, Top: visitsTop(p, mr, res.Move)}
	if mr.Best != game.NoMove {
		v := float64(mr.Value)
		r.Value, r.WDL = &v, rootWDL(mr)
	}
	pv := mr.PV
	if n.spec.Kind == player.KindABZero {
		ab := res.AlphaBeta
		r.Score, r.Depth, r.Nodes, pv = alphabeta.FormatScore(ab.Score), ab.Depth, ab.Nodes, ab.PV
	}
	for _, m := range pv {
		r.PV = append(r.PV, p.FormatMove(m))
	}
	r.Millis = time.Since(start).Milliseconds()
	return res.Move, r, nil
}

// visitsTop lists a search's most visited root moves, the move played
// first: on equal visits the search breaks the tie by value, which the
// list does not show, and the blend may play another.
func visitsTop(p game.Position, res mcts.Result, played game.Move) []TopMove {
	idx := make([]int, len(res.Moves))
	for i := range idx {
		idx[i] = i
	}
	first := func(i int) int {
		if res.Moves[i] == played {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(first(b), first(a)), cmp.Compare(res.Visits[b], res.Visits[a]), cmp.Compare(res.Policy[b], res.Policy[a]))
	})
	top := []TopMove{}
	for _, i := range idx[:min(len(idx), topMoves)] {
		t := TopMove{Move: p.FormatMove(res.Moves[i]), Share: float64(res.Policy[i]), Visits: res.Visits[i]}
		if i < len(res.Prior) {
			t.Prior = float64(res.Prior[i])
		}
		top = append(top, t)
	}
	return top
}

// playGame is one game; mu lets one request at a time change it.
type playGame struct {
	mu      sync.Mutex
	id      string
	game    string
	start   string
	pos     game.Position
	moves   []string
	replies []*EngineReply // by ply; nil for the person's moves
	human   game.Color
	name    string // the engine's name in records
	engine  playEngine
	began   time.Time
	client  string    // who started it (clientOf)
	used    time.Time // guarded by playRoom.mu
	saved   string
	saveErr string
	// truth keeps the exact values of positions solved, by position.
	truth map[string]*TruthInfo
}

// PlayState is a game as the page shows it.
type PlayState struct {
	ID       string         `json:"id"`
	Game     string         `json:"game"`
	Human    string         `json:"human"` // first or second
	Engine   string         `json:"engine"`
	Start    string         `json:"start"`
	Position string         `json:"position"`
	Board    game.Board     `json:"board"`
	Moves    []string       `json:"moves"`
	Replies  []*EngineReply `json:"replies"` // by ply, null for the person's moves
	Legal    []string       `json:"legal"`
	ToMove   string         `json:"to_move"` // human, engine, or "" when over
	// InCheck: the side to move is in check (Xiangqi), for the page to
	// mark the general and to say checkmate rather than stalemate.
	InCheck bool   `json:"in_check,omitempty"`
	Over    bool   `json:"over"`
	Result  string `json:"result,omitempty"` // 1-0, 0-1, 1/2-1/2
	Reason  string `json:"reason,omitempty"`
	Winner  string `json:"winner,omitempty"` // human, engine or draw
	Saved   string `json:"saved,omitempty"`  // the record file
	SaveErr string `json:"save_error,omitempty"`
}

func (g *playGame) state() PlayState {
	st := PlayState{ID: g.id, Game: g.game, Human: g.human.String(), Engine: g.name, Start: g.start,
		Position: g.pos.String(), Moves: append([]string{}, g.moves...), Replies: append([]*EngineReply{}, g.replies...), Legal: []string{},
		Saved: g.saved, SaveErr: g.saveErr}
	if b, ok := g.pos.(game.Boarder); ok {
		st.Board = b.Board()
	}
	if c, ok := g.pos.(interface{ InCheck() bool }); ok {
		st.InCheck = c.InCheck()
	}
	if s := g.pos.Status(); s.Over() {
		st.Over, st.Reason = true, s.Reason
		st.Result, st.Winner = g.result(s)
		return st
	}
	for _, m := range g.pos.GenerateMoves(nil) {
		st.Legal = append(st.Legal, g.pos.FormatMove(m))
	}
	st.ToMove = "engine"
	if g.pos.SideToMove() == g.human {
		st.ToMove = "human"
	}
	return st
}

// result is the finished game's result (the first colour's view) and
// who won.
func (g *playGame) result(s game.Status) (result, winner string) {
	side := g.pos.SideToMove()
	var w game.Color
	switch s.Result {
	case game.Win:
		w = side
	case game.Loss:
		w = side.Other()
	default:
		return arena.ResultDraw, "draw"
	}
	result = arena.ResultFirstWins
	if w == game.Second {
		result = arena.ResultSecondWins
	}
	winner = "engine"
	if w == g.human {
		winner = "human"
	}
	return result, winner
}

// recordFile is what the server knows of a records file it appends to:
// its size after its last append and the records it then held.
type recordFile struct {
	size int64
	n    int
}

// save appends the finished game g to the records (at most once per end:
// a game taken back and finished again is saved again). The record's
// index is the records the file holds: counting and appending are one
// step under saveMu, so games ending together take one index each.
func (pr *playRoom) save(g *playGame) {
	dir := pr.opts.Records
	if dir == "" {
		return
	}
	res, _ := g.result(g.pos.Status())
	rec := arena.Record{Match: playRecordLabel, Variant: g.game, A: humanName, B: g.name, Start: g.start,
		Moves: slices.Clone(g.moves), Result: res, Reason: g.pos.Status().Reason, Plies: len(g.moves),
		Millis: time.Since(g.began).Milliseconds(), Time: time.Now().UTC()}
	rec.First, rec.Second = humanName, g.name
	if g.human == game.Second {
		rec.First, rec.Second = g.name, humanName
	}
	runDir := filepath.Join(dir, g.game, "arena")
	path := filepath.Join(runDir, playRecordLabel+".jsonl")
	pr.saveMu.Lock()
	defer pr.saveMu.Unlock()
	n, err := pr.recordCount(path)
	if err != nil {
		g.saveErr = err.Error()
		return
	}
	rec.Index, rec.Pair = n, n/2
	if err := arena.AppendRecord(runDir, playRecordLabel, rec); err != nil {
		g.saveErr = err.Error()
		delete(pr.records, path)
		return
	}
	if st, err := os.Stat(path); err == nil {
		pr.records[path] = recordFile{size: st.Size(), n: n + 1}
	}
	g.saved, g.saveErr = path, ""
}

// recordCount is the records in the file at path: known from the last
// append while the file has the size it left, else counted (its complete
// lines that are not blank). saveMu is held.
func (pr *playRoom) recordCount(path string) (int, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if k, ok := pr.records[path]; ok && k.size == st.Size() {
		return k.n, nil
	}
	f, _, err := inputfile.Open(path, "records file", maxArenaBytes)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, blank := 0, true
	r := bufio.NewReader(f)
	for {
		b, err := r.ReadSlice('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			blank = false
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil // a cut-off last line is no record
			}
			return 0, fmt.Errorf("records file %s: %w", path, err)
		}
		if !blank {
			n++
		}
		blank = true
	}
}

// playError is a refused request: its status and the reason shown.
type playError struct {
	code int
	msg  string
}

func (e *playError) Error() string { return e.msg }

func refuse(code int, format string, args ...any) error {
	return &playError{code: code, msg: fmt.Sprintf(format, args...)}
}

// playFail answers a failed play request as JSON {"error": reason}.
func (s *Server) playFail(w http.ResponseWriter, err error) {
	code, msg := http.StatusInternalServerError, "internal server error (the dashboard's log has the details)"
	var pe *playError
	switch {
	case errors.As(err, &pe):
		code, msg = pe.code, pe.msg
		s.log.Debug("dashboard: play request refused", "status", code, "err", err)
	case errors.Is(err, context.Canceled):
		s.log.Debug("dashboard: play request gone", "err", err)
		return // the client went away: no one reads the answer
	default:
		s.log.Warn("dashboard: play request failed", "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// decode reads a JSON request body into v, refusing unknown fields.
func decode(r *http.Request, w http.ResponseWriter, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxPlayBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return refuse(http.StatusBadRequest, "bad request body: %v", err)
	}
	return nil
}

// NetworkChoice is a network the page offers.
type NetworkChoice struct {
	Path  string `json:"path"`
	Label string `json:"label"`
}

// PlayGameChoice is a game the page offers, with its networks.
type PlayGameChoice struct {
	Name     string          `json:"name"`
	Networks []NetworkChoice `json:"networks"`
	// Evals are alpha-beta's evaluations for the game, the default
	// first: Xiangqi's learned one (the engine's default) and classical;
	// the other games' classical alone.
	Evals []string `json:"evals"`
	// Opponents are the kinds of player offered: ab where alpha-beta
	// plays the game, net where a network is offered (or may be named),
	// abzero (the blend of both) where both are.
	Opponents []string `json:"opponents"`
	// Truth: the page may show each move's exact value (Connect Four's
	// solver, Catch the Lion's tablebase when the server has it);
	// TruthHint says in words how to get them where it may not.
	Truth     bool   `json:"truth"`
	TruthHint string `json:"truth_hint,omitempty"`
	// EloScale says what alpha-beta's strength means for the game: the
	// outside ladder's Elo (Xiangqi), or a nominal, uncalibrated scale.
	EloScale string `json:"elo_scale"`
}

// PlayChoices is what the page offers.
type PlayChoices struct {
	Games         []PlayGameChoice `json:"games"`
	NamedNetworks bool             `json:"named_networks"`
	// Dashboard: the server shows a run, so the dashboard page has one
	// to show (a Play-only server's page links nowhere else).
	Dashboard    bool    `json:"dashboard"`
	Saving       bool    `json:"saving"`
	DefaultSims  int     `json:"default_sims"`
	DefaultDepth int     `json:"default_depth"`
	DefaultM     float64 `json:"default_m"` // the blend's weight
	// The limits a new game may ask for.
	MaxSims       int            `json:"max_sims"`
	MaxDepth      map[string]int `json:"max_depth"` // by game
	MinMoveTimeMS int            `json:"min_movetime_ms"`
	MaxMoveTimeMS int            `json:"max_movetime_ms"`
	// The strength alpha-beta may be asked to play at (elo).
	MinElo int `json:"min_elo"`
	MaxElo int `json:"max_elo"`
}

// playGames are the games the page offers: the registered games that
// are game.Playable, by name.
func playGames() []string {
	var out []string
	for _, g := range game.WithCapability[game.Playable]() {
		out = append(out, g.Name)
	}
	return out
}

func (s *Server) playOptions(w http.ResponseWriter, _ *http.Request) {
	pr := s.play
	out := PlayChoices{NamedNetworks: pr.opts.NamedNetworks, Dashboard: pr.run != "", Saving: pr.opts.Records != "", DefaultSims: defaultSims, DefaultDepth: defaultDepth,
		DefaultM: defaultM, MaxSims: maxSims, MaxDepth: maxDepths(), MinMoveTimeMS: minMoveTimeMS, MaxMoveTimeMS: maxMoveTimeMS,
		MinElo: minPlayElo, MaxElo: maxPlayElo}
	var paths []NetworkChoice
	if pr.run != "" {
		paths = append(paths, NetworkChoice{Path: pr.run, Label: "this run's best network (" + filepath.Base(pr.run) + ")"})
	}
	for _, n := range pr.opts.Networks {
		paths = append(paths, NetworkChoice{Path: n, Label: n})
	}
	for _, name := range playGames() {
		c := PlayGameChoice{Name: name, Networks: []NetworkChoice{}, Evals: playEvals(name)}
		if pr.opts.DefaultNetwork != nil {
			if p, ok := pr.opts.DefaultNetwork(name); ok {
				c.Networks = append(c.Networks, NetworkChoice{Path: p, Label: "shipped network (" + p + ")"})
			}
		}
		for _, n := range paths {
			// A network is offered for the game it plays; one that does not
			// load is left out (the log says why).
			g, ok, err := arena.NetworkGame("net:" + n.Path)
			if err != nil || !ok {
				s.log.Debug("dashboard: play: network not offered", "path", n.Path, "err", err)
				continue
			}
			if g == name {
				c.Networks = append(c.Networks, n)
			}
		}
		c.Opponents = playOpponents(name, len(c.Networks) > 0 || pr.opts.NamedNetworks)
		c.Truth, c.TruthHint = pr.truthOffer(name)
		c.EloScale = "nominal, not calibrated: only the order means something (random play at -400, 1,000 nodes a move at 0, doubling every 100)"
		if player.StrengthFor(name, player.EvalClassical, 0).Calibrated {
			c.EloScale = "the outside Xiangqi ladder's Elo: ab:depth=1 at 0, random play about -400, Fairy-Stockfish at 1,000 nodes about 280, at 10,000 about 820"
		}
		out.Games = append(out.Games, c)
	}
	s.writeJSON(w, out)
}

// NewPlayRequest starts a game.
type NewPlayRequest struct {
	Game     string `json:"game"`
	Opponent string `json:"opponent"` // ab, net or abzero
	Network  string `json:"network,omitempty"`
	Side     string `json:"side"` // the person's: first or second
	// Position is where the game starts, in the game's text (Xiangqi's
	// FEN, Connect Four's moves from the empty board, Catch the Lion's
	// position); "" the usual start.
	Position string `json:"position,omitempty"`
	Sims     int    `json:"sims,omitempty"`
	Depth    int    `json:"depth,omitempty"`
	MoveTime int    `json:"movetime_ms,omitempty"` // ab: instead of depth
	// Eval is alpha-beta's evaluation (ab, abzero): classical or learned
	// (Xiangqi's); "" the game's default, its first of
	// PlayGameChoice.Evals.
	Eval string `json:"eval,omitempty"`
	// M is the blend's weight (abzero): V = pi*m + alpha-beta's score in
	// soldiers; absent, the knob's default.
	M *float64 `json:"m,omitempty"`
	// Elo limits alpha-beta's strength (ab; UCI_Elo): a node budget a
	// move, and some random moves at the lowest levels (player.Strength).
	// Alone it is the limit; with a depth or a time both apply.
	Elo *int `json:"elo,omitempty"`
}

// playOpponents are the kinds of player offered for a game: alpha-beta
// where it plays the game, a network where one is (networks), and the
// blend of both where both are.
func playOpponents(gameName string, networks bool) []string {
	out := []string{}
	ab := player.HasAlphaBeta(gameName)
	if ab {
		out = append(out, player.KindAB)
	}
	if networks {
		out = append(out, player.KindNet)
	}
	if ab && networks {
		out = append(out, player.KindABZero)
	}
	return out
}

// playEvals are the evaluations alpha-beta offers for a game, the
// default first: the engine's default (player.Knobs' EngineDefault)
// where the game has it.
func playEvals(gameName string) []string {
	if !player.HasLearnedEval(gameName) {
		return []string{player.EvalClassical}
	}
	def := player.Lookup(player.KnobEval).EngineValue()
	out := []string{def}
	for _, v := range player.Lookup(player.KnobEval).Values {
		if v != def {
			out = append(out, v)
		}
	}
	return out
}

// MoveRequest is the person's move in the game's notation.
type MoveRequest struct {
	Move string `json:"move"`
}

func (s *Server) playNew(w http.ResponseWriter, r *http.Request) {
	var req NewPlayRequest
	if err := decode(r, w, &req); err != nil {
		s.playFail(w, err)
		return
	}
	g, err := s.play.newGame(req)
	if err != nil {
		s.playFail(w, err)
		return
	}
	g.client = clientOf(r)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := s.play.add(g); err != nil {
		s.playFail(w, err)
		return
	}
	// The engine opens when the person plays second.
	if err := s.play.reply(w, r, g); err != nil {
		s.playFail(w, err)
		return
	}
	s.writeJSON(w, g.state())
}

// newGame checks req, each limit as a number in its own unit before any
// conversion (a time in milliseconds is compared as such: converted
// first, 2^63-1 ms would overflow into the range).
func (pr *playRoom) newGame(req NewPlayRequest) (*playGame, error) {
	if games := playGames(); !slices.Contains(games, req.Game) {
		return nil, refuse(http.StatusBadRequest, "game %q: choose one of %s", req.Game, strings.Join(games, ", "))
	}
	gm, err := game.Lookup(req.Game)
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "%v", err)
	}
	pos, err := gm.Start(strings.TrimSpace(req.Position), nil)
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "position: %v", err)
	}
	if st := pos.Status(); st.Over() {
		return nil, refuse(http.StatusBadRequest, "position %q: the game is over there (%s)", req.Position, st.Reason)
	}
	g := &playGame{game: gm.Name, start: pos.String(), pos: pos, began: time.Now()}
	switch req.Side {
	case "first", "":
		g.human = game.First
	case "second":
		g.human = game.Second
	default:
		return nil, refuse(http.StatusBadRequest, "side %q: want first or second", req.Side)
	}
	switch req.Opponent {
	case arena.KindAB, "":
		if req.Sims != 0 || req.M != nil {
			return nil, refuse(http.StatusBadRequest, "alpha-beta: sims is for a network, m for the blend; give depth or movetime_ms")
		}
		kv, err := playEval(gm.Name, req.Eval, "alpha-beta")
		if err != nil {
			return nil, err
		}
		if req.Elo != nil {
			if e := *req.Elo; e < minPlayElo || e > maxPlayElo {
				return nil, refuse(http.StatusBadRequest, "alpha-beta: elo %d out of range [%d, %d]", e, minPlayElo, maxPlayElo)
			}
			kv[player.KnobElo] = strconv.Itoa(*req.Elo)
		}
		switch {
		case req.Elo != nil && req.MoveTime == 0 && req.Depth == 0:
			// The strength alone bounds the search.
		case req.MoveTime != 0 && req.Depth != 0:
			return nil, refuse(http.StatusBadRequest, "alpha-beta: give a depth or a time per move, not both")
		case req.MoveTime != 0:
			if req.MoveTime < minMoveTimeMS || req.MoveTime > maxMoveTimeMS {
				return nil, refuse(http.StatusBadRequest, "alpha-beta: movetime_ms %d out of range [%d, %d]", req.MoveTime, minMoveTimeMS, maxMoveTimeMS)
			}
			kv[player.KnobMoveTime] = strconv.Itoa(req.MoveTime)
		default:
			if kv[player.KnobDepth], err = playDepth(gm.Name, req.Depth, "alpha-beta"); err != nil {
				return nil, err
			}
		}
		spec, err := player.Parse(player.KindAB, gm.Name, kv, nil)
		if err != nil {
			return nil, refuse(http.StatusBadRequest, "alpha-beta: %v", err)
		}
		g.engine, g.name = &abEngine{spec: spec}, specText(player.KindAB, kv)
	case arena.KindNet:
		if req.Depth != 0 || req.MoveTime != 0 || req.Eval != "" || req.M != nil || req.Elo != nil {
			return nil, refuse(http.StatusBadRequest, "network: depth and movetime_ms are for alpha-beta, as is elo; eval and m for alpha-beta and the blend; give sims")
		}
		sims, err := playSims(req.Sims, "network")
		if err != nil {
			return nil, err
		}
		loaded, err := pr.network(gm.Name, req.Network)
		if err != nil {
			return nil, err
		}
		kv := map[string]string{player.KnobSims: sims}
		spec, err := player.Parse(player.KindNet, gm.Name, kv, []string{req.Network})
		if err != nil {
			return nil, refuse(http.StatusBadRequest, "network: %v", err)
		}
		g.engine = &netEngine{key: netKey(gm.Name, req.Network), net: loaded, spec: spec}
		g.name = fmt.Sprintf("net:%s,sims=%s", req.Network, sims)
	case arena.KindABZero:
		const what = "Alpha-Beta-Zero"
		if !player.HasAlphaBeta(gm.Name) {
			return nil, refuse(http.StatusBadRequest, "%s: %s has no alpha-beta search", what, gm.Name)
		}
		if req.MoveTime != 0 || req.Elo != nil {
			return nil, refuse(http.StatusBadRequest, "%s: give a depth and sims, not movetime_ms or elo", what)
		}
		kv, err := playEval(gm.Name, req.Eval, what)
		if err != nil {
			return nil, err
		}
		if kv[player.KnobDepth], err = playDepth(gm.Name, req.Depth, what); err != nil {
			return nil, err
		}
		if kv[player.KnobSims], err = playSims(req.Sims, what); err != nil {
			return nil, err
		}
		m := defaultM
		if req.M != nil {
			m = *req.M
		}
		kv[player.KnobM] = strconv.FormatFloat(m, 'g', -1, 64)
		loaded, err := pr.network(gm.Name, req.Network)
		if err != nil {
			return nil, err
		}
		kv[player.KnobNetwork] = strings.TrimSpace(req.Network)
		spec, err := player.Parse(player.KindABZero, gm.Name, kv, nil)
		if err != nil {
			return nil, refuse(http.StatusBadRequest, "%s: %v", what, err)
		}
		g.engine, g.name = &netEngine{key: netKey(gm.Name, req.Network), net: loaded, spec: spec}, specText(player.KindABZero, kv)
	default:
		return nil, refuse(http.StatusBadRequest, "opponent %q: want ab, net or abzero", req.Opponent)
	}
	return g, nil
}

// netKey names a game's network in the pool.
func netKey(gameName, path string) string { return gameName + "\x00" + strings.TrimSpace(path) }

// playEval reads the evaluation asked for (eval, "" the game's default)
// into a spec's keys.
func playEval(gameName, eval, what string) (map[string]string, error) {
	evals := playEvals(gameName)
	ev := cmp.Or(eval, evals[0])
	if !slices.Contains(evals, ev) {
		return nil, refuse(http.StatusBadRequest, "%s: eval %q: %s offers %s", what, eval, gameName, strings.Join(evals, ", "))
	}
	kv := map[string]string{}
	if ev != player.EvalClassical {
		kv[player.KnobEval] = ev
	}
	return kv, nil
}

// playDepth checks a depth asked for (0: the default) against the game's
// bound.
func playDepth(gameName string, depth int, what string) (string, error) {
	d := cmp.Or(depth, defaultDepth)
	if top := maxDepths()[gameName]; d < 1 || d > top {
		return "", refuse(http.StatusBadRequest, "%s: depth %d out of range [1, %d] for %s", what, d, top, gameName)
	}
	return strconv.Itoa(d), nil
}

// playSims checks the simulations asked for (0: the default).
func playSims(sims int, what string) (string, error) {
	n := cmp.Or(sims, defaultSims)
	if n < 1 || n > maxSims {
		return "", refuse(http.StatusBadRequest, "%s: sims %d out of range [1, %d]", what, n, maxSims)
	}
	return strconv.Itoa(n), nil
}

// specText writes a spec of its keys in order, as records name the
// engine.
func specText(kind string, kv map[string]string) string {
	keys := slices.Sorted(maps.Keys(kv))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + kv[k]
	}
	if len(parts) == 0 {
		return kind
	}
	return kind + ":" + strings.Join(parts, ",")
}

// network loads (once) the network at path for gameName, if the page may
// name it.
func (pr *playRoom) network(gameName, path string) (*arena.Spec, error) {
	path = strings.TrimSpace(path)
	if path == "" {
		return nil, refuse(http.StatusBadRequest, "network: name a checkpoint file or run directory")
	}
	if !pr.offered(gameName, path) {
		return nil, refuse(http.StatusBadRequest, "network %q is not offered (start the dashboard with -net %s, or with -named-networks)", path, path)
	}
	if strings.ContainsAny(path, ",=") {
		return nil, refuse(http.StatusBadRequest, "network %q: a path with ',' or '=' cannot be named here", path)
	}
	key := netKey(gameName, path)
	// Loading may take a while: the games are not locked meanwhile.
	pr.netMu.Lock()
	defer pr.netMu.Unlock()
	if s, ok := pr.nets[key]; ok {
		return s, nil
	}
	if len(pr.nets) >= maxNetworks {
		return nil, refuse(http.StatusServiceUnavailable, "network %q: the server has %d networks loaded, the most it loads", path, len(pr.nets))
	}
	if ng, ok, err := arena.NetworkGame("net:" + path); err != nil {
		return nil, refuse(http.StatusBadRequest, "network %q: %v", path, err)
	} else if ok && ng != gameName {
		return nil, refuse(http.StatusBadRequest, "network %q plays %s, not %s", path, ng, gameName)
	}
	s, err := arena.ParsePlayer("net:"+path, gameName)
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "network %q: %v", path, err)
	}
	pr.nets[key] = s
	return s, nil
}

// offered reports whether the page may play the network at path.
func (pr *playRoom) offered(gameName, path string) bool {
	if pr.opts.NamedNetworks || path == pr.run && pr.run != "" || slices.Contains(pr.opts.Networks, path) {
		return true
	}
	if pr.opts.DefaultNetwork != nil {
		if p, ok := pr.opts.DefaultNetwork(gameName); ok && p == path {
			return true
		}
	}
	return false
}

// add keeps g (locked by the caller) under a new id. Games unused for
// playIdle are forgotten first; a client past maxClientGames has its own
// least recently used game forgotten (one no request is using); past
// maxPlayGames in all, g is refused. Another client's game is never
// forgotten for g.
func (pr *playRoom) add(g *playGame) error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	now := time.Now()
	for _, x := range pr.games {
		if now.Sub(x.used) > playIdle {
			pr.forget(x, fmt.Sprintf("it was unused for more than %v", playIdle))
		}
	}
	if pr.owned[g.client] >= maxClientGames {
		var old *playGame
		for _, x := range pr.games {
			if x.client != g.client || old != nil && !x.used.Before(old.used) {
				continue
			}
			if !x.mu.TryLock() {
				continue // a request is using it
			}
			x.mu.Unlock()
			old = x
		}
		if old == nil {
			return refuse(http.StatusTooManyRequests, "your address has %d games, each busy with a request (at most %d are kept per address)", pr.owned[g.client], maxClientGames)
		}
		pr.forget(old, fmt.Sprintf("its address started more games than the %d kept per address, and it was the least recently used", maxClientGames))
	}
	if len(pr.games) >= maxPlayGames {
		return refuse(http.StatusServiceUnavailable, "the server keeps %d games, the most it holds (a game unused for %v is forgotten): try again later", len(pr.games), playIdle)
	}
	for {
		var b [8]byte
		rand.Read(b[:])
		g.id = hex.EncodeToString(b[:])
		if _, dup := pr.games[g.id]; !dup {
			break
		}
	}
	g.used = now
	pr.games[g.id] = g
	pr.owned[g.client]++
	return nil
}

// forget drops g, keeping why for its next request; pr.mu is held.
func (pr *playRoom) forget(g *playGame, why string) {
	if _, ok := pr.games[g.id]; !ok {
		return
	}
	delete(pr.games, g.id)
	if pr.owned[g.client]--; pr.owned[g.client] <= 0 {
		delete(pr.owned, g.client)
	}
	if len(pr.goneOrder) >= maxGone {
		delete(pr.gone, pr.goneOrder[0])
		pr.goneOrder = pr.goneOrder[1:]
	}
	pr.gone[g.id] = why
	pr.goneOrder = append(pr.goneOrder, g.id)
}

// lookup finds a game and locks it for the request; the caller unlocks.
func (pr *playRoom) lookup(id string) (*playGame, error) {
	pr.mu.Lock()
	g, ok := pr.games[id]
	if ok && time.Since(g.used) > playIdle {
		pr.forget(g, fmt.Sprintf("it was unused for more than %v", playIdle))
		ok = false
	}
	if ok {
		g.used = time.Now()
	}
	why := pr.gone[id]
	pr.mu.Unlock()
	if !ok {
		if why != "" {
			return nil, refuse(http.StatusNotFound, "no game %q: it was forgotten because %s (start a new one)", id, why)
		}
		return nil, refuse(http.StatusNotFound, "no game %q (games are kept in memory: start a new one)", id)
	}
	if !g.mu.TryLock() {
		return nil, refuse(http.StatusConflict, "the engine is still thinking in this game")
	}
	return g, nil
}

// reply lets the engine move while it is its turn (at most once: the
// person moves in between), and saves the game when it ends. The search
// waits its turn (searchGate, per client) and runs within the budget.
func (pr *playRoom) reply(w http.ResponseWriter, r *http.Request, g *playGame) error {
	if g.pos.Status().Over() || g.pos.SideToMove() == g.human {
		return nil
	}
	// Waiting and searching may outlast the server's timeouts.
	extendDeadlines(w, maxQueueWait+pr.budget+15*time.Second)
	sctx, release, err := pr.gate.acquire(r.Context(), clientOf(r))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeoutCause(sctx, pr.budget, errBudget)
	m, info, err := g.engine.move(ctx, pr.engines, g)
	cancel()
	release()
	if err != nil {
		return err
	}
	if !game.IsLegal(g.pos, m) {
		return fmt.Errorf("the engine chose %s, which is not legal in %s", g.pos.FormatMove(m), g.pos)
	}
	g.moves = append(g.moves, g.pos.FormatMove(m))
	g.replies = append(g.replies, info)
	g.pos.Make(m)
	if g.pos.Status().Over() {
		pr.save(g)
	}
	return nil
}

func (s *Server) playGet(w http.ResponseWriter, r *http.Request) {
	g, err := s.play.lookup(r.PathValue("id"))
	if err != nil {
		s.playFail(w, err)
		return
	}
	defer g.mu.Unlock()
	s.writeJSON(w, g.state())
}

func (s *Server) playMove(w http.ResponseWriter, r *http.Request) {
	var req MoveRequest
	if err := decode(r, w, &req); err != nil {
		s.playFail(w, err)
		return
	}
	g, err := s.play.lookup(r.PathValue("id"))
	if err != nil {
		s.playFail(w, err)
		return
	}
	defer g.mu.Unlock()
	if st := g.pos.Status(); st.Over() {
		s.playFail(w, refuse(http.StatusConflict, "the game is over (%s): start a new game or take back a move", st.Reason))
		return
	}
	if g.pos.SideToMove() != g.human {
		s.playFail(w, refuse(http.StatusConflict, "it is the engine's turn"))
		return
	}
	text := strings.TrimSpace(req.Move)
	if text == "" || len(text) > 16 {
		s.playFail(w, refuse(http.StatusBadRequest, "move %q: give one move in the game's notation", req.Move))
		return
	}
	m, err := g.pos.ParseMove(text)
	if err != nil {
		s.playFail(w, refuse(http.StatusUnprocessableEntity, "%s", illegalText(g.game, err)))
		return
	}
	g.moves = append(g.moves, g.pos.FormatMove(m))
	g.replies = append(g.replies, nil)
	g.pos.Make(m)
	if g.pos.Status().Over() {
		s.play.save(g)
	}
	if err := s.play.reply(w, r, g); err != nil {
		if r.Context().Err() != nil {
			return // the page went away; the engine replies at its next request
		}
		s.playFail(w, err)
		return
	}
	s.writeJSON(w, g.state())
}

// illegalText is a game's refusal of a move as the page shows it: the
// game's reason without the package's prefix ("xiangqi: "), said to be
// an illegal move.
func illegalText(gameName string, err error) string {
	msg := strings.TrimPrefix(err.Error(), gameName+": ")
	if !strings.Contains(msg, "illegal") {
		msg = "illegal move: " + msg
	}
	return msg
}

// playReply asks the engine to move when it is its turn (after a reply
// that was interrupted, say).
func (s *Server) playReply(w http.ResponseWriter, r *http.Request) {
	g, err := s.play.lookup(r.PathValue("id"))
	if err != nil {
		s.playFail(w, err)
		return
	}
	defer g.mu.Unlock()
	if err := s.play.reply(w, r, g); err != nil {
		s.playFail(w, err)
		return
	}
	s.writeJSON(w, g.state())
}

// playUndo takes back the person's last move and the engine's reply to
// it, so that the person is to move again.
func (s *Server) playUndo(w http.ResponseWriter, r *http.Request) {
	g, err := s.play.lookup(r.PathValue("id"))
	if err != nil {
		s.playFail(w, err)
		return
	}
	defer g.mu.Unlock()
	last := -1 // the person's last move
	for i := len(g.replies) - 1; i >= 0; i-- {
		if g.replies[i] == nil {
			last = i
			break
		}
	}
	if last < 0 {
		s.playFail(w, refuse(http.StatusConflict, "nothing to take back: you have not moved yet"))
		return
	}
	for len(g.moves) > last {
		g.pos.Unmake()
		g.moves, g.replies = g.moves[:len(g.moves)-1], g.replies[:len(g.replies)-1]
	}
	s.writeJSON(w, g.state())
}

// playPage serves the Play page at / when there is no run to show.
func playPage(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "play.html", http.StatusFound)
}
