package tablebase

import (
	"math/rand/v2"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
)

// The tests below need the full table (TABULA_LION_TB=FILE) and skip
// without it.

// TestFullStart: the start position is lost for the side to move (the
// second player wins, as Tanaka found). The distance is logged: the
// literature's 78 plies is compared in docs/lion-tablebase.md.
func TestFullStart(t *testing.T) {
	tb := fullTable(t)
	p, err := lion.New(safe)
	if err != nil {
		t.Fatal(err)
	}
	moves, r, err := tb.BestMoves(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != game.Loss {
		t.Fatalf("start position: %v, want a loss for the first player", r)
	}
	t.Logf("start position: %v for the first player; %d moves keep it", r, len(moves))
}

// TestFullStats: the table covers Tanaka's 1,567,925,964 positions.
func TestFullStats(t *testing.T) {
	tb := fullTable(t)
	s := tb.Stats()
	if s.Positions != 1_567_925_964 || s.Wins+s.Losses+s.Draws != s.Positions {
		t.Fatalf("stats %+v", s)
	}
	t.Logf("%d positions: %d wins (%d in 0 plies), %d losses, %d draws; longest win %d, loss %d plies",
		s.Positions, s.Wins, s.Wins0, s.Losses, s.Draws, s.LongestWin, s.LongestLoss)
}

// TestFullConsistentSample checks random entries and the positions of
// random games.
func TestFullConsistentSample(t *testing.T) {
	tb := fullTable(t)
	if err := tb.Verify(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var kids [maxChildren]pos
	for range 200000 {
		p, _, _ := tb.ix.position(rng.Uint64N(tb.ix.size))
		if err := checkConsistent(tb, &p, &kids); err != nil {
			t.Fatalf("%s: %v", p.text(), err)
		}
	}
	n := 0
	for range 500 {
		lp, _ := lion.New(safe)
		for !lp.Status().Over() {
			p, _ := fromLion(lp)
			o, th := p.lions()
			if _, ok := p.trivial(o, th); !ok {
				if err := checkConsistent(tb, &p, &kids); err != nil {
					t.Fatalf("%s: %v", lp, err)
				}
				n++
			}
			moves := lp.GenerateMoves(nil)
			lp.Make(moves[rng.IntN(len(moves))])
		}
	}
	t.Logf("200000 random entries and %d positions of random games are consistent", n)
}

// TestFullAgreesWithSearch: sampled positions, those decided within the
// search's depth in good part, get the same result from a plain alpha-beta
// over package lion's rules.
func TestFullAgreesWithSearch(t *testing.T) {
	tb := fullTable(t)
	rng := rand.New(rand.NewPCG(13, 14))
	short, long := 0, 0
	for short < 2000 {
		p, _, _ := tb.ix.position(rng.Uint64N(tb.ix.size))
		r, d := decodeCode(tb.code(&p))
		isShort := r != game.Draw && d <= 5
		if !isShort && long >= short/2 {
			continue // keep the sample mostly short
		}
		lp, err := lion.Parse(p.text(), safe)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstSearch(t, tb, lp, 5)
		if isShort {
			short++
		} else {
			long++
		}
	}
	deep := 0
	for deep < 100 {
		p, _, _ := tb.ix.position(rng.Uint64N(tb.ix.size))
		if r, d := decodeCode(tb.code(&p)); r == game.Draw || d < 6 || d > 7 {
			continue
		}
		lp, _ := lion.Parse(p.text(), safe)
		checkAgainstSearch(t, tb, lp, 7)
		deep++
	}
	t.Logf("%d positions decided within 5 plies, %d not, and %d in 6-7 plies agree with the search", short, long, deep)
}
