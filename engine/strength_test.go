package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/uci"
)

// At the bottom of the strength scale (every move drawn at random) the
// engine says so in an info string, and a root restricted by searchmoves
// still plays a move it allows.
func TestStrengthLimitRandomMoves(t *testing.T) {
	s := evalSearcher(t, [2]string{"UCI_LimitStrength", "true"}, [2]string{"UCI_Elo", "-400"}, [2]string{optEval, "classical"})
	g, err := game.Lookup("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	res, err := s.Search(context.Background(), p.Clone(), uci.Limits{}, func(l string) { said = append(said, l) })
	if err != nil || !game.IsLegal(p, res.Best) {
		t.Fatalf("search: %v, move %v", err, res.Best)
	}
	if !strings.Contains(strings.Join(said, "\n"), "a random move") {
		t.Errorf("no info string of the random move:\n%s", strings.Join(said, "\n"))
	}
	legal := p.GenerateMoves(nil)
	for _, only := range legal[:5] {
		res, err := s.Search(context.Background(), p.Clone(), uci.Limits{SearchMoves: []game.Move{only}}, func(string) {})
		if err != nil || res.Best != only {
			t.Errorf("searchmoves %s: played %s (%v)", p.FormatMove(only), p.FormatMove(res.Best), err)
		}
	}
}
