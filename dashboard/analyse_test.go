package dashboard

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/models"
)

// analyse reads a game's analysis stream: its info events in order, or
// the status and JSON error of a refusal.
func analyse(t *testing.T, srv *httptest.Server, id, query string) (int, []AnalysisInfo, string) {
	t.Helper()
	r, err := http.Get(srv.URL + "/api/play/games/" + id + "/analyse" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		var e struct{ Error string }
		if err := json.NewDecoder(r.Body).Decode(&e); err != nil || e.Error == "" {
			t.Fatalf("analysis refused with %d and no JSON error", r.StatusCode)
		}
		return r.StatusCode, nil, e.Error
	}
	if ct := r.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("analysis served as %q", ct)
	}
	var infos []AnalysisInfo
	sc := bufio.NewScanner(r.Body)
	sc.Buffer(nil, 1<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if event != "info" {
				t.Fatalf("event %q: %s", event, line)
			}
			var in AnalysisInfo
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &in); err != nil {
				t.Fatalf("%v in %q", err, line)
			}
			infos = append(infos, in)
		}
	}
	return r.StatusCode, infos, ""
}

// TestPlayAnalyse: alpha-beta's analysis reports deeper and deeper
// depths, then the root moves' scores (legal moves), its line legal move
// by move from the position; the network's reports more and more simulations with a
// value in [-1, 1] and visit shares of legal moves (the last, done,
// may repeat the one before it). The game is left as
// it was, and a bad time or a finished game is refused.
func TestPlayAnalyse(t *testing.T) {
	s := New("", nil, nil, nil)
	s.SetPlay(PlayOptions{DefaultNetwork: func(g string) (string, bool) {
		m, ok := models.Lookup(g)
		return m.Game, ok
	}})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	code, st, msg := call(t, srv, "POST", "/api/play/new", `{"game":"xiangqi","opponent":"ab","depth":1,"eval":"classical"}`)
	if code != http.StatusOK {
		t.Fatalf("new game: %d %s", code, msg)
	}
	code, infos, msg := analyse(t, srv, st.ID, "?ms=600")
	if code != http.StatusOK || len(infos) < 2 {
		t.Fatalf("analysis: %d %q, %d reports", code, msg, len(infos))
	}
	last := infos[len(infos)-1]
	for i, in := range infos[:len(infos)-1] {
		if in.Done || in.Kind != "ab" || in.Depth != i+1 || len(in.PV) == 0 {
			t.Errorf("report %d: %+v", i, in)
		}
	}
	// The root moves' scores are of the deepest completed depth; the line
	// may come from a deeper partial one, so their first moves may differ.
	if !last.Done || len(last.Top) != 8 || last.Depth < 1 {
		t.Errorf("last report %+v", last)
	}
	for _, top := range last.Top {
		if !slices.Contains(st.Legal, top.Move) || top.Score == "" {
			t.Errorf("root move %+v is not a legal move with a score", top)
		}
	}
	xq, _ := game.Lookup("xiangqi")
	p, _ := xq.Start(st.Position, nil)
	if err := game.Play(p, last.PV...); err != nil {
		t.Errorf("the line %q: %v", last.PV, err)
	}
	_, after, _ := call(t, srv, "GET", "/api/play/games/"+st.ID, "")
	if after.Position != st.Position || len(after.Moves) != 0 {
		t.Errorf("the analysis changed the game: %+v", after)
	}
	for _, q := range []string{"?ms=5", "?ms=99999", "?ms=x"} {
		if code, _, msg := analyse(t, srv, st.ID, q); code != http.StatusBadRequest || !strings.Contains(msg, "ms ") {
			t.Errorf("%s: %d %q", q, code, msg)
		}
	}

	// The shipped Connect Four network's search, from a position pasted.
	code, st, msg = call(t, srv, "POST", "/api/play/new", `{"game":"connect4","opponent":"net","network":"connect4","sims":8,"position":"4453"}`)
	if code != http.StatusOK || !slices.Equal(st.Moves, []string{}) || st.Position != "4453" {
		t.Fatalf("connect4 from 4453: %d %q %+v", code, msg, st)
	}
	code, infos, msg = analyse(t, srv, st.ID, "?ms=1200")
	if code != http.StatusOK || len(infos) < 2 {
		t.Fatalf("network analysis: %d %q, %d reports", code, msg, len(infos))
	}
	for i, in := range infos {
		if in.Kind != "net" || in.Value == nil || *in.Value < -1 || *in.Value > 1 || len(in.Top) == 0 || (i > 0 && in.Simulations < infos[i-1].Simulations) ||
			(i > 0 && !in.Done && in.Simulations == infos[i-1].Simulations) {
			t.Fatalf("report %d of %d: %+v", i, len(infos), in)
		}
		share := 0.0
		for _, top := range in.Top {
			if !slices.Contains(st.Legal, top.Move) {
				t.Errorf("report %d: %s is not legal", i, top.Move)
			}
			share += top.Share
		}
		if share > 1.0001 {
			t.Errorf("report %d: shares sum to %v", i, share)
		}
	}
	if !infos[len(infos)-1].Done {
		t.Error("the last report is not marked done")
	}

	// A finished game has nothing to analyse.
	code, st, _ = call(t, srv, "POST", "/api/play/new", `{"game":"connect4","opponent":"ab","depth":1,"position":"121212"}`)
	if code != http.StatusOK {
		t.Fatal(code)
	}
	if _, st, _ = call(t, srv, "POST", "/api/play/games/"+st.ID+"/move", moveBody("1")); !st.Over {
		t.Fatalf("1 after 121212 did not end the game: %+v", st)
	}
	if code, _, msg := analyse(t, srv, st.ID, ""); code != http.StatusConflict || !strings.Contains(msg, "game is over") {
		t.Errorf("a finished game: %d %q", code, msg)
	}
}

// TestPlayFromPosition: a game starts where the request's position says,
// its legal moves the game's own there; a position that does not parse
// or is over is refused with the reason.
func TestPlayFromPosition(t *testing.T) {
	srv, _ := playServer(t)
	const fen = "4k4/9/9/9/4P4/9/9/9/9/3K5 w - - 0 1"
	code, st, msg := call(t, srv, "POST", "/api/play/new", `{"game":"xiangqi","opponent":"ab","depth":1,"position":"`+fen+`"}`)
	if code != http.StatusOK {
		t.Fatalf("from %s: %d %s", fen, code, msg)
	}
	xq, _ := game.Lookup("xiangqi")
	p, err := xq.Parse(fen, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range p.GenerateMoves(nil) {
		want = append(want, p.FormatMove(m))
	}
	if got := slices.Sorted(slices.Values(st.Legal)); !slices.Equal(got, slices.Sorted(slices.Values(want))) || st.Start != p.String() {
		t.Errorf("legal moves %q, want %q; start %q", got, want, st.Start)
	}
	// Black to move: the engine, playing Black, opens.
	code, st, msg = call(t, srv, "POST", "/api/play/new", `{"game":"xiangqi","opponent":"ab","depth":1,"position":"4k4/9/9/9/4P4/9/9/9/9/3K5 b"}`)
	if code != http.StatusOK || len(st.Moves) != 1 || st.ToMove != "human" {
		t.Errorf("Black to move: %d %q %+v", code, msg, st)
	}
	for _, c := range []struct{ body, want string }{
		{`{"game":"xiangqi","opponent":"ab","position":"rnbakabnr/9 w"}`, "position: xiangqi: bad FEN"},
		{`{"game":"connect4","opponent":"ab","position":"1212121"}`, "the game is over there (four in a row)"},
		{`{"game":"lion","opponent":"ab","position":"gle/1c1/1C1/EL w - 1"}`, "position: lion:"},
	} {
		if code, _, msg := call(t, srv, "POST", "/api/play/new", c.body); code != http.StatusBadRequest || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %q, want %q", c.body, code, msg, c.want)
		}
	}
}
