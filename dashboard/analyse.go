package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/nnue"
)

// The Play page's analysis: the game's engine thinks about the game's
// position, which it leaves as it is, and the page sees it think.

// Bounds of an analysis: its time, and how often the network's search
// reports (alpha-beta reports each depth it completes).
const (
	minAnalyseMS     = 100
	maxAnalyseMS     = maxMoveTimeMS
	defaultAnalyseMS = 3000
	analyseEvery     = 250 * time.Millisecond
)

// AnalysisInfo is what the engine's search sees so far, for the side to
// move.
type AnalysisInfo struct {
	// Kind is the search: ab (alpha-beta), or net (the network's MCTS,
	// which a net or abzero game's engine analyses with).
	Kind  string `json:"kind"`
	Depth int    `json:"depth,omitempty"`
	// Score is alpha-beta's ("cp 35", "mate 3").
	Score string `json:"score,omitempty"`
	Nodes uint64 `json:"nodes,omitempty"`
	// Simulations and Value (in [-1, 1]) are the network search's.
	Simulations int      `json:"simulations,omitempty"`
	Value       *float64 `json:"value,omitempty"`
	// WDL is the network search's root win, draw and loss, when its
	// network has the WDL head.
	WDL *[3]float64 `json:"wdl,omitempty"`
	// Top are the best root moves: by visits (net), or by score (ab, in
	// the last report only).
	Top    []TopMove `json:"top"`
	PV     []string  `json:"pv"`
	Millis int64     `json:"ms"`
	// Done marks the last report; Stopped says what cut the analysis
	// short (another player waiting), if anything did.
	Done    bool   `json:"done,omitempty"`
	Stopped string `json:"stopped,omitempty"`
}

// playAnalyse streams the engine's thinking about the game's position as
// Server-Sent Events: "info" events (AnalysisInfo) as the search goes,
// then one with done set. ?ms= bounds it (minAnalyseMS-maxAnalyseMS,
// default defaultAnalyseMS). The search waits its turn as replies do; the
// game is free for other requests meanwhile.
func (s *Server) playAnalyse(w http.ResponseWriter, r *http.Request) {
	ms, err := queryMillis(r, defaultAnalyseMS, minAnalyseMS, maxAnalyseMS)
	if err != nil {
		s.playFail(w, err)
		return
	}
	g, err := s.play.lookup(r.PathValue("id"))
	if err != nil {
		s.playFail(w, err)
		return
	}
	// The analysis searches a copy: the game stays free.
	pos, engine, id, gameName := g.pos.Clone(), g.engine, g.id, g.game
	g.mu.Unlock()
	if st := pos.Status(); st.Over() {
		s.playFail(w, refuse(http.StatusConflict, "the game is over (%s): nothing to analyse", st.Reason))
		return
	}
	extendDeadlines(w, maxQueueWait+time.Duration(ms)*time.Millisecond+15*time.Second)
	sctx, release, err := s.play.gate.acquire(r.Context(), clientOf(r))
	if err != nil {
		s.playFail(w, err)
		return
	}
	defer release()
	// Each search stops itself after d; the context's second more lets
	// alpha-beta's last scores in.
	d := time.Duration(ms) * time.Millisecond
	ctx, cancel := context.WithTimeout(sctx, d+time.Second)
	defer cancel()

	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	start := time.Now()
	var sendErr error
	send := func(info AnalysisInfo) {
		if sendErr != nil {
			return
		}
		info.Millis = time.Since(start).Milliseconds()
		b, _ := json.Marshal(info)
		if _, sendErr = fmt.Fprintf(w, "event: info\ndata: %s\n\n", b); sendErr == nil {
			sendErr = rc.Flush()
		}
		if sendErr != nil {
			cancel() // the page went away: stop thinking for it
		}
	}
	var last AnalysisInfo
	switch e := engine.(type) {
	case *abEngine:
		last, err = e.analyse(ctx, s.play.engines, gameName, id, pos, d, send)
	case *netEngine:
		last, err = e.analyse(ctx, s.play.engines, pos, d, send)
	default:
		err = fmt.Errorf("no analysis for %T", engine)
	}
	if sendErr != nil {
		return
	}
	if err != nil {
		// The headers are sent: the error is an event.
		s.log.Warn("dashboard: analysis failed", "err", err)
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		fmt.Fprintf(w, "event: error\ndata: %s\n\n", b)
		return
	}
	last.Done = true
	if c := context.Cause(sctx); sctx.Err() != nil && errors.Is(c, errPreempted) {
		last.Stopped = c.Error()
	}
	send(last)
}

// analyse runs alpha-beta on p for d (or until ctx ends), reporting each
// completed depth, then every root move's score at the deepest.
func (a *abEngine) analyse(ctx context.Context, pool *enginePool, gameName, id string, p game.Position, d time.Duration, send func(AnalysisInfo)) (AnalysisInfo, error) {
	ap, ok := p.Clone().(alphabeta.Position)
	if !ok {
		return AnalysisInfo{}, fmt.Errorf("%s has no alpha-beta search", p.Game())
	}
	evalNet, _, err := a.spec.LoadEval()
	if err != nil {
		return AnalysisInfo{}, err
	}
	if evalNet != nil {
		if ap, err = nnue.Wrap(evalNet, p.Clone()); err != nil {
			return AnalysisInfo{}, err
		}
	}
	s, put, err := pool.searcher(gameName, id, a.spec.AlphaBeta)
	if err != nil {
		return AnalysisInfo{}, err
	}
	defer put()
	pv := func(ms []game.Move) []string {
		out := []string{}
		for _, m := range ms {
			out = append(out, p.FormatMove(m))
		}
		return out
	}
	// Under a time limit the root moves are scored after every depth, so
	// that the clock leaves some depth's scores.
	lim := alphabeta.Limits{Time: d, MultiPV: true}
	res := s.Search(ctx, ap, lim, func(in alphabeta.Info) {
		send(AnalysisInfo{Kind: arena.KindAB, Depth: in.Depth, Score: alphabeta.FormatScore(in.Score), Nodes: in.Nodes, PV: pv(in.PV), Top: []TopMove{}})
	})
	if res.Move == game.NoMove {
		return AnalysisInfo{}, errors.New("alpha-beta found no move")
	}
	out := AnalysisInfo{Kind: arena.KindAB, Depth: res.Depth, Score: alphabeta.FormatScore(res.Score), Nodes: res.Nodes, PV: pv(res.PV), Top: []TopMove{}}
	for _, rs := range res.RootScores[:min(len(res.RootScores), topMoves)] {
		t := TopMove{Move: p.FormatMove(rs.Move), Score: alphabeta.FormatScore(rs.Score)}
		if rs.Upper {
			t.Score = "<= " + t.Score
		}
		out.Top = append(out.Top, t)
	}
	return out, nil
}

// analyse runs the network's MCTS on p for d (or until ctx ends) (a
// blend's engine too: its network's search is what has visit shares and
// a value to watch), reporting every analyseEvery.
func (n *netEngine) analyse(ctx context.Context, pool *enginePool, p game.Position, d time.Duration, send func(AnalysisInfo)) (AnalysisInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	ev, put, err := pool.evaluator(n.key, n.net)
	if err != nil {
		return AnalysisInfo{}, err
	}
	defer put()
	info := func(res mcts.Result) AnalysisInfo {
		out := AnalysisInfo{Kind: arena.KindNet, Simulations: res.Simulations, Depth: len(res.PV), Top: visitsTop(p, res, res.Best), PV: []string{}}
		if res.Best != game.NoMove {
			v := float64(res.Value)
			out.Value, out.WDL = &v, rootWDL(res)
		}
		for _, m := range res.PV {
			out.PV = append(out.PV, p.FormatMove(m))
		}
		return out
	}
	cfg := n.spec.MCTS
	cfg.Gumbel = false // an analysis runs until stopped, which Gumbel's budget cannot
	mv := mcts.NewMover(cfg, ev, 0)
	next := time.Now().Add(analyseEvery)
	res, err := mv.Search(ctx, p, mcts.Limits{Interruptible: true, Progress: func(r mcts.Result) {
		if time.Now().After(next) {
			send(info(r))
			next = time.Now().Add(analyseEvery)
		}
	}})
	if err != nil {
		return AnalysisInfo{}, err
	}
	return info(res), nil
}

// queryMillis reads a request's ?ms= (a time in whole milliseconds within
// [lo, hi]), def when absent; a value out of bounds is refused.
func queryMillis(r *http.Request, def, lo, hi int) (int, error) {
	v := r.URL.Query().Get("ms")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, refuse(http.StatusBadRequest, "ms %q: want a whole number of milliseconds in [%d, %d]", v, lo, hi)
	}
	return n, nil
}
