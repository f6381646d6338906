package lion

import (
	"testing"

	"github.com/tabula-zero/tabula/game/gametest"
)

// MoveFeatures agrees with the rules: a capture takes a piece, and the
// target is attacked exactly when the opponent, after the move, has a
// piece that steps onto it (even when the move took its lion).
func TestMoveFeatures(t *testing.T) {
	start, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, gp := range gametest.RandomPositions(start, 40, 60, 9) {
		p := gp.(*Position)
		for _, m := range p.GenerateMoves(nil) {
			f := p.MoveFeatures(m)
			capture := moveFrom(m) >= 0 && p.sq[moveTo(m)] != 0
			p.Make(m)
			attacked := false
			for b := p.byColor[p.stm]; b != 0; b &= b - 1 {
				s := lsb(b)
				if attacks[p.stm][typeOf(p.sq[s])][s]&(1<<moveTo(m)) != 0 {
					attacked = true
				}
			}
			p.Unmake()
			if (f&1 != 0) != capture || (f&2 != 0) != attacked {
				t.Fatalf("%s: %s features %02b, want capture %v attacked %v", p, p.FormatMove(m), f, capture, attacked)
			}
			n++
		}
	}
	t.Logf("%d moves", n)
}
