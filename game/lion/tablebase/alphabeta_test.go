package tablebase_test

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
)

// TestFullAgreesWithAlphabeta: along random games, every position the
// table calls won or lost within 5 plies gets the same mate from the
// project's alpha-beta searcher at 2 plies more, and no position gets a
// mate the table does not have. Needs TABULA_LION_TB.
func TestFullAgreesWithAlphabeta(t *testing.T) {
	path := os.Getenv(tablebase.EnvFile)
	if path == "" {
		t.Skipf("%s is not set: the full table is needed; %s", tablebase.EnvFile, tablebase.BuildHint)
	}
	tb, err := tablebase.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	s, err := alphabeta.New(alphabeta.DefaultOptionsFor("lion"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(15, 16))
	short, other := 0, 0
	for short < 2000 {
		p, err := lion.New(game.Options{lion.OptTryRule: lion.TrySafe})
		if err != nil {
			t.Fatal(err)
		}
		for !p.Status().Over() {
			r, err := tb.Probe(p)
			if err != nil {
				t.Fatal(err)
			}
			isShort := r.Outcome != game.Draw && r.Plies <= 5
			if isShort || other < short/4 {
				// Search a fresh copy: the game's history would let the
				// searcher see repetitions the table does not.
				q, err := lion.Parse(p.String(), game.Options{lion.OptTryRule: lion.TrySafe})
				if err != nil {
					t.Fatal(err)
				}
				depth := 7
				if isShort {
					depth = r.Plies + 2
				}
				s.Clear()
				res := s.Search(context.Background(), q, alphabeta.Limits{Depth: depth}, nil)
				mate := alphabeta.IsMate(res.Score)
				switch {
				case isShort && !mate:
					t.Fatalf("%s: table %v, search to %d plies %s", q, r, depth, alphabeta.FormatScore(res.Score))
				case mate && (r.Outcome == game.Draw || alphabeta.MateIn(res.Score) != movesOf(r)):
					t.Fatalf("%s: table %v, search %s", q, r, alphabeta.FormatScore(res.Score))
				}
				if isShort {
					short++
				} else {
					other++
				}
			}
			moves := p.GenerateMoves(nil)
			p.Make(moves[rng.IntN(len(moves))])
		}
	}
	t.Logf("%d positions won or lost within 5 plies and %d others agree with alphabeta", short, other)
}

// movesOf is a result in alphabeta's mate moves: positive for a win.
func movesOf(r tablebase.Result) int {
	if r.Outcome == game.Win {
		return (r.Plies + 1) / 2
	}
	return -(r.Plies + 1) / 2
}
