// Package dashboard serves a training run to a browser: status (the phase
// with its progress and ETA, throughput, workers), the run's charts, the
// gate and evaluation matches, and any recorded game replayed on a drawn
// board (Xiangqi on points with the river and palaces, Catch the Lion
// with hands, Connect Four), with the game being played right now pushed
// live by server-sent events. Everything is served by net/http with
// embedded assets, so it works offline.
//
// The charts are the ones the trainer writes (metrics/charts): the server
// sends their series as JSON (/api/series), of the run and of any runs
// it compares with it, and the page plots them with uPlot (vendored in
// assets/vendor/uplot): values on hover, zoom, several runs on one
// chart. The same data drawn by gonum/plot are RUN/plots/*.png and
// /api/chart/NAME.svg. The page is plain HTML with a small script that
// polls the JSON API and draws the board as SVG.
package dashboard

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/metrics/charts"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/selfplay"
)

//go:embed assets
var assets embed.FS

// LiveGames gives the game being played now (selfplay.Live).
type LiveGames interface {
	Get() (selfplay.LiveGame, bool)
}

// Server serves one run directory. Progress and Live are optional: a
// read-only viewer of a run on disk has neither.
type Server struct {
	run      rundir.Dir
	progress *progress.Tracker
	live     LiveGames
	log      *slog.Logger
	// hide are the run directory's absolute forms, which error answers
	// show as RUN.
	hide []string
	play *playRoom

	charts   *chartCache
	render   func(run, name, format string, w io.Writer) (bool, error) // charts.Render
	chartsOf func(run string) (string, []charts.Chart, error)          // charts.Of
	runs     []*runView                                                // the run's own first, then those compared
	streams  *clientCounter                                            // the live streams open
}

// New returns a server of run ("": none, only the Play page); prog and
// live may be nil, log nil logs to slog's default logger (failed
// requests' details among others).
func New(run string, prog *progress.Tracker, live LiveGames, log *slog.Logger) *Server {
	if log == nil {
		log = slog.Default()
	}
	s := &Server{run: rundir.Dir(run), progress: prog, live: live, log: log, play: newPlayRoom(run), charts: newChartCache(), render: charts.Render,
		chartsOf: charts.Of, streams: newClientCounter(maxStreams, maxClientStreams)}
	if run != "" {
		s.Compare(run)
	}
	return s
}

// Handler routes the page, its assets and the API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	mux.Handle("GET /", http.FileServerFS(static))
	if s.run == "" {
		mux.HandleFunc("GET /{$}", playPage)
	}
	mux.HandleFunc("GET /api/status", s.status)
	mux.HandleFunc("GET /api/charts", s.chartList)
	mux.HandleFunc("GET /api/chart/{name}", s.chart)
	mux.HandleFunc("GET /api/series", s.series)
	mux.HandleFunc("GET /api/runs", s.runList)
	mux.HandleFunc("GET /api/matches", s.matches)
	mux.HandleFunc("GET /api/games", s.games)
	mux.HandleFunc("GET /api/game", s.game)
	mux.HandleFunc("GET /api/live", s.liveEvents)
	mux.HandleFunc("GET /api/play/options", s.playOptions)
	mux.HandleFunc("POST /api/play/new", s.playNew)
	mux.HandleFunc("GET /api/play/games/{id}", s.playGet)
	mux.HandleFunc("POST /api/play/games/{id}/move", s.playMove)
	mux.HandleFunc("POST /api/play/games/{id}/reply", s.playReply)
	mux.HandleFunc("POST /api/play/games/{id}/undo", s.playUndo)
	mux.HandleFunc("GET /api/play/games/{id}/analyse", s.playAnalyse)
	mux.HandleFunc("GET /api/play/games/{id}/truth", s.playTruth)
	return mux
}

// httpTimeouts bound what a connection may hold: a request's header and
// whole body must arrive within header and read, a response be taken
// within write, and a kept-alive connection is closed after idle. A
// stalled client is dropped; handlers that run longer (an engine's
// search, a chart waiting its turn, the live stream) move their own
// deadlines (extendDeadlines).
var httpTimeouts = struct{ header, read, write, idle time.Duration }{
	header: 10 * time.Second, read: 20 * time.Second, write: 30 * time.Second, idle: 30 * time.Second}

// newHTTPServer is the server of the dashboard and the Play page, for
// `tabula dashboard` and `tabula train -http`.
func newHTTPServer(h http.Handler) *http.Server {
	t := httpTimeouts
	return &http.Server{Handler: h, ReadHeaderTimeout: t.header, ReadTimeout: t.read, WriteTimeout: t.write, IdleTimeout: t.idle,
		MaxHeaderBytes: 64 << 10}
}

// extendDeadlines gives the request's connection d more to read (the
// server cancels a request whose read deadline passes, even after its
// body was read) and to write its answer. d 0 clears both.
func extendDeadlines(w http.ResponseWriter, d time.Duration) {
	rc := http.NewResponseController(w)
	var t time.Time
	if d > 0 {
		t = time.Now().Add(d)
	}
	// A ResponseWriter without deadlines (a test's recorder) has no
	// connection to hold.
	_ = rc.SetReadDeadline(t)
	_ = rc.SetWriteDeadline(t)
}

// Serve serves h on addr until ctx ends; ready, if not nil, receives the
// address it listens on (":0" picks a port).
func Serve(ctx context.Context, addr string, h http.Handler, ready func(string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	srv := newHTTPServer(h)
	if ready != nil {
		ready(ln.Addr().String())
	}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("dashboard: %w", err)
	}
	return nil
}

// config is the run's frozen config (runView.config).
func (s *Server) config() (*configs.Config, error) {
	if len(s.runs) == 0 {
		return nil, errNoRun
	}
	return s.runs[0].config()
}

func (s *Server) writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		s.log.Warn("dashboard: write", "err", err)
	}
}

// fail answers a failed request. The page gets the reason with the run
// directory written RUN (where the server keeps its files is not the
// browser's business), or for a server error only that it happened; the
// log gets the whole error.
func (s *Server) fail(w http.ResponseWriter, code int, err error) {
	msg := err.Error()
	if code >= http.StatusInternalServerError {
		s.log.Warn("dashboard: request failed", "status", code, "err", err)
		msg = "internal server error (the dashboard's log has the details)"
	} else {
		s.log.Debug("dashboard: request refused", "status", code, "err", err)
		msg = s.hideIn(msg)
	}
	http.Error(w, msg, code)
}

// Phase is the current phase as the page shows it.
type Phase struct {
	Name     string  `json:"name"`
	Unit     string  `json:"unit"`
	Done     int64   `json:"done"`
	Total    int64   `json:"total"`
	Rate     float64 `json:"rate"`
	Elapsed  float64 `json:"elapsed_s"`
	Left     float64 `json:"eta_s"` // -1: unknown
	Progress string  `json:"line"`  // the terminal's bar
}

// Status is the run at a glance.
type Status struct {
	Run  string `json:"run"`
	Game string `json:"game"`
	// Generation is the newest checkpoint's, the candidate the last
	// generation trained; Best is the best network's, which self-play
	// plays (the live game's network) and the gate's candidates meet.
	// They differ while candidates fail their gate.
	Generation int     `json:"generation"`
	Step       int64   `json:"step"`
	Best       int     `json:"best"`
	Window     int     `json:"window"`
	TrainClock float64 `json:"train_clock_s"`
	Phase      *Phase  `json:"phase"`
	// SelfPlay and Evals are the in-process self-play's rates over the
	// last generation's self-play phase (SelfPlaySamples in
	// SelfPlaySeconds), the same count and time as the trainer's log
	// line "self-play: N samples in Ts": not over the whole time between
	// generations, which holds training, the gate and evaluations too.
	SelfPlay        float64 `json:"selfplay_samples_s"`
	Evals           float64 `json:"evals_s"`
	SelfPlaySamples int64   `json:"selfplay_samples"`
	SelfPlaySeconds float64 `json:"selfplay_s"`
	// Training is the last training report's rate, as its log line.
	Training float64               `json:"train_samples_s"`
	Workers  []metrics.WorkerStat  `json:"workers"`
	Updated  time.Time             `json:"updated"`
	LastEval *metrics.Metric       `json:"last_evaluation,omitempty"`
	Live     bool                  `json:"live"`
	Gate     []metrics.MatchResult `json:"last_gate,omitempty"`
}

func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	v, err := s.view(r)
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	cfg, err := v.config()
	if err != nil {
		s.fail(w, http.StatusNotFound, fmt.Errorf("no run to show: %w", err))
		return
	}
	ms, err := v.metrics()
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	// Only the dashboard's own run is being played here.
	st := Status{Run: v.name, Game: cfg.Game, Live: s.live != nil && v == s.runs[0]}
	// The last generation line, and the line of self-play totals before
	// it (a generation's, or a stop's: the games a stopped invocation
	// ended after its last generation are not the next one's).
	var prev, last, totals *metrics.Metric
	for i := range ms {
		m := &ms[i]
		st.Step, st.Updated = max(st.Step, m.Step), m.Time
		st.TrainClock = max(st.TrainClock, m.TrainClock)
		switch m.Kind {
		case "stop":
			if m.SelfPlaySamples > 0 {
				totals = m
			}
		case "generation":
			prev, last, totals = totals, m, m
			st.Generation, st.Best, st.Window, st.Workers, st.Gate = m.Generation, m.Best, m.Window, m.Workers, m.Matches
		case "train":
			st.Training = m.SamplesPerSec
		case "evaluation":
			st.LastEval = m
			if st.Generation == 0 {
				st.Best = m.Best
			}
		}
	}
	st.SelfPlaySamples, st.SelfPlaySeconds, st.SelfPlay, st.Evals = selfPlayRate(prev, last)
	if p := s.progress.Phase(); p.Name != "" {
		now := time.Now()
		ph := &Phase{Name: p.Name, Unit: p.Unit, Done: p.Done, Total: p.Total, Rate: p.Rate(now),
			Elapsed: now.Sub(p.Start).Seconds(), Left: -1, Progress: p.Line(now, 100)}
		if left, ok := p.Left(now); ok {
			ph.Left = left.Seconds()
		}
		st.Phase = ph
	}
	s.writeJSON(w, st)
}

// selfPlayRate is the in-process self-play of the generation of line
// last: its samples, the seconds of its self-play phase, and the samples
// and network evaluations a second over them. The lines count the run's
// self-play (a build before start lines: from its process's start), played
// only during that phase, so the generation's samples are its totals less
// those of the line before (prev), or the totals themselves where they
// start again (the first generation, a run of such a build resumed).
func selfPlayRate(prev, last *metrics.Metric) (samples int64, seconds, perSec, evalsPerSec float64) {
	if last == nil || last.SelfPlaySamples == 0 || last.GatherSeconds <= 0 {
		return 0, 0, 0, 0
	}
	samples, evals := last.SelfPlaySamples, last.SelfPlayEvals
	if prev != nil && prev.SelfPlaySamples <= last.SelfPlaySamples && prev.SelfPlayEvals <= last.SelfPlayEvals {
		samples -= prev.SelfPlaySamples
		evals -= prev.SelfPlayEvals
	}
	return samples, last.GatherSeconds, float64(samples) / last.GatherSeconds, float64(evals) / last.GatherSeconds
}

func (s *Server) chartList(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, charts.Names)
}

// chart serves /api/chart/NAME.svg; 204 when the run has no data for it.
func (s *Server) chart(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutSuffix(r.PathValue("name"), ".svg")
	if !ok {
		s.fail(w, http.StatusNotFound, fmt.Errorf("charts are NAME.svg"))
		return
	}
	if !slices.Contains(charts.Names, name) {
		s.fail(w, http.StatusNotFound, fmt.Errorf("no chart %q (charts: %s)", name, strings.Join(charts.Names, ", ")))
		return
	}
	v, err := s.view(r)
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	key := name
	if v != s.runs[0] {
		key += "\x00" + string(v.dir)
	}
	// Waiting for the renders before this one may take longer than the
	// server's write timeout.
	extendDeadlines(w, chartWait)
	ctx, cancel := context.WithTimeout(r.Context(), chartWait)
	defer cancel()
	svg, drawn, err := s.charts.get(ctx, key, func() (string, error) { return chartVersion(v.dir) }, func(w io.Writer) (bool, error) {
		return s.render(string(v.dir), name, "svg", w)
	})
	switch {
	case ctx.Err() != nil && r.Context().Err() == nil:
		w.Header().Set("Retry-After", "10")
		s.fail(w, http.StatusServiceUnavailable, fmt.Errorf("the charts are being drawn: ask again"))
	case err != nil:
		s.fail(w, http.StatusNotFound, err)
	case !drawn:
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(svg)
	}
}

// chartWait bounds how long a chart request waits for its rendering.
const chartWait = 2 * time.Minute

// MatchRow is one gate or evaluation match.
type MatchRow struct {
	Kind       string  `json:"kind"` // gate or evaluation
	Generation int     `json:"generation"`
	Minutes    float64 `json:"minutes"` // training time
	metrics.MatchResult
	// EloText is the Elo with what the games tell of it
	// (arena.Score.EloText without its "Elo "): a one-sided bound after a
	// sweep, where elo_ci95 holds a clamped stand-in.
	EloText string `json:"elo_text"`
}

func (s *Server) matches(w http.ResponseWriter, r *http.Request) {
	v, err := s.view(r)
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	ms, err := v.metrics()
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	rows := []MatchRow{}
	for _, m := range ms {
		kind := map[string]string{"generation": "gate", "evaluation": "evaluation"}[m.Kind]
		if kind == "" {
			continue
		}
		gen := m.Generation
		if kind == "evaluation" {
			gen = m.Best
		}
		for _, r := range m.Matches {
			sc := arena.Score{Wins: r.Wins, Draws: r.Draws, Losses: r.Losses}
			rows = append(rows, MatchRow{Kind: kind, Generation: gen, Minutes: m.TrainClock / 60, MatchResult: r,
				EloText: strings.TrimPrefix(sc.EloText(), "Elo ")})
		}
	}
	s.writeJSON(w, rows)
}

// GameRef names a recorded game: a file of RUN/arena or the sampled
// self-play games, and the game's line in it.
type GameRef struct {
	Source string `json:"source"` // arena/FILE.jsonl or selfplay
	Index  int    `json:"index"`
	Label  string `json:"label"`
	Result string `json:"result"`
	Plies  int    `json:"plies"`
}

func (s *Server) games(w http.ResponseWriter, r *http.Request) {
	v, err := s.view(r)
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	refs := []GameRef{}
	self, err := v.gamesCache.list(v.dir.Games())
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	for i := len(self) - 1; i >= 0; i-- { // newest first
		g := self[i]
		refs = append(refs, GameRef{Source: "selfplay", Index: i, Label: fmt.Sprintf("self-play game %d (begun by the best network of generation %d)", g.id, g.generation),
			Result: g.result, Plies: g.plies})
	}
	arenaRefs, err := v.arenaCache.refs(v.dir.Arena())
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	s.writeJSON(w, append(refs, arenaRefs...))
}

// Replay is a game ready to step through: the board after each ply (the
// first is the start), the moves, and where known the search before each.
type Replay struct {
	Title  string                 `json:"title"`
	Game   string                 `json:"game"`
	Boards []game.Board           `json:"boards"`
	Moves  []string               `json:"moves"`
	Search []*selfplay.MoveSearch `json:"search,omitempty"`
	Result string                 `json:"result"`
	Reason string                 `json:"reason,omitempty"`
	Over   bool                   `json:"over"`
	ID     string                 `json:"id"` // changes when the game does (the live view)
}

func (s *Server) game(w http.ResponseWriter, r *http.Request) {
	src, idx := r.URL.Query().Get("source"), r.URL.Query().Get("index")
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 {
		s.fail(w, http.StatusBadRequest, fmt.Errorf("index %q: want a game's line number from 0", idx))
		return
	}
	v, err := s.view(r)
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	rep, err := v.replayOf(src, i)
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	s.writeJSON(w, rep)
}

func (v *runView) replayOf(src string, i int) (Replay, error) {
	cfg, err := v.config()
	if err != nil {
		return Replay{}, err
	}
	if src == "selfplay" {
		g, err := v.gamesCache.game(v.dir.Games(), i)
		if err != nil {
			return Replay{}, err
		}
		return liveReplay(g, game.Options(cfg.Rules))
	}
	name, ok := strings.CutPrefix(src, "arena/")
	if !ok || name != filepath.Base(name) || !strings.HasSuffix(name, ".jsonl") {
		return Replay{}, fmt.Errorf("source %q: want selfplay or arena/FILE.jsonl", src)
	}
	path := filepath.Join(v.dir.Arena(), name)
	if _, err := checkRegular(path, "records file", maxArenaBytes); err != nil {
		return Replay{}, err
	}
	recs, err := arena.ReadRecordFile(path)
	if err != nil {
		return Replay{}, err
	}
	if i >= len(recs) {
		return Replay{}, fmt.Errorf("%s has %d games, no game %d", src, len(recs), i)
	}
	rec := recs[i]
	rep, err := replay(rec.Variant, rec.Start, rec.Moves, game.Options(cfg.Rules))
	rep.Title = fmt.Sprintf("%s, game %d: %s (first) vs %s", rec.Match, rec.Index, rec.First, rec.Second)
	rep.Result, rep.Reason, rep.Over, rep.ID = rec.Result, rec.Reason, true, src+"#"+strconv.Itoa(i)
	return rep, err
}

// liveReplay replays a self-play game with its searches.
func liveReplay(g selfplay.LiveGame, rules game.Options) (Replay, error) {
	rep, err := replay(g.Game, "", g.Moves, rules)
	// The network is the best network's generation, as the status's
	// "best network" (not its newest checkpoint).
	rep.Title = fmt.Sprintf("self-play game %d, played by the best network of generation %d", g.ID, cmp.Or(g.Network, g.Generation))
	if g.Network != 0 && g.Network != g.Generation {
		rep.Title += fmt.Sprintf(" (begun by generation %d)", g.Generation)
	}
	rep.Search, rep.Result, rep.Reason, rep.Over = g.Search, g.Result, g.Reason, g.Over
	rep.ID = fmt.Sprintf("selfplay-%d-%d", g.ID, len(g.Moves))
	return rep, err
}

// replay plays moves from start (the game's start when empty) and
// records the board after each.
func replay(gameName, start string, moves []string, rules game.Options) (Replay, error) {
	g, err := game.Lookup(gameName)
	if err != nil {
		return Replay{}, err
	}
	resolved, err := g.Resolve(rules)
	if err != nil {
		return Replay{}, err
	}
	p, err := g.Start(start, resolved)
	if err != nil {
		return Replay{}, err
	}
	rep := Replay{Game: g.Name, Moves: moves}
	board := func() error {
		b, ok := p.(game.Boarder)
		if !ok {
			return fmt.Errorf("%s positions cannot be drawn", g.Name)
		}
		rep.Boards = append(rep.Boards, b.Board())
		return nil
	}
	if err := board(); err != nil {
		return rep, err
	}
	for i, mv := range moves {
		if err := game.Play(p, mv); err != nil {
			return rep, fmt.Errorf("move %d: %w", i+1, err)
		}
		if err := board(); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// The live streams open at once, in all and per client: each holds a
// connection for as long as its page is open.
const (
	maxStreams       = 64
	maxClientStreams = 4
	// streamWrite is how long one event may take to be sent: a client
	// that stops reading is dropped.
	streamWrite = 20 * time.Second
	// streamPing keeps a quiet stream's connection known to be alive.
	streamPing = 15 * time.Second
)

// liveEvents streams the game being played as server-sent events: an
// event whenever it changes (a move, a new game), checked twice a second.
func (s *Server) liveEvents(w http.ResponseWriter, r *http.Request) {
	if s.live == nil {
		s.fail(w, http.StatusNotFound, errors.New("no live game: this dashboard views a run on disk"))
		return
	}
	cfg, err := s.config()
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	client := clientOf(r)
	if err := s.streams.acquire(client); err != nil {
		w.Header().Set("Retry-After", "30")
		s.fail(w, http.StatusTooManyRequests, fmt.Errorf("live stream refused: %w", err))
		return
	}
	defer s.streams.release(client)
	rc := http.NewResponseController(w)
	// The stream outlives the server's read and write timeouts: no read
	// deadline (a closed connection still ends the request), and a write
	// deadline per event.
	if err := rc.SetReadDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return
	}
	send := func(format string, args ...any) bool {
		if err := rc.SetWriteDeadline(time.Now().Add(streamWrite)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	if !send(": live\n\n") { // the headers, before there is a game
		return
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	last, sent := "", time.Now()
	for {
		if g, ok := s.live.Get(); ok {
			rep, err := liveReplay(g, game.Options(cfg.Rules))
			if err == nil && rep.ID != last {
				b, _ := json.Marshal(rep)
				if !send("event: game\ndata: %s\n\n", b) {
					return
				}
				last, sent = rep.ID, time.Now()
			}
		}
		if time.Since(sent) > streamPing {
			if !send(": ping\n\n") {
				return
			}
			sent = time.Now()
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}
