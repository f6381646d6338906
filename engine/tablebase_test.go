package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
	"github.com/tabula-zero/tabula/uci"
)

// TestTablebaseMover: with a table of the lions-and-a-chick sub-game, the
// tablebase mover plays an optimal move and reports its mate distance;
// a restricted root gets the best allowed move; files that are missing or
// no table, and positions of another game, are refused with the reason.
func TestTablebaseMover(t *testing.T) {
	tb, err := tablebase.Build(context.Background(), tablebase.Material{Chicks: 1}, tablebase.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sub.tb")
	if err := tb.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	s := New()
	if err := s.SetSearchOption(optMover, moverTB); err != nil {
		t.Fatal(err)
	}
	// A position of the sub-game: the lions, and the first player's chick.
	p, err := lion.Parse("1l1/3/1LC/3 w - 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Search(context.Background(), p, uci.Limits{}, func(string) {}); err == nil || !strings.Contains(err.Error(), "needs the Tablebase option") {
		t.Errorf("no table: %v", err)
	}
	if err := s.SetSearchOption(optTablebase, path); err != nil {
		t.Fatal(err)
	}
	best, want, err := tb.BestMoves(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var infos []string
	res, err := s.Search(context.Background(), p, uci.Limits{}, func(s string) { infos = append(infos, s) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(best, res.Best) || len(infos) != 1 || !strings.Contains(infos[0], "score "+tbScore(want)) {
		t.Errorf("%s (%v): played %s with %q, optimal %v", p, want, p.FormatMove(res.Best), infos, best)
	}
	// Restricted to the moves that are not optimal, it takes the best of
	// those by the table.
	all, _, _ := tb.Moves(p, nil)
	var others []game.Move
	bestRank := -10000
	for _, m := range all {
		if !slices.Contains(best, m.Move) {
			others = append(others, m.Move)
			bestRank = max(bestRank, m.Result.Rank())
		}
	}
	if len(others) > 0 {
		res, err = s.Search(context.Background(), p, uci.Limits{SearchMoves: others}, func(string) {})
		i := slices.IndexFunc(all, func(m tablebase.MoveResult) bool { return m.Move == res.Best })
		if err != nil || i < 0 || !slices.Contains(others, res.Best) || all[i].Result.Rank() != bestRank {
			t.Errorf("restricted root: %s (%v)", p.FormatMove(res.Best), err)
		}
	}
	if _, err := s.Search(context.Background(), xiangqiStart(t), uci.Limits{}, func(string) {}); err == nil || !strings.Contains(err.Error(), "not xiangqi") {
		t.Errorf("xiangqi: %v", err)
	}
	junk := filepath.Join(t.TempDir(), "junk.tb")
	os.WriteFile(junk, make([]byte, 5000), 0o644)
	for bad, want := range map[string]string{"/no/such.tb": "tabula liontb", junk: "not a Catch the Lion tablebase"} {
		if err := s.SetSearchOption(optTablebase, bad); err == nil || !strings.Contains(err.Error(), "option Tablebase: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("Tablebase %s: %v", bad, err)
		}
	}
}
