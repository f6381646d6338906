package dashboard

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/alphabeta/c4solver"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
)

// The game.Exact truth beside the engine: for the solved games the page shows
// each legal move's game.Exact value ("wins in 7", "draws", "loses in 12"),
// from Connect Four's solver (alphabeta/c4solver) and Catch the Lion's
// tablebase (game/lion/tablebase). Values count plies to the end of the
// game with best play: the winner hurrying, the loser delaying.

// Sources of the truth.
const (
	TruthSolver    = "solver"
	TruthTablebase = "tablebase"
)

// Bounds of a solve: its time (an early Connect Four position takes the
// solver minutes), and the solver's table.
const (
	minTruthMS     = 100
	maxTruthMS     = 30_000
	defaultTruthMS = 10_000
	truthTTMiB     = 64
	// maxTruthCache bounds the solved positions a game keeps (taking a
	// move back shows their values at once).
	maxTruthCache = 64
)

// lionTruthHint says, in words, how a server gets Catch the Lion's game.Exact
// values.
const lionTruthHint = "Exact values for Catch the Lion come from its tablebase, which this server was not given: " +
	"build it with tabula liontb -out lion.tb (about 5 CPU-minutes, 250 MB) and start the server with -lion-tablebase lion.tb."

// TruthMove is a legal move with its game.Exact value for the side playing it.
type TruthMove struct {
	Move string `json:"move"`
	// Solved: the value is known (a solve cut short leaves the rest
	// unsolved).
	Solved bool `json:"solved"`
	// Outcome is win, draw or loss for the side playing the move; Plies
	// the plies to the end with best play, the move itself included.
	Outcome string `json:"outcome,omitempty"`
	Plies   int    `json:"plies,omitempty"`
	// Words say it: "wins in 7", "draws", "loses in 12".
	Words string `json:"words,omitempty"`
	// Score is Pons' score of the move (Connect Four): the side playing
	// it wins with its (22-score)th stone, or the opponent with its
	// (22+score)th.
	Score *int `json:"score,omitempty"`
	// Best: no legal move is worth more (set once every move is solved).
	Best bool `json:"best,omitempty"`
}

// TruthInfo is what is known of a position's game.Exact values.
type TruthInfo struct {
	Source string      `json:"source"` // solver or tablebase
	Moves  []TruthMove `json:"moves"`  // every legal move, the best first once solved
	Solved int         `json:"solved"`
	// Value is the position's, for the side to move, once every move is
	// solved ("wins in 7").
	Value  string `json:"value,omitempty"`
	Millis int64  `json:"ms"`
	Done   bool   `json:"done,omitempty"`
	// Stopped says why a solve ended before every move was solved: its
	// time, or another player waiting.
	Stopped string `json:"stopped,omitempty"`
	// Note is what the values do not account for (the tablebase ignores
	// repetitions and the ply cap).
	Note string `json:"note,omitempty"`
}

// outcomeWord names a move's outcome for the page.
func outcomeWord(e game.Exact) string {
	switch e.Outcome {
	case game.Win:
		return "win"
	case game.Loss:
		return "loss"
	}
	return "draw"
}

// words says a move's value as the page shows it: "wins in 7".
func words(e game.Exact) string {
	switch e.Outcome {
	case game.Win:
		return "wins in " + strconv.Itoa(e.Plies)
	case game.Loss:
		return "loses in " + strconv.Itoa(e.Plies)
	}
	return "draws"
}

// ponsExact reads Pons' score of a Connect Four position with n stones
// played: a win of score s comes with the side to move's (22-s)th stone,
// a loss with the opponent's (22+s)th.
func ponsExact(score, n int) game.Exact {
	mine, theirs := n/2, n-n/2 // stones on the board
	switch {
	case score > 0:
		return game.Exact{Outcome: game.Win, Plies: 2*(22-score-mine) - 1}
	case score < 0:
		return game.Exact{Outcome: game.Loss, Plies: 2 * (22 + score - theirs)}
	}
	return game.Exact{Outcome: game.Draw, Plies: 0}
}

// truthOffer says whether the page may show gameName's game.Exact values, and
// if not, why in words.
func (pr *playRoom) truthOffer(gameName string) (bool, string) {
	switch gameName {
	case connect4.Name:
		return true, ""
	case lion.Name:
		if pr.opts.LionTablebase != nil {
			return true, ""
		}
		return false, lionTruthHint
	}
	return false, ""
}

// solverPool lends Connect Four solvers (their tables stay warm: a
// solve cut short and asked again goes on from what it proved).
type solverPool struct {
	mu   sync.Mutex
	max  int
	free []*c4solver.Solver
}

func (p *solverPool) get() (*c4solver.Solver, func(), error) {
	p.mu.Lock()
	var s *c4solver.Solver
	if n := len(p.free); n > 0 {
		s, p.free = p.free[n-1], p.free[:n-1]
	}
	p.mu.Unlock()
	if s == nil {
		var err error
		if s, err = c4solver.New(c4solver.Fastest, truthTTMiB); err != nil {
			return nil, nil, err
		}
	}
	return s, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.free) < p.max {
			p.free = append(p.free, s)
		}
	}, nil
}

// playTruth streams the game.Exact values of the game's legal moves as
// Server-Sent Events: "truth" events (TruthInfo) as moves are solved,
// the last with done set. ?ms= bounds the solve (minTruthMS-maxTruthMS,
// default defaultTruthMS); the page closing the stream (the person moved
// on) stops it. Connect Four's solve waits its turn as searches do; the
// tablebase answers at once.
func (s *Server) playTruth(w http.ResponseWriter, r *http.Request) {
	ms, err := queryMillis(r, defaultTruthMS, minTruthMS, maxTruthMS)
	if err != nil {
		s.playFail(w, err)
		return
	}
	pr := s.play
	g, err := pr.lookup(r.PathValue("id"))
	if err != nil {
		s.playFail(w, err)
		return
	}
	pos, gameName, key := g.pos.Clone(), g.game, g.pos.String()
	cached := g.truth[key]
	g.mu.Unlock()
	if ok, why := pr.truthOffer(gameName); !ok {
		if why == "" {
			why = fmt.Sprintf("%s is not solved: there are no game.Exact values to show", gameName)
		}
		s.playFail(w, refuse(http.StatusConflict, "%s", why))
		return
	}
	if st := pos.Status(); st.Over() {
		s.playFail(w, refuse(http.StatusConflict, "the game is over (%s): no moves to value", st.Reason))
		return
	}

	rc := http.NewResponseController(w)
	start := time.Now()
	var sendErr error
	headers := func() {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-store")
	}
	send := func(info TruthInfo) {
		if sendErr != nil {
			return
		}
		info.Millis = time.Since(start).Milliseconds()
		b, _ := json.Marshal(info)
		if _, sendErr = fmt.Fprintf(w, "event: truth\ndata: %s\n\n", b); sendErr == nil {
			sendErr = rc.Flush()
		}
	}
	if cached != nil {
		headers()
		send(*cached)
		return
	}

	var info TruthInfo
	switch p := pos.(type) {
	case *lion.Position:
		info, err = lionTruth(pr.opts.LionTablebase, p)
		if err != nil {
			s.playFail(w, refuse(http.StatusUnprocessableEntity, "the tablebase has no value for %s: %v", p, err))
			return
		}
		headers()
	case *connect4.Position:
		d := time.Duration(ms) * time.Millisecond
		extendDeadlines(w, maxQueueWait+d+15*time.Second)
		sctx, release, err := pr.gate.acquire(r.Context(), clientOf(r))
		if err != nil {
			s.playFail(w, err)
			return
		}
		defer release()
		solver, put, err := pr.solvers.get()
		if err != nil {
			s.playFail(w, err)
			return
		}
		defer put()
		ctx, cancel := context.WithTimeoutCause(sctx, d, errTruthTime)
		defer cancel()
		headers()
		info = connect4Truth(ctx, solver, p, func(in TruthInfo) {
			send(in)
			if sendErr != nil {
				cancel() // the page went away: stop solving for it
			}
		})
		if sendErr != nil {
			return
		}
		if info.Solved < len(info.Moves) {
			if c := context.Cause(ctx); c != nil && (errors.Is(c, errTruthTime) || errors.Is(c, errPreempted)) {
				info.Stopped = c.Error()
			} else if r.Context().Err() != nil {
				return
			}
		}
	default:
		s.playFail(w, refuse(http.StatusConflict, "%s has no game.Exact values here", gameName))
		return
	}
	info.Done = true
	if info.Solved == len(info.Moves) {
		// Kept for the game, so that the position's values come at once
		// when it comes back.
		if g, err := pr.lookup(r.PathValue("id")); err == nil {
			if g.truth == nil || len(g.truth) >= maxTruthCache {
				g.truth = map[string]*TruthInfo{}
			}
			g.truth[key] = &info
			g.mu.Unlock()
		}
	}
	send(info)
}

// errTruthTime is the cause of a solve stopped by its time.
var errTruthTime = errors.New("the time asked for")

// lionTruth values every legal move of p from the tablebase.
func lionTruth(t *tablebase.Table, p *lion.Position) (TruthInfo, error) {
	moves, _, err := t.Moves(p, nil)
	if err != nil {
		return TruthInfo{}, err
	}
	info := TruthInfo{Source: TruthTablebase, Note: "the table's values ignore repetitions and the game's 200-ply cap"}
	vals := make([]game.Exact, len(moves))
	for i, m := range moves {
		vals[i] = m.Result
		info.Moves = append(info.Moves, TruthMove{Move: p.FormatMove(m.Move)})
	}
	finish(&info, vals)
	return info, nil
}

// connect4Truth solves every legal move of p, the centre first, calling
// progress after each; a context ended leaves the rest unsolved.
func connect4Truth(ctx context.Context, s *c4solver.Solver, p *connect4.Position, progress func(TruthInfo)) TruthInfo {
	legal := p.GenerateMoves(nil)
	// Centre first: the likeliest best moves are solved first.
	slices.SortStableFunc(legal, func(a, b game.Move) int {
		return cmp.Compare(centreDistance(p.FormatMove(a)), centreDistance(p.FormatMove(b)))
	})
	info := TruthInfo{Source: TruthSolver}
	for _, m := range legal {
		info.Moves = append(info.Moves, TruthMove{Move: p.FormatMove(m)})
	}
	vals := make([]game.Exact, len(legal))
	progress(info)
	for i, m := range legal {
		child := p.Clone().(*connect4.Position)
		child.Make(m)
		score, err := s.SolveContext(ctx, child)
		if err != nil {
			break
		}
		vals[i] = ponsExact(score, child.Moves()).Before()
		mine := -score
		info.Moves[i].Score = &mine
		setExact(&info.Moves[i], vals[i])
		info.Solved++
		if info.Solved < len(legal) {
			progress(info)
		}
	}
	if info.Solved == len(legal) {
		finish(&info, vals)
	}
	return info
}

// centreDistance is a Connect Four column's distance from the centre.
func centreDistance(col string) int {
	c, _ := strconv.Atoi(col)
	return max(c-4, 4-c)
}

func setExact(t *TruthMove, e game.Exact) {
	t.Solved, t.Outcome, t.Words = true, outcomeWord(e), words(e)
	if e.Outcome != game.Draw {
		t.Plies = e.Plies
	}
}

// finish sets every move's value (vals, by move), marks the best, orders
// the moves best first and states the position's value.
func finish(info *TruthInfo, vals []game.Exact) {
	best := 0
	for i, e := range vals {
		setExact(&info.Moves[i], e)
		if e.Rank() > vals[best].Rank() {
			best = i
		}
	}
	info.Solved = len(vals)
	if len(vals) == 0 {
		return
	}
	top := vals[best]
	for i, e := range vals {
		info.Moves[i].Best = e == top
	}
	idx := make([]int, len(vals))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(vals[b].Rank(), vals[a].Rank()) })
	sorted := make([]TruthMove, len(idx))
	for k, i := range idx {
		sorted[k] = info.Moves[i]
	}
	info.Moves = sorted
	info.Value = words(top)
}

// OpenLionTablebase opens the Catch the Lion tablebase at path for the
// Play page's game.Exact values (PlayOptions.LionTablebase), refusing a table
// of a sub-game, which has no value for the game's positions.
func OpenLionTablebase(path string) (*tablebase.Table, error) {
	t, err := tablebase.Open(path)
	if err != nil {
		return nil, fmt.Errorf("lion tablebase: %w", err)
	}
	if m := t.Material(); m != tablebase.Full {
		t.Close()
		return nil, fmt.Errorf("lion tablebase %s: a table of the sub-game %v, not the full game (%s)", path, m, tablebase.BuildHint)
	}
	return t, nil
}
