package tictactoe_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/game/gametest/tictactoe"
)

// The conformance suite: perft against the published counts of the
// game tree (9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872
// games after n plies; 255168 games in all), make and unmake, text and
// moves round trips, the encoder and its mirror.
func TestConformance(t *testing.T) {
	g, err := game.Lookup(tictactoe.Name)
	if err != nil {
		t.Fatal(err)
	}
	start, _ := g.New(nil)
	gametest.Perft(t, start, []uint64{9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872}, 9)
	positions := gametest.RandomPositions(start, 40, 9, 1)
	gametest.MakeUnmake(t, g, nil, positions)
	gametest.Encoder(t, g.Encoder, positions)
	gametest.Symmetry(t, g.Encoder, positions, func(p game.Position, _ int) game.Position {
		// The mirror of a position: each stone on its mirrored cell.
		rows := strings.Split(strings.Fields(p.String())[0], "/")
		for i, r := range rows {
			cs, _ := game.GridCells(r, 3)
			rows[i] = cell(cs[2]) + cell(cs[1]) + cell(cs[0])
		}
		q, err := g.Parse(strings.Join(rows, "/")+" "+strings.Fields(p.String())[1], nil)
		if err != nil {
			t.Fatal(err)
		}
		return q
	})
	gametest.RejectsUnknownOptions(t, g)
}

func cell(s string) string {
	if s == "" {
		return "1"
	}
	return s
}

// Endings: three in a row loses for the side to move, a full board
// without one is a draw; bad text is refused with a reason.
func TestEndingsAndText(t *testing.T) {
	g, _ := game.Lookup(tictactoe.Name)
	p, _ := g.New(nil)
	if err := game.Play(p, "a3", "a1", "b3", "b1", "c3"); err != nil {
		t.Fatal(err)
	}
	if st := p.Status(); st.Result != game.Loss || len(p.GenerateMoves(nil)) != 0 {
		t.Errorf("after X's row: %v, %d moves", st, len(p.GenerateMoves(nil)))
	}
	p, _ = g.New(nil)
	if err := game.Play(p, "b2", "a1", "c3", "a3", "a2", "c2", "b1", "b3", "c1"); err != nil {
		t.Fatal(err)
	}
	if st := p.Status(); st.Result != game.Draw {
		t.Errorf("full board %s: %v", p, st)
	}
	for _, bad := range []string{"", "3/3/3", "3/3/3 z", "3/3 x", "XX1/3/3 o", "XXX/OOO/3 x", "4/3/3 x"} {
		if _, err := g.Parse(bad, nil); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// No program registers the game: the tabula binary does not depend on
// this package.
func TestNotShipped(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/tabula-zero/tabula/cmd/tabula").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if strings.Contains(string(out), "game/gametest") {
		t.Error("the tabula binary imports game/gametest or tic-tac-toe")
	}
	if !strings.Contains(string(out), "github.com/tabula-zero/tabula/game/all") {
		t.Errorf("go list -deps lists no game/all: %s", out)
	}
}
