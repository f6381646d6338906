package dashboard

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/testnet"
	"github.com/tabula-zero/tabula/models"
)

// playServer serves the Play page without a run, saving games under a
// temporary directory.
func playServer(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	records := t.TempDir()
	s := New("", nil, nil, nil)
	s.SetPlay(PlayOptions{Records: records})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv, records
}

// call sends a request and returns the status, the game (on success) and
// the error's reason (on failure, which must be JSON).
func call(t *testing.T, srv *httptest.Server, method, path, body string) (int, PlayState, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, srv.URL+path, rd)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	var st PlayState
	if r.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatalf("%s %s: %v in %q", method, path, err, b)
		}
		return r.StatusCode, st, ""
	}
	var e struct{ Error string }
	if err := json.Unmarshal(b, &e); err != nil || e.Error == "" {
		t.Fatalf("%s %s: status %d with %q: not a JSON error", method, path, r.StatusCode, b)
	}
	return r.StatusCode, st, e.Error
}

func moveBody(m string) string {
	b, _ := json.Marshal(MoveRequest{Move: m})
	return string(b)
}

// TestPlayConnectFour plays a whole game against alpha-beta through the
// API: an illegal move refused with its reason, a move taken back, the
// game to its end, moves after it refused, and the record read back as
// the arena reads it.
func TestPlayConnectFour(t *testing.T) {
	srv, records := playServer(t)
	code, st, msg := call(t, srv, "POST", "/api/play/new", `{"game":"connect4","opponent":"ab","depth":2,"side":"first"}`)
	if code != http.StatusOK {
		t.Fatalf("new game: %d %s", code, msg)
	}
	if st.ToMove != "human" || len(st.Legal) != 7 || st.Engine != "ab:depth=2" || st.Board.Files != 7 {
		t.Fatalf("new game %+v", st)
	}
	id := st.ID
	if code, _, msg := call(t, srv, "POST", "/api/play/games/"+id+"/undo", ""); code != http.StatusConflict || !strings.Contains(msg, "not moved yet") {
		t.Errorf("undo at the start: %d %q", code, msg)
	}
	if code, _, msg := call(t, srv, "POST", "/api/play/games/"+id+"/move", moveBody("8")); code != http.StatusUnprocessableEntity || !strings.Contains(msg, "not a column digit 1-7") {
		t.Errorf("move 8: %d %q", code, msg)
	}

	// One move and the engine's reply, taken back together.
	code, st, msg = call(t, srv, "POST", "/api/play/games/"+id+"/move", moveBody("4"))
	if code != http.StatusOK || len(st.Moves) != 2 || st.Moves[0] != "4" || st.Replies[0] != nil || st.Replies[1] == nil {
		t.Fatalf("after 4: %d %q %+v", code, msg, st)
	}
	r := st.Replies[1]
	if r.Kind != "ab" || r.Move != st.Moves[1] || len(r.Top) != 7 || r.Top[0].Move != r.Move || r.Score == "" || r.Depth != 2 {
		t.Errorf("the engine's reply %+v", r)
	}
	code, st, _ = call(t, srv, "POST", "/api/play/games/"+id+"/undo", "")
	// The page reads empty lists as lists, not null.
	if code != http.StatusOK || st.Moves == nil || st.Replies == nil || len(st.Moves) != 0 || st.Position != "" || st.ToMove != "human" {
		t.Fatalf("after undo: %d %+v", code, st)
	}

	// To the end: the first legal column each time.
	for !st.Over {
		if st.ToMove != "human" {
			t.Fatalf("the engine did not reply: %+v", st)
		}
		code, st, msg = call(t, srv, "POST", "/api/play/games/"+id+"/move", moveBody(st.Legal[0]))
		if code != http.StatusOK {
			t.Fatalf("move: %d %s", code, msg)
		}
	}
	if st.Result == "" || st.Winner == "" || st.Reason == "" || len(st.Legal) != 0 || st.ToMove != "" {
		t.Errorf("finished game %+v", st)
	}
	if code, _, msg := call(t, srv, "POST", "/api/play/games/"+id+"/move", moveBody("1")); code != http.StatusConflict || !strings.Contains(msg, "game is over") {
		t.Errorf("a move after the end: %d %q", code, msg)
	}
	want := filepath.Join(records, "connect4", "arena", "play.jsonl")
	if st.Saved != want {
		t.Errorf("saved to %q, want %q (error %q)", st.Saved, want, st.SaveErr)
	}
	recs, err := arena.ReadRecords(filepath.Join(records, "connect4", "arena"))
	if err != nil || len(recs) != 1 {
		t.Fatalf("records: %v, %d", err, len(recs))
	}
	rec := recs[0]
	if rec.Variant != "connect4" || rec.First != "human" || rec.Second != "ab:depth=2" || !slices.Equal(rec.Moves, st.Moves) || rec.Result != st.Result {
		t.Errorf("record %+v, game %+v", rec, st)
	}
	// The ratings read it as a match between the two.
	rows, err := arena.Ratings(arena.Outcomes(recs), arena.RatingOptions{Anchor: "ab:depth=2"})
	if err != nil || len(rows) != 2 {
		t.Errorf("ratings %+v: %v", rows, err)
	}
}

// TestPlayOtherGames opens Xiangqi with the engine moving first and
// plays Catch the Lion's opening moves: each game's notation and board
// go through.
func TestPlayOtherGames(t *testing.T) {
	srv, _ := playServer(t)
	code, st, msg := call(t, srv, "POST", "/api/play/new", `{"game":"xiangqi","opponent":"ab","depth":1,"side":"second"}`)
	if code != http.StatusOK || len(st.Moves) != 1 || st.ToMove != "human" || st.Board.Ranks != 10 || st.Human != "second" {
		t.Fatalf("xiangqi, engine first: %d %q %+v", code, msg, st)
	}
	// Refusals say why in words (xiangqi.WhyIllegal), not the position.
	for move, why := range map[string]string{"a10a5": "the chariot is blocked at a7", "a1a2": "no piece of yours on a1 (Black is to move)"} {
		if code, _, msg := call(t, srv, "POST", "/api/play/games/"+st.ID+"/move", moveBody(move)); code != http.StatusUnprocessableEntity ||
			msg != `illegal move "`+move+`": `+why {
			t.Errorf("%s: %d %q, want the reason %q", move, code, msg, why)
		}
	}
	code, st, msg = call(t, srv, "POST", "/api/play/games/"+st.ID+"/move", moveBody("h8e8"))
	if code != http.StatusOK || len(st.Moves) != 3 || st.Moves[1] != "h8e8" {
		t.Errorf("h8e8: %d %q %+v", code, msg, st)
	}
	// Undo takes back the person's move and the reply, not the opening.
	code, st, _ = call(t, srv, "POST", "/api/play/games/"+st.ID+"/undo", "")
	if code != http.StatusOK || len(st.Moves) != 1 {
		t.Errorf("xiangqi undo: %+v", st)
	}

	code, st, msg = call(t, srv, "POST", "/api/play/new", `{"game":"lion","opponent":"ab","movetime_ms":50}`)
	if code != http.StatusOK || st.Engine != "ab:movetime=50" || st.Board.Style != "squares" {
		t.Fatalf("lion: %d %q %+v", code, msg, st)
	}
	if !slices.Contains(st.Legal, "b2b3") {
		t.Fatalf("lion's legal moves %q", st.Legal)
	}
	if code, st, msg = call(t, srv, "POST", "/api/play/games/"+st.ID+"/move", moveBody("b2b3")); code != http.StatusOK || len(st.Moves) != 2 {
		t.Errorf("b2b3: %d %q %+v", code, msg, st)
	}
}

// TestPlayEvals: alpha-beta on Xiangqi offers the learned evaluation
// first (the engine's default) and the classical one; the other games
// their own alone. The game's record names the evaluation played.
func TestPlayEvals(t *testing.T) {
	srv, _ := playServer(t)
	var ch PlayChoices
	get(t, srv, "/api/play/options", &ch)
	want := map[string][]string{"connect4": {"classical"}, "lion": {"classical"}, "xiangqi": {"learned", "classical"}}
	for _, g := range ch.Games {
		if !slices.Equal(g.Evals, want[g.Name]) {
			t.Errorf("%s offers %q, want %q", g.Name, g.Evals, want[g.Name])
		}
	}
	for _, c := range []struct{ body, engine string }{
		{`{"game":"xiangqi","opponent":"ab","depth":2,"side":"second"}`, "ab:depth=2,eval=learned"},
		{`{"game":"xiangqi","opponent":"ab","depth":2,"side":"second","eval":"learned"}`, "ab:depth=2,eval=learned"},
		{`{"game":"xiangqi","opponent":"ab","depth":2,"side":"second","eval":"classical"}`, "ab:depth=2"},
		{`{"game":"connect4","opponent":"ab","depth":2,"side":"second"}`, "ab:depth=2"},
	} {
		code, st, msg := call(t, srv, "POST", "/api/play/new", c.body)
		if code != http.StatusOK || st.Engine != c.engine || len(st.Moves) != 1 {
			t.Errorf("%s: %d %q, engine %q (want %q), moves %q", c.body, code, msg, st.Engine, c.engine, st.Moves)
		}
	}
}

// TestPlayABZero: the blend of a network and alpha-beta is offered where
// a game has both, and plays a legal reply with what both searches saw;
// the record names its spec, the evaluation included.
func TestPlayABZero(t *testing.T) {
	srv, _ := playServer(t)
	var ch PlayChoices
	get(t, srv, "/api/play/options", &ch)
	for _, g := range ch.Games {
		// No network offered: alpha-beta alone.
		if !slices.Equal(g.Opponents, []string{"ab"}) {
			t.Errorf("without networks %s offers %q", g.Name, g.Opponents)
		}
	}
	s := New("", nil, nil, nil)
	s.SetPlay(PlayOptions{DefaultNetwork: func(g string) (string, bool) {
		m, ok := models.Lookup(g)
		return m.Game, ok
	}})
	srv = httptest.NewServer(s.Handler())
	defer srv.Close()
	get(t, srv, "/api/play/options", &ch)
	if ch.DefaultM != 1 {
		t.Errorf("default m %v", ch.DefaultM)
	}
	for _, g := range ch.Games {
		if !slices.Equal(g.Opponents, []string{"ab", "net", "abzero"}) {
			t.Errorf("%s offers %q", g.Name, g.Opponents)
		}
	}
	for _, c := range []struct{ body, engine string }{
		{`{"game":"xiangqi","opponent":"abzero","network":"xiangqi","depth":2,"sims":8,"side":"second"}`, "abzero:depth=2,eval=learned,m=1,net=xiangqi,sims=8"},
		{`{"game":"xiangqi","opponent":"abzero","network":"xiangqi","depth":2,"sims":8,"m":0.5,"eval":"classical","side":"second"}`, "abzero:depth=2,m=0.5,net=xiangqi,sims=8"},
		{`{"game":"connect4","opponent":"abzero","network":"connect4","depth":3,"sims":16,"m":2,"side":"second"}`, "abzero:depth=3,m=2,net=connect4,sims=16"},
		{`{"game":"lion","opponent":"abzero","network":"lion","side":"second"}`, "abzero:depth=4,m=1,net=lion,sims=200"},
	} {
		code, st, msg := call(t, srv, "POST", "/api/play/new", c.body)
		if code != http.StatusOK || st.Engine != c.engine || len(st.Moves) != 1 || st.Replies[0] == nil {
			t.Errorf("%s: %d %q, engine %q (want %q), moves %q", c.body, code, msg, st.Engine, c.engine, st.Moves)
			continue
		}
		g, err := game.Lookup(st.Game)
		if err != nil {
			t.Fatal(err)
		}
		p, err := g.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		var legal []string
		for _, m := range p.GenerateMoves(nil) {
			legal = append(legal, p.FormatMove(m))
		}
		r := st.Replies[0]
		if !slices.Contains(legal, st.Moves[0]) || r.Move != st.Moves[0] || r.Kind != "abzero" {
			t.Errorf("%s: reply %q (kind %s) not a legal opening move of %q", c.body, st.Moves[0], r.Kind, legal)
		}
		var req NewPlayRequest
		json.Unmarshal([]byte(c.body), &req)
		sims := cmp.Or(req.Sims, defaultSims)
		if r.Simulations != sims || r.Depth < 1 || r.Nodes == 0 || r.Score == "" || r.Value == nil || len(r.Top) == 0 || r.Top[0].Move != r.Move {
			t.Errorf("%s: reply %+v", c.body, r)
		}
		// The person's move, and the blend's reply to it.
		code, st, msg = call(t, srv, "POST", "/api/play/games/"+st.ID+"/move", moveBody(st.Legal[0]))
		if code != http.StatusOK || len(st.Moves) != 3 || st.Replies[2] == nil || st.Replies[2].Kind != "abzero" {
			t.Errorf("%s: a second reply: %d %q %+v", c.body, code, msg, st)
		}
	}
}

// TestPlayBadRequests sends what a broken or hostile page might: every
// answer is a clear JSON error, never a panic.
func TestPlayBadRequests(t *testing.T) {
	srv, _ := playServer(t)
	_, st, _ := call(t, srv, "POST", "/api/play/new", `{"game":"connect4","opponent":"ab","depth":1}`)
	g := "/api/play/games/" + st.ID
	for _, c := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"POST", "/api/play/new", ``, 400, "bad request body"},
		{"POST", "/api/play/new", `{"game":`, 400, "bad request body"},
		{"POST", "/api/play/new", `{"game":"connect4","colour":"red"}`, 400, "unknown field"},
		{"POST", "/api/play/new", `{"game":"chess"}`, 400, "choose one of"},
		{"POST", "/api/play/new", `{"game":"connect4","side":"left"}`, 400, "want first or second"},
		{"POST", "/api/play/new", `{"game":"connect4","opponent":"gnu"}`, 400, "want ab, net or abzero"},
		{"POST", "/api/play/new", `{"game":"connect4","opponent":"abzero"}`, 400, "name a checkpoint"},
		{"POST", "/api/play/new", `{"game":"connect4","opponent":"abzero","network":"x","movetime_ms":100}`, 400, "not movetime_ms"},
		{"POST", "/api/play/new", `{"game":"connect4","opponent":"abzero","network":"x","depth":99}`, 400, "out of range"},
		{"POST", "/api/play/new", `{"game":"connect4","opponent":"abzero","network":"x","eval":"learned"}`, 400, "connect4 offers classical"},
		{"POST", "/api/play/new", `{"game":"connect4","opponent":"ab","depth":2,"m":1}`, 400, "m for the blend"},
		{"POST", "/api/play/new", `{"game":"connect4","opponent":"net","network":"x","eval":"classical"}`, 400, "eval and m for"},
		{"POST", "/api/play/new", `{"game":"connect4","depth":-3}`, 400, "out of range"},
		{"POST", "/api/play/new", `{"game":"connect4","depth":3,"movetime_ms":100}`, 400, "not both"},
		{"POST", "/api/play/new", `{"game":"connect4","movetime_ms":1000000}`, 400, "out of range"},
		{"POST", "/api/play/new", `{"game":"connect4","eval":"learned"}`, 400, "connect4 offers classical"},
		{"POST", "/api/play/new", `{"game":"xiangqi","eval":"nnue"}`, 400, "xiangqi offers learned, classical"},
		{"POST", "/api/play/new", `{"game":"connect4","opponent":"net"}`, 400, "name a checkpoint"},
		{"POST", "/api/play/new", `{"game":"connect4","opponent":"net","network":"/etc/passwd"}`, 400, "not offered"},
		{"POST", "/api/play/new", `{"game":"connect4","opponent":"net","network":"x","sims":-1}`, 400, "out of range"},
		{"GET", "/api/play/games/nosuch", ``, 404, "no game"},
		{"POST", "/api/play/games/nosuch/move", `{"move":"1"}`, 404, "no game"},
		{"POST", "/api/play/games/nosuch/undo", ``, 404, "no game"},
		{"POST", "/api/play/games/%2e%2e/reply", ``, 404, "no game"},
		{"POST", g + "/move", `{"move":""}`, 400, "give one move"},
		{"POST", g + "/move", `{"move":"12345678901234567890"}`, 400, "give one move"},
		{"POST", g + "/move", `{"move":1}`, 400, "bad request body"},
		{"POST", g + "/move", `{"move":"0"}`, 422, "illegal move"},
		{"POST", g + "/move", `{"move":"\u0000"}`, 422, "illegal move"},
		{"POST", g + "/undo", ``, 409, "not moved yet"},
	} {
		code, _, msg := call(t, srv, c.method, c.path, c.body)
		if code != c.code || !strings.Contains(msg, c.want) {
			t.Errorf("%s %s %s: %d %q, want %d %q", c.method, c.path, c.body, code, msg, c.code, c.want)
		}
	}
	// A huge body is refused, not read.
	big := `{"move":"` + string(bytes.Repeat([]byte("1"), 1<<20)) + `"}`
	if code, _, _ := call(t, srv, "POST", g+"/move", big); code != http.StatusBadRequest {
		t.Errorf("a 1 MB body: %d", code)
	}
	// The engine's turn is not the person's (a reply cut short): asking
	// for the reply gives it.
	code, st, _ := call(t, srv, "POST", g+"/reply", "")
	if code != http.StatusOK || st.ToMove != "human" {
		t.Errorf("reply on the person's turn: %d %+v", code, st)
	}

	// The page without a run: / goes to the Play page, which is served.
	r, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 200 || !strings.Contains(string(b), `id="p-board"`) {
		t.Errorf("/ without a run: %d %.200s", r.StatusCode, b)
	}
	var ch PlayChoices
	get(t, srv, "/api/play/options", &ch)
	if len(ch.Games) != 3 || !ch.Saving || ch.NamedNetworks || ch.Dashboard {
		t.Errorf("options %+v (a Play-only server has no dashboard to link)", ch)
	}
}

// TestPlayNetwork plays a run's network: offered for its game only, and
// its reply carries visit shares and a value.
func TestPlayNetwork(t *testing.T) {
	run := trainTiny(t)
	srv := httptest.NewServer(New(run, nil, nil, nil).Handler())
	defer srv.Close()
	var ch PlayChoices
	get(t, srv, "/api/play/options", &ch)
	if !ch.Dashboard {
		t.Error("a server with a run does not offer its dashboard")
	}
	for _, g := range ch.Games {
		if n := len(g.Networks); (g.Name == "connect4") != (n == 1) {
			t.Errorf("%s offers %d networks", g.Name, n)
		}
	}
	body, _ := json.Marshal(NewPlayRequest{Game: "xiangqi", Opponent: "net", Network: run})
	if code, _, msg := call(t, srv, "POST", "/api/play/new", string(body)); code != 400 || !strings.Contains(msg, "plays connect4, not xiangqi") {
		t.Errorf("a Connect Four network for Xiangqi: %d %q", code, msg)
	}
	body, _ = json.Marshal(NewPlayRequest{Game: "connect4", Opponent: "net", Network: run, Sims: 32, Side: "second"})
	code, st, msg := call(t, srv, "POST", "/api/play/new", string(body))
	if code != 200 || len(st.Moves) != 1 {
		t.Fatalf("the network opens: %d %q %+v", code, msg, st)
	}
	r := st.Replies[0]
	sum := 0.0
	for _, m := range r.Top {
		sum += m.Share
	}
	if r.Kind != "net" || r.Value == nil || *r.Value < -1 || *r.Value > 1 || r.Simulations != 32 || r.Top[0].Move != r.Move || sum < 0.99 || sum > 1.01 {
		t.Errorf("the network's reply %+v (shares sum to %v)", r, sum)
	}
}

// The shipped networks (package models, as `tabula dashboard` wires them)
// are offered first for every game and play.
func TestPlayShippedNetworks(t *testing.T) {
	s := New("", nil, nil, nil)
	s.SetPlay(PlayOptions{DefaultNetwork: func(g string) (string, bool) {
		m, ok := models.Lookup(g)
		return m.Game, ok
	}})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	var ch PlayChoices
	get(t, srv, "/api/play/options", &ch)
	if len(ch.Games) != 3 {
		t.Fatalf("%d games offered", len(ch.Games))
	}
	for _, g := range ch.Games {
		if len(g.Networks) != 1 || g.Networks[0].Path != g.Name || !strings.Contains(g.Networks[0].Label, "shipped") {
			t.Errorf("%s offers %+v, want its shipped network", g.Name, g.Networks)
			continue
		}
		body, _ := json.Marshal(NewPlayRequest{Game: g.Name, Opponent: "net", Network: g.Name, Sims: 16, Side: "second"})
		code, st, msg := call(t, srv, "POST", "/api/play/new", string(body))
		if code != 200 || len(st.Moves) != 1 || st.Replies[0].Kind != "net" {
			t.Errorf("%s: the shipped network opens: %d %q %+v", g.Name, code, msg, st)
		}
	}
}

// A network with the WDL head replies with its root's win, draw and loss
// beside the value (W - L), and its analysis reports them too; a scalar
// head's reply and analysis have none.
func TestPlayNetworkWDL(t *testing.T) {
	dir := t.TempDir()
	s := New("", nil, nil, nil)
	s.SetPlay(PlayOptions{NamedNetworks: true})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for _, c := range []struct {
		path string
		wdl  bool
	}{{testnet.CheckpointWDL(t, dir, "connect4", 1), true}, {testnet.Checkpoint(t, dir, "connect4", 1), false}} {
		body, _ := json.Marshal(NewPlayRequest{Game: "connect4", Opponent: "net", Network: c.path, Sims: 16, Side: "second"})
		code, st, msg := call(t, srv, "POST", "/api/play/new", string(body))
		if code != 200 || len(st.Replies) != 1 {
			t.Fatalf("%s: %d %q %+v", c.path, code, msg, st)
		}
		r := st.Replies[0]
		if (r.WDL != nil) != c.wdl || r.Value == nil {
			t.Fatalf("%s: reply %+v, want WDL %v", c.path, r, c.wdl)
		}
		if c.wdl {
			w := *r.WDL
			if math.Abs(w[0]+w[1]+w[2]-1) > 1e-5 || math.Abs(w[0]-w[2]-*r.Value) > 1e-5 || min(w[0], w[1], w[2]) < 0 {
				t.Errorf("WDL %v with value %v", w, *r.Value)
			}
		}
		code, infos, msg := analyse(t, srv, st.ID, "?ms=300")
		if code != 200 || len(infos) == 0 {
			t.Fatalf("%s: analysis %d %q", c.path, code, msg)
		}
		for _, in := range infos {
			if (in.WDL != nil) != c.wdl || in.Value == nil {
				t.Errorf("%s: analysis report %+v, want WDL %v", c.path, in, c.wdl)
			} else if c.wdl && math.Abs((*in.WDL)[0]-(*in.WDL)[2]-*in.Value) > 1e-5 {
				t.Errorf("analysis WDL %v with value %v", *in.WDL, *in.Value)
			}
		}
	}
}
