package dashboard

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/configs/configstest"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/infer"
	"github.com/tabula-zero/tabula/selfplay"
	"github.com/tabula-zero/tabula/trainer"
	"github.com/tabula-zero/tabula/trainer/matches"
)

// trainTiny trains a tiny Connect Four run for two generations with a
// gate against alpha-beta and evaluations at the start and the end.
func trainTiny(t *testing.T) string {
	t.Helper()
	return trainTinyIn(t, t.TempDir(), 0, 2)
}

// trainTinyIn trains trainTiny's run in directory run for generations,
// its config's seed seed (0: the preset's).
func trainTinyIn(t *testing.T, run string, seed uint64, generations int) string {
	t.Helper()
	cfg := configstest.TinyConnectFour(t)
	if seed != 0 {
		cfg.Seed = seed
	}
	cfg.Gating.Matches = []configs.GateMatch{{Opponent: "best", Games: 4, Simulations: 4, Threshold: 0.01}, {Opponent: "ab:depth=1", Games: 2, Simulations: 4}}
	cfg.Evaluation = configs.Evaluation{Every: time.Hour, AtStart: true, Matches: []configs.GateMatch{{Opponent: "random", Games: 4, Simulations: 0}}}
	opts := trainer.Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: generations, Out: io.Discard,
		NewForwarder: func(p *net.Params, n int, _ string) (mcts.Forwarder, error) { return infer.New(p, n) }, Gate: matches.ArenaGate(run)}
	if err := trainer.Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	return run
}

func get(t *testing.T, srv *httptest.Server, path string, v any) *http.Response {
	t.Helper()
	r, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	if v != nil && r.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v in %q", path, err, b)
		}
	}
	r.Body = io.NopCloser(strings.NewReader(string(b)))
	return r
}

func TestAPI(t *testing.T) {
	run := trainTiny(t)
	srv := httptest.NewServer(New(run, nil, nil, nil).Handler())
	defer srv.Close()

	var st Status
	get(t, srv, "/api/status", &st)
	if st.Game != "connect4" || st.Generation != 2 || st.Step != 20 || st.Phase != nil || st.Live || st.SelfPlay <= 0 || st.Evals <= 0 {
		t.Errorf("status %+v", st)
	}

	// Every match of the metrics is a row: two gate matches per
	// generation, one evaluation match at the start and one at the end.
	var rows []MatchRow
	get(t, srv, "/api/matches", &rows)
	kinds := map[string]int{}
	for _, r := range rows {
		kinds[r.Kind]++
		// The Elo as the games bound it, from the row's own games.
		sc := arena.Score{Wins: r.Wins, Draws: r.Draws, Losses: r.Losses}
		if want := strings.TrimPrefix(sc.EloText(), "Elo "); r.EloText != want || strings.Contains(r.EloText, "1000") {
			t.Errorf("%s row %d-%d-%d: Elo %q, want %q", r.Kind, r.Wins, r.Draws, r.Losses, r.EloText, want)
		}
	}
	if kinds["gate"] != 4 || kinds["evaluation"] != 2 {
		t.Errorf("match rows by kind %v", kinds)
	}

	var names []string
	get(t, srv, "/api/charts", &names)
	for _, n := range []string{"loss", "strength", "gate", "window"} {
		r := get(t, srv, "/api/chart/"+n+".svg", nil)
		b, _ := io.ReadAll(r.Body)
		if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(string(b), "<svg") {
			t.Errorf("chart %s: %d %s", n, r.StatusCode, r.Header.Get("Content-Type"))
		}
	}
	if r := get(t, srv, "/api/chart/workers.svg", nil); r.StatusCode != http.StatusNoContent {
		t.Errorf("a chart without data: %d", r.StatusCode)
	}
	for _, bad := range []string{"/api/chart/nope.svg", "/api/chart/loss.png"} {
		if r := get(t, srv, bad, nil); r.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d", bad, r.StatusCode)
		}
	}

	// Games: the sampled self-play games and the arena's, each replayed
	// to boards that match the position its moves reach.
	var refs []GameRef
	get(t, srv, "/api/games", &refs)
	sources := map[string]bool{}
	g, _ := game.Lookup("connect4")
	for _, ref := range refs {
		sources[strings.SplitN(ref.Source, "/", 2)[0]] = true
		var rep Replay
		if r := get(t, srv, "/api/game?source="+ref.Source+"&index="+itoa(ref.Index), &rep); r.StatusCode != http.StatusOK {
			t.Fatalf("%+v: %d", ref, r.StatusCode)
		}
		if len(rep.Boards) != len(rep.Moves)+1 || len(rep.Moves) != ref.Plies {
			t.Fatalf("%+v: %d boards for %d moves", ref, len(rep.Boards), len(rep.Moves))
		}
		p, _ := g.New(nil)
		if err := game.Play(p, rep.Moves...); err != nil {
			t.Fatal(err)
		}
		if want := p.(game.Boarder).Board(); !slices.Equal(rep.Boards[len(rep.Boards)-1].Cells, want.Cells) {
			t.Fatalf("%+v: the last board differs from the position", ref)
		}
		if ref.Source == "selfplay" && (len(rep.Search) != len(rep.Moves) || !slices.ContainsFunc(rep.Search, func(s *selfplay.MoveSearch) bool { return s != nil })) {
			t.Fatalf("self-play game without its searches: %+v", rep.Search)
		}
	}
	if !sources["selfplay"] || !sources["arena"] {
		t.Errorf("game sources %v", sources)
	}
	for _, bad := range []string{"source=arena/../config.yaml&index=0", "source=selfplay&index=999", "source=selfplay&index=-1", "source=nope&index=0"} {
		if r := get(t, srv, "/api/game?"+bad, nil); r.StatusCode == http.StatusOK {
			t.Errorf("%s accepted", bad)
		}
	}
	if r := get(t, srv, "/api/live", nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("a viewer of a run on disk serves a live game: %d", r.StatusCode)
	}
	r := get(t, srv, "/", nil)
	if b, _ := io.ReadAll(r.Body); !strings.Contains(string(b), "<title>tabula dashboard</title>") {
		t.Error("no page at /")
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// fakeLive is a live game that gains a move when asked.
type fakeLive struct {
	mu sync.Mutex
	g  selfplay.LiveGame
}

func (f *fakeLive) Get() (selfplay.LiveGame, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.g, true
}

func (f *fakeLive) add(m string) {
	f.mu.Lock()
	f.g.Moves = append(f.g.Moves, m)
	f.g.Search = append(f.g.Search, nil)
	f.mu.Unlock()
}

// The live stream sends the game, then again after each move.
func TestLiveEvents(t *testing.T) {
	run := trainTiny(t)
	live := &fakeLive{g: selfplay.LiveGame{Game: "connect4", ID: 7, Moves: []string{"4"}, Search: []*selfplay.MoveSearch{nil}}}
	srv := httptest.NewServer(New(run, nil, live, nil).Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/live")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	next := func() Replay {
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var rep Replay
				if err := json.Unmarshal([]byte(d), &rep); err != nil {
					t.Fatal(err)
				}
				return rep
			}
		}
		t.Fatal("the stream ended")
		return Replay{}
	}
	if rep := next(); len(rep.Moves) != 1 || len(rep.Boards) != 2 {
		t.Fatalf("first event %+v", rep)
	}
	live.add("4")
	if rep := next(); len(rep.Moves) != 2 || rep.Boards[2].Cells[4*7+3] != "O" {
		t.Fatalf("after a move: %+v", rep.Boards[len(rep.Boards)-1])
	}
}

// Error answers name the run's files relative to it (RUN/...) and keep
// server errors' details in the log: no absolute path of the server's
// reaches the browser.
func TestErrorsHidePaths(t *testing.T) {
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, "config.yaml"), configstest.TinyConnectFour(t).MarshalSealed(), 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory where the metrics file belongs: reading it fails.
	if err := os.Mkdir(filepath.Join(run, "metrics.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	srv := httptest.NewServer(New(run, nil, nil, slog.New(slog.NewTextHandler(&logged, nil))).Handler())
	defer srv.Close()
	body := func(path string, code int) string {
		t.Helper()
		r := get(t, srv, path, nil)
		b, _ := io.ReadAll(r.Body)
		if r.StatusCode != code {
			t.Errorf("%s: %d %s, want %d", path, r.StatusCode, b, code)
		}
		if strings.Contains(string(b), run) {
			t.Errorf("%s: the answer shows the run directory: %s", path, b)
		}
		return string(b)
	}
	if b := body("/api/game?source=arena/missing.jsonl&index=0", http.StatusNotFound); !strings.Contains(b, "RUN/arena/missing.jsonl") {
		t.Errorf("a missing game file: %q", b)
	}
	if b := body("/api/matches", http.StatusInternalServerError); !strings.Contains(b, "internal server error") {
		t.Errorf("an unreadable metrics file: %q", b)
	}
	if !strings.Contains(logged.String(), filepath.Join(run, "metrics.jsonl")) {
		t.Errorf("the log lacks the failure's detail:\n%s", logged.String())
	}
	os.Remove(filepath.Join(run, "config.yaml"))
	if b := body("/api/status", http.StatusNotFound); !strings.Contains(b, "RUN/config.yaml") {
		t.Errorf("a run without its config: %q", b)
	}
}
