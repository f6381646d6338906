package alphabeta_test

import (
	"context"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// TestLionWins: in positions from random play where the brute force
// proves a forced win (lion capture or try) in exactly n moves, the search
// reports mate in n.
func TestLionWins(t *testing.T) {
	for _, rule := range []string{"safe", "immediate"} {
		start, err := lion.New(game.Options{"TryRule": rule})
		if err != nil {
			t.Fatal(err)
		}
		found := map[int]int{}
		for _, gp := range gametest.RandomPositions(start, 60, 40, 11) {
			if gp.Status().Over() {
				continue
			}
			n := 0
			for k := 1; k <= 3; k++ {
				if gametest.WinsWithin(gp, k) {
					n = k
					break
				}
			}
			if n == 0 || found[n] >= 4 {
				continue
			}
			found[n]++
			p := gp.(alphabeta.Position)
			r := search(t, p, 2*n+1)
			if !alphabeta.IsMate(r.Score) || alphabeta.MateIn(r.Score) != n {
				t.Errorf("%s (%s): score %s, brute force says a win in %d", p, rule, alphabeta.FormatScore(r.Score), n)
			}
		}
		if found[1] == 0 || found[2] == 0 || found[3] == 0 {
			t.Errorf("%s: sample has wins in 1, 2, 3: %v", rule, found)
		}
	}
}

// TestXiangqiAvoidsPerpetualCheckLoss: Red has checked twice around the
// cycle; repeating the check a third time loses, so the search plays on
// differently although the checks look attractive.
func TestXiangqiAvoidsPerpetualCheckLoss(t *testing.T) {
	p, err := xiangqi.Parse("3k5/7R1/9/9/9/9/9/9/9/4K4 w", xiangqi.DefaultRules)
	if err != nil {
		t.Fatal(err)
	}
	if err := game.Play(p, "h9h10", "d10d9", "h10h9", "d9d10", "h9h10", "d10d9"); err != nil {
		t.Fatal(err)
	}
	// Red to move: h10h9 check, then Black's d9d10 would complete the third
	// occurrence with Red having checked every move: a loss for Red.
	s := newSearcher(t, alphabeta.DefaultOptions())
	for ply := 0; ply < 12 && !p.Status().Over(); ply++ {
		r := s.Search(context.Background(), p, alphabeta.Limits{Depth: 5}, nil)
		p.Make(r.Move)
	}
	if st := p.Status(); st.Reason == xiangqi.ReasonPerpetualCheck {
		t.Fatalf("the game ended by perpetual check: %+v at %s", st, p)
	}
}

// TestXiangqiNoStalemateTrap: a move that leaves the own side without
// moves loses at once (stalemate loses); the search never picks it, and a
// stalemating move for the attacker is found as a mate.
func TestXiangqiNoStalemateTrap(t *testing.T) {
	// Black to move has king moves only; d10e10 walks into the open file
	// of Red's general (illegal), the other king moves are legal.
	p, err := xiangqi.Parse("3k5/9/9/9/9/9/9/9/9/R3K4 b", xiangqi.DefaultRules)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range p.GenerateMoves(nil) {
		if p.FormatMove(m) == "d10e10" {
			t.Fatal("flying-general move generated")
		}
	}
	// Red to move can stalemate Black (a1a9 takes d9 from the general):
	// that is a win in one.
	p, err = xiangqi.Parse("3k5/9/9/9/9/9/9/9/9/R3K4 w", xiangqi.DefaultRules)
	if err != nil {
		t.Fatal(err)
	}
	r := search(t, p, 3)
	if !alphabeta.IsMate(r.Score) || alphabeta.MateIn(r.Score) != 1 {
		t.Fatalf("stalemating win not found: %s %s", p.FormatMove(r.Move), alphabeta.FormatScore(r.Score))
	}
	p.Make(r.Move)
	if st := p.Status(); st.Result != game.Loss {
		t.Fatalf("after %s Black is not lost: %+v", p.FormatMove(r.Move), st)
	}
}
