package xiangqi

import (
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
)

// squareAttacked must agree with the pseudo-legal move generator: side c
// attacks an empty or enemy square exactly when one of its pseudo-legal
// moves other than a cannon's goes there, or a cannon of c stands behind
// the first piece on a line from the square (found here by walking the
// board, not through the line tables).
func TestSquareAttacked(t *testing.T) {
	positions := gametest.RandomPositions(New(DefaultRules), 40, 120, 7)
	checked := 0
	for _, gp := range positions {
		p := gp.(*Position)
		for c := uint8(0); c < 2; c++ {
			saved := p.side
			p.side = game.Color(c)
			var ml [MaxMoves]game.Move
			n := p.genPseudo(&ml)
			p.side = saved
			var reach [NumSquares]bool
			for _, m := range ml[:n] {
				if valType[p.board[From(m)]] != Cannon {
					reach[To(m)] = true
				}
			}
			for sq := 0; sq < NumSquares; sq++ {
				if valColor[p.board[sq]] == c {
					continue
				}
				want := reach[sq] || cannonBehindScreen(p, sq, c)
				if got := p.squareAttacked(sq, c); got != want {
					t.Fatalf("%s: squareAttacked(%d, %d) = %v, want %v", p, sq, c, got, want)
				}
				checked++
			}
		}
	}
	t.Logf("%d squares in %d positions", checked, len(positions))
}

func cannonBehindScreen(p *Position, sq int, c uint8) bool {
	r, f := rankOf(sq), fileOf(sq)
	for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
		screens := 0
		for rr, ff := r+d[0], f+d[1]; onBoard(rr, ff); rr, ff = rr+d[0], ff+d[1] {
			v := p.board[rr*Files+ff]
			if v == 0 {
				continue
			}
			if screens == 1 {
				if valColor[v] == c && valType[v] == Cannon {
					return true
				}
				break
			}
			screens++
		}
	}
	return false
}

// MoveFeatures: bit 0 is a capture, bit 1 an attack on the target after
// the move; Make and Unmake are left as they were.
func TestMoveFeatures(t *testing.T) {
	for _, gp := range gametest.RandomPositions(New(DefaultRules), 20, 100, 8) {
		p := gp.(*Position)
		before, key := p.String(), p.Key()
		for _, m := range p.GenerateMoves(nil) {
			f := p.MoveFeatures(m)
			if p.String() != before || p.Key() != key {
				t.Fatalf("%s: MoveFeatures(%s) changed the position", before, p.FormatMove(m))
			}
			capture := p.board[To(m)] != 0
			p.Make(m)
			attacked := false
			for _, r := range p.GenerateMoves(nil) {
				if To(r) == To(m) {
					attacked = true
				}
			}
			p.Unmake()
			if (f&1 != 0) != capture {
				t.Fatalf("%s: %s capture feature %v, want %v", before, p.FormatMove(m), f&1 != 0, capture)
			}
			// A legal recapture implies a pseudo-legal attack; an attack
			// by a pinned piece is not a legal recapture.
			if attacked && f&2 == 0 {
				t.Fatalf("%s: %s can be recaptured but the attacked feature is off", before, p.FormatMove(m))
			}
		}
	}
}
