package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta/c4solver"
	"github.com/tabula-zero/tabula/arena/pons"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
	"github.com/tabula-zero/tabula/internal/liondata"
	"github.com/tabula-zero/tabula/internal/ponsdata"
)

// truthOf reads a game's exact values stream: its truth events in order,
// or the status and JSON error of a refusal.
func truthOf(t *testing.T, srv *httptest.Server, id, query string) (int, []TruthInfo, string) {
	t.Helper()
	r, err := http.Get(srv.URL + "/api/play/games/" + id + "/truth" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		var e struct{ Error string }
		if err := json.NewDecoder(r.Body).Decode(&e); err != nil || e.Error == "" {
			t.Fatalf("truth refused with %d and no JSON error", r.StatusCode)
		}
		return r.StatusCode, nil, e.Error
	}
	if ct := r.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("truth served as %q", ct)
	}
	var infos []TruthInfo
	sc := bufio.NewScanner(r.Body)
	sc.Buffer(nil, 1<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if event != "truth" {
				t.Fatalf("event %q: %s", event, line)
			}
			var in TruthInfo
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &in); err != nil {
				t.Fatalf("%v in %q", err, line)
			}
			infos = append(infos, in)
		}
	}
	return r.StatusCode, infos, ""
}

// newFrom starts a game from position with the person to move.
func newFrom(t *testing.T, srv *httptest.Server, gameName, position string, side game.Color) PlayState {
	t.Helper()
	sides := map[game.Color]string{game.First: "first", game.Second: "second"}
	body, _ := json.Marshal(map[string]any{"game": gameName, "opponent": "ab", "depth": 1, "side": sides[side], "position": position})
	code, st, msg := call(t, srv, "POST", "/api/play/new", string(body))
	if code != http.StatusOK || st.ToMove != "human" {
		t.Fatalf("new game from %q: %d %q %+v", position, code, msg, st)
	}
	return st
}

// playOut plays both sides' optimal moves (the solver's: the quickest
// win, the slowest loss) from p and counts the plies to the end.
func playOut(t *testing.T, sv *c4solver.Solver, p *connect4.Position) (plies int, over game.Status) {
	for !p.Status().Over() {
		col, _ := sv.BestMove(p)
		m, err := p.ParseMove(strconv.Itoa(col + 1))
		if err != nil {
			t.Fatal(err)
		}
		p.Make(m)
		plies++
	}
	return plies, p.Status()
}

// TestPlayTruthConnectFour holds the exact values served to the solver
// called independently on positions of Pons' sets: every legal move
// solved, each move's score the solver's Analyze of its column, the
// best moves' score the position's known score, the moves' words
// matching the plies that optimal play takes to end the game, and the
// position's value the best move's. A solve given too little time says
// so and leaves moves unsolved; a finished game and Xiangqi are refused.
func TestPlayTruthConnectFour(t *testing.T) {
	srv, _ := playServer(t)
	sv, err := c4solver.New(c4solver.Fastest, 32)
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []struct {
		name string
		n    int
	}{{"Test_L3_R1", 6}, {"Test_L2_R1", 2}} {
		f, err := ponsdata.Open(set.name)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pons.Read(f, set.n)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			p, err := connect4.Parse(l.Moves)
			if err != nil {
				t.Fatal(err)
			}
			st := newFrom(t, srv, "connect4", l.Moves, p.SideToMove())
			code, infos, msg := truthOf(t, srv, st.ID, "?ms=30000")
			if code != http.StatusOK || len(infos) == 0 {
				t.Fatalf("%s: truth %d %q", l.Moves, code, msg)
			}
			last := infos[len(infos)-1]
			if !last.Done || last.Source != TruthSolver || last.Solved != len(st.Legal) || len(last.Moves) != len(st.Legal) || last.Stopped != "" {
				t.Fatalf("%s: last report %+v for legal %v", l.Moves, last, st.Legal)
			}
			for i, in := range infos[:len(infos)-1] {
				if in.Done || in.Solved != i {
					t.Errorf("%s: report %d says %d solved (done %v)", l.Moves, i, in.Solved, in.Done)
				}
			}
			sv.Reset()
			scores := sv.Analyze(p)
			var moves []string
			for _, m := range last.Moves {
				moves = append(moves, m.Move)
				col, _ := strconv.Atoi(m.Move)
				if !m.Solved || m.Score == nil || *m.Score != scores[col-1] {
					t.Errorf("%s: move %s %+v, the solver's score %d", l.Moves, m.Move, m, scores[col-1])
					continue
				}
				if m.Best != (*m.Score == l.Score) {
					t.Errorf("%s: move %s (score %d) best=%v, the position's score %d", l.Moves, m.Move, *m.Score, m.Best, l.Score)
				}
				// The words: optimal play after the move ends the game in
				// the plies said, with the winner said.
				c := p.Clone().(*connect4.Position)
				mv, _ := c.ParseMove(m.Move)
				c.Make(mv)
				plies, end := playOut(t, sv, c)
				// The last stone wins: the mover's when the plies from p,
				// the move included, are odd.
				want := "draws"
				switch {
				case end.Result == game.Draw:
				case end.Result == game.Loss && plies%2 == 0:
					want = "wins in " + strconv.Itoa(plies+1)
				default:
					want = "loses in " + strconv.Itoa(plies+1)
				}
				if m.Words != want {
					t.Errorf("%s: move %s says %q; optimal play after it: %q (%d plies, %v)", l.Moves, m.Move, m.Words, want, plies, end)
				}
			}
			if slices.Sort(moves); !slices.Equal(moves, slices.Sorted(slices.Values(st.Legal))) {
				t.Errorf("%s: valued %v, legal %v", l.Moves, moves, st.Legal)
			}
			if !last.Moves[0].Best || last.Value != last.Moves[0].Words {
				t.Errorf("%s: the position's value %q, the first move %+v", l.Moves, last.Value, last.Moves[0])
			}
		}
	}

	// The empty board takes the solver minutes: 100 ms solves few of its
	// moves, and says why it stopped.
	st := newFrom(t, srv, "connect4", "", game.First)
	code, infos, msg := truthOf(t, srv, st.ID, "?ms=100")
	if code != http.StatusOK || len(infos) == 0 {
		t.Fatalf("the empty board: %d %q", code, msg)
	}
	last := infos[len(infos)-1]
	if !last.Done || last.Solved >= 7 || last.Stopped != errTruthTime.Error() || last.Value != "" {
		t.Errorf("the empty board in 100 ms: %+v", last)
	}
	for _, m := range last.Moves {
		if m.Best || m.Solved != (m.Words != "") {
			t.Errorf("the empty board: move %+v", m)
		}
	}
	if code, _, msg := truthOf(t, srv, st.ID, "?ms=50"); code != http.StatusBadRequest || !strings.Contains(msg, "ms") {
		t.Errorf("ms=50: %d %q", code, msg)
	}
	over := newFrom(t, srv, "connect4", "121212", game.First)
	call(t, srv, "POST", "/api/play/games/"+over.ID+"/move", moveBody("1"))
	if code, _, msg := truthOf(t, srv, over.ID, ""); code != http.StatusConflict || !strings.Contains(msg, "over") {
		t.Errorf("a finished game: %d %q", code, msg)
	}
	xq := newFrom(t, srv, "xiangqi", "", game.First)
	if code, _, msg := truthOf(t, srv, xq.ID, ""); code != http.StatusConflict || !strings.Contains(msg, "not solved") {
		t.Errorf("Xiangqi: %d %q", code, msg)
	}
}

// TestPlayTruthLion holds Catch the Lion's exact values to the tablebase
// probed independently: each move's value is the child position's,
// negated and a ply longer, the best those of BestMoves. A sub-game's
// table (one chick) is built here; with the full table at
// $TABULA_LION_TB the Lion oracle's positions are checked too (their
// values and optimal moves as the set carries them). Without a table the
// page offers no view and says how to get one.
func TestPlayTruthLion(t *testing.T) {
	srv, _ := playServer(t)
	code, _, msg := call(t, srv, "GET", "/api/play/options", "")
	if code != http.StatusOK {
		t.Fatalf("options: %d %q", code, msg)
	}
	offers := playChoices(t, srv)
	if g := offers["lion"]; g.Truth || !strings.Contains(g.TruthHint, "liontb") || !strings.Contains(g.TruthHint, "-lion-tablebase") {
		t.Errorf("lion without a table: %+v", g)
	}
	if !offers["connect4"].Truth || offers["xiangqi"].Truth {
		t.Errorf("offers: %+v", offers)
	}
	st := newFrom(t, srv, "lion", "", game.First)
	if code, _, msg := truthOf(t, srv, st.ID, ""); code != http.StatusConflict || !strings.Contains(msg, "liontb") {
		t.Errorf("lion without a table: %d %q", code, msg)
	}

	tb, err := tablebase.Build(context.Background(), tablebase.Material{Chicks: 1}, tablebase.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, srv *httptest.Server, tb *tablebase.Table, text string) TruthInfo {
		t.Helper()
		p, err := lion.Parse(text, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := newFrom(t, srv, "lion", text, p.SideToMove())
		code, infos, msg := truthOf(t, srv, st.ID, "")
		if code != http.StatusOK || len(infos) != 1 {
			t.Fatalf("%s: truth %d %q %d reports", text, code, msg, len(infos))
		}
		in := infos[0]
		if !in.Done || in.Source != TruthTablebase || in.Solved != len(st.Legal) || len(in.Moves) != len(st.Legal) {
			t.Fatalf("%s: %+v for legal %v", text, in, st.Legal)
		}
		best, root, err := tb.BestMoves(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		var bestText []string
		for _, m := range best {
			bestText = append(bestText, p.FormatMove(m))
		}
		for _, m := range in.Moves {
			mv, err := p.ParseMove(m.Move)
			if err != nil {
				t.Fatalf("%s: move %q: %v", text, m.Move, err)
			}
			p.Make(mv)
			child, err := tb.Probe(p)
			p.Unmake()
			if err != nil {
				t.Fatal(err)
			}
			want := "draws"
			switch child.Outcome {
			case game.Loss:
				want = fmt.Sprintf("wins in %d", child.Plies+1)
			case game.Win:
				want = fmt.Sprintf("loses in %d", child.Plies+1)
			}
			if m.Words != want || m.Best != slices.Contains(bestText, m.Move) {
				t.Errorf("%s: move %s %+v; the child %v, best moves %v", text, m.Move, m, child, bestText)
			}
		}
		if in.Value != lionWords(root) {
			t.Errorf("%s: value %q, the table's %v", text, in.Value, root)
		}
		return in
	}
	s := New("", nil, nil, nil)
	s.SetPlay(PlayOptions{LionTablebase: tb})
	sub := httptest.NewServer(s.Handler())
	defer sub.Close()
	if !playChoices(t, sub)["lion"].Truth {
		t.Error("lion with a table: not offered")
	}
	for _, text := range []string{"l2/3/1C1/2L w - 1", "1l1/3/3/1L1 w C 1", "2l/1c1/3/L2 b - 2"} {
		check(t, sub, tb, text)
	}

	path := os.Getenv(tablebase.EnvFile)
	if path == "" {
		t.Skipf("the full table's checks need $%s: %s", tablebase.EnvFile, tablebase.BuildHint)
	}
	full, err := OpenLionTablebase(path)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	if _, err := OpenLionTablebase("/dev/null"); err == nil {
		t.Error("OpenLionTablebase took /dev/null")
	}
	s = New("", nil, nil, nil)
	s.SetPlay(PlayOptions{LionTablebase: full})
	fsrv := httptest.NewServer(s.Handler())
	defer fsrv.Close()
	// The game itself: the second player wins in 78 plies (Tanaka's
	// solution, 2009).
	if in := check(t, fsrv, full, "gle/1c1/1C1/ELG w - 1"); in.Value != "loses in 78" {
		t.Errorf("the start: %q, want loses in 78", in.Value)
	}
	lines, err := liondata.Open(40)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		in := check(t, fsrv, full, l.Text)
		var best []string
		for _, m := range in.Moves {
			if m.Best {
				best = append(best, m.Move)
			}
		}
		if slices.Sort(best); !slices.Equal(best, slices.Sorted(slices.Values(l.Optimal))) || in.Value != lionWords(l.Value) {
			t.Errorf("%s: best %v value %q; the oracle's set: %v %v", l.Text, best, in.Value, l.Optimal, l.Value)
		}
	}
}

// lionWords says a tablebase result as the page does.
func lionWords(r tablebase.Result) string {
	switch r.Outcome {
	case game.Win:
		return fmt.Sprintf("wins in %d", r.Plies)
	case game.Loss:
		return fmt.Sprintf("loses in %d", r.Plies)
	}
	return "draws"
}

// playChoices reads the options' games by name.
func playChoices(t *testing.T, srv *httptest.Server) map[string]PlayGameChoice {
	t.Helper()
	r, err := http.Get(srv.URL + "/api/play/options")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var c PlayChoices
	if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	out := map[string]PlayGameChoice{}
	for _, g := range c.Games {
		out[g.Name] = g
	}
	return out
}
