package player_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/dashboard"
	"github.com/tabula-zero/tabula/engine"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all" // registers every game
	"github.com/tabula-zero/tabula/uci"
)

// door is one spec as each door takes it: the arena's spec text, the
// engine's options and go limits, and the Play page's new-game request
// ("" for a spec the page does not offer).
type door struct {
	spec    string
	options [][2]string
	limits  uci.Limits
	play    string
}

// The same spec plays the same moves through the arena's player, the
// engine (its Go API, as `go` runs it) and the dashboard's Play page, at
// fixed depth and simulations, on positions of Xiangqi and Connect Four
// reached by a Play page game.
func TestSameMovesThroughEveryDoor(t *testing.T) {
	if testing.Short() {
		t.Skip("searches with the shipped networks")
	}
	for _, c := range []struct {
		game  string
		doors []door
		plies int // the positions besides the start
	}{
		{"connect4", []door{
			{"ab:depth=7", [][2]string{{"Mover", "ab"}}, uci.Limits{Depth: 7}, `{"opponent":"ab","depth":7}`},
			{"net:connect4,sims=64", [][2]string{{"Mover", "mcts"}, {"Network", "connect4"}}, uci.Limits{Nodes: 64}, `{"opponent":"net","network":"connect4","sims":64}`},
			{"abzero:net=connect4,m=2,depth=4,sims=16", [][2]string{{"Mover", "abzero"}, {"Network", "connect4"}, {"ABZeroWeight", "2"}, {"Simulations", "16"}}, uci.Limits{Depth: 4}, `{"opponent":"abzero","network":"connect4","m":2,"depth":4,"sims":16}`},
			// A strength limit: its node budget, and a random move half the
			// time, drawn the same through every door.
			{"ab:elo=-200", [][2]string{{"Mover", "ab"}, {"UCI_LimitStrength", "true"}, {"UCI_Elo", "-200"}}, uci.Limits{}, `{"opponent":"ab","elo":-200}`},
			{"ab:elo=300", [][2]string{{"Mover", "ab"}, {"UCI_LimitStrength", "true"}, {"UCI_Elo", "300"}}, uci.Limits{}, `{"opponent":"ab","elo":300}`},
		}, 3},
		{"xiangqi", []door{
			// The engine and the Play page default to the learned
			// evaluation on Xiangqi, a spec to the classical one.
			{"ab:depth=3,eval=learned", [][2]string{{"Mover", "ab"}}, uci.Limits{Depth: 3}, `{"opponent":"ab","depth":3}`},
			{"ab:depth=3", [][2]string{{"Mover", "ab"}, {"Eval", "classical"}}, uci.Limits{Depth: 3}, `{"opponent":"ab","depth":3,"eval":"classical"}`},
			{"net:xiangqi,sims=32", [][2]string{{"Mover", "mcts"}, {"Network", "xiangqi"}}, uci.Limits{Nodes: 32}, `{"opponent":"net","network":"xiangqi","sims":32}`},
			{"net:xiangqi,sims=32,c_init=3,fpu=0", [][2]string{{"Mover", "mcts"}, {"Network", "xiangqi"}, {"CInit", "3"}, {"FPU", "0"}}, uci.Limits{Nodes: 32}, ""},
			{"abzero:net=xiangqi,m=1,depth=2,sims=8,eval=learned", [][2]string{{"Mover", "abzero"}, {"Network", "xiangqi"}, {"Simulations", "8"}}, uci.Limits{Depth: 2}, `{"opponent":"abzero","network":"xiangqi","depth":2,"sims":8}`},
			{"abzero:net=xiangqi,m=0.5,depth=2,sims=8", [][2]string{{"Mover", "abzero"}, {"Network", "xiangqi"}, {"Simulations", "8"}, {"ABZeroWeight", "0.5"}, {"Eval", "classical"}}, uci.Limits{Depth: 2}, `{"opponent":"abzero","network":"xiangqi","depth":2,"sims":8,"m":0.5,"eval":"classical"}`},
			// Strength limits: each evaluation's calibrated levels.
			{"ab:elo=-100,eval=learned", [][2]string{{"Mover", "ab"}, {"UCI_LimitStrength", "true"}, {"UCI_Elo", "-100"}}, uci.Limits{}, `{"opponent":"ab","elo":-100}`},
			{"ab:elo=450", [][2]string{{"Mover", "ab"}, {"Eval", "classical"}, {"UCI_LimitStrength", "true"}, {"UCI_Elo", "450"}}, uci.Limits{}, `{"opponent":"ab","elo":450,"eval":"classical"}`},
		}, 2},
	} {
		for _, d := range c.doors {
			t.Run(c.game+"/"+d.spec, func(t *testing.T) { sameMoves(t, c.game, d, c.plies) })
		}
	}
}

// sameMoves gathers positions (the Play page's when it offers the spec,
// else the start and the arena player's own line from it) and checks
// each door's move in each, every door searching it afresh.
func sameMoves(t *testing.T, gameName string, d door, plies int) {
	g, err := game.Lookup(gameName)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := arena.ParsePlayer(d.spec, gameName)
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New()
	if err := eng.SetGame(gameName); err != nil {
		t.Fatal(err)
	}
	for _, o := range d.options {
		if err := eng.SetSearchOption(o[0], o[1]); err != nil {
			t.Fatalf("setoption %s %s: %v", o[0], o[1], err)
		}
	}
	var lines [][]string // the moves before each position searched
	var page []string    // the Play page's reply in each
	if d.play != "" {
		lines, page = playPage(t, gameName, d.play, plies)
	} else {
		// The arena player against itself from the start.
		var line []string
		for range plies + 1 {
			lines = append(lines, line)
			p := replay(t, g, line)
			line = append(append([]string{}, line...), p.FormatMove(arenaMove(t, spec, p)))
		}
	}
	for i, line := range lines {
		p := replay(t, g, line)
		want := p.FormatMove(arenaMove(t, spec, p))
		eng.NewGame()
		res, err := eng.Search(context.Background(), p.Clone(), d.limits, func(string) {})
		if err != nil {
			t.Fatalf("after %v: engine: %v", line, err)
		}
		if got := p.FormatMove(res.Best); got != want {
			t.Errorf("after %v: the engine plays %s, the arena %s", line, got, want)
		}
		if page != nil && page[i] != want {
			t.Errorf("after %v: the Play page plays %s, the arena %s", line, page[i], want)
		}
	}
}

// arenaMove is a fresh player's move in p.
func arenaMove(t *testing.T, spec *arena.Spec, p game.Position) game.Move {
	t.Helper()
	pl, err := spec.New()
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	if err := pl.NewGame(p, 1); err != nil {
		t.Fatal(err)
	}
	m, err := pl.Move(context.Background(), p.Clone(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func replay(t *testing.T, g game.Game, moves []string) game.Position {
	t.Helper()
	p, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range moves {
		if err := game.Play(p, m); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// playPage asks the Play page for its reply in the start position and,
// in a new game each (so that no door keeps a table or tree from an
// earlier move), in the positions after plies different first moves of
// the person. It returns the moves before each reply and the replies.
func playPage(t *testing.T, gameName, request string, plies int) (lines [][]string, replies []string) {
	t.Helper()
	s := dashboard.New("", nil, nil, nil)
	s.SetPlay(dashboard.PlayOptions{Networks: []string{"connect4", "xiangqi"}})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	newGame := func(side string) dashboard.PlayState {
		req := strings.Replace(request, "{", fmt.Sprintf(`{"game":%q,"side":%q,`, gameName, side), 1)
		return post(t, srv.URL+"/api/play/new", req)
	}
	st := newGame("second")
	lines, replies = append(lines, []string{}), append(replies, st.Moves[0])
	first := newGame("first").Legal
	for i := range plies {
		m := first[(2*i+1)*len(first)/(2*plies)]
		st := newGame("first")
		move, _ := json.Marshal(dashboard.MoveRequest{Move: m})
		st = post(t, srv.URL+"/api/play/games/"+st.ID+"/move", string(move))
		lines, replies = append(lines, []string{m}), append(replies, st.Moves[1])
	}
	return lines, replies
}

func post(t *testing.T, url, body string) dashboard.PlayState {
	t.Helper()
	r, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("POST %s %s: %d %s", url, body, r.StatusCode, b)
	}
	var st dashboard.PlayState
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}
