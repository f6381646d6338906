package xiangqi

import (
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
)

// TestSEEPositions checks exchanges worked out by hand.
func TestSEEPositions(t *testing.T) {
	for _, tc := range []struct {
		fen, move string
		want      int
	}{
		// A chariot takes a soldier that a horse defends: 100 - 900.
		{"4k4/9/9/4p4/9/3n5/4R4/9/9/4K4 w - - 0 1", "e4e7", 100 - 900},
		// The same soldier undefended.
		{"4k4/9/9/4p4/9/9/4R4/9/9/4K4 w - - 0 1", "e4e7", 100},
		// A cannon takes a horse over a screen, a horse takes the cannon
		// and a chariot that horse: 400 - 450 + 400.
		{"3k5/3n5/9/R3n4/9/9/4P4/9/4C4/5K3 w - - 0 1", "e2e7", 400 - 450 + 400},
		// A soldier takes an advisor and the general retakes: 200 - 100.
		{"9/9/3ak4/3P5/9/9/9/9/9/5K3 w - - 0 1", "d7d8", 200 - 100},
		// The same with a chariot behind the soldier: once the soldier
		// has moved the chariot defends it, and the general may not take.
		{"9/9/3ak4/3P5/9/9/9/9/9/3R1K3 w - - 0 1", "d7d8", 200},
	} {
		p, err := Parse(tc.fen, DefaultRules)
		if err != nil {
			t.Fatalf("%s: %v", tc.fen, err)
		}
		m, err := p.ParseMove(tc.move)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.fen, tc.move, err)
		}
		if got := p.SEE(m); got != tc.want {
			t.Errorf("%s %s: SEE %d, want %d", tc.fen, tc.move, got, tc.want)
		}
	}
}

// TestSEEExchange checks SEE on every capture of many positions against
// a brute-force exchange over the pseudo-legal move generator: each side
// in turn may stop or capture on the square with a piece of the least
// value it has there (the general last, and only onto an undefended
// point). Where pieces of equal value could capture, every choice is
// played out and SEE must be one of the results.
func TestSEEExchange(t *testing.T) {
	n := 0
	for _, p := range randomMovePositions(t) {
		for _, m := range p.GenerateCaptures(nil) {
			to := To(m)
			if p.board[to] == 0 {
				continue
			}
			want := []int(nil)
			gain := material[valType[p.board[to]]]
			cap := p.doMove(m)
			for _, v := range exchangeValues(p, to) {
				want = append(want, gain-v)
			}
			p.undoMove(m, cap)
			got := p.SEE(m)
			if !slices.Contains(want, got) {
				t.Fatalf("%s %s: SEE %d, brute force %v", p, p.FormatMove(m), got, want)
			}
			_, mover := p.MoveValues(m)
			if got > gain || got < gain-mover {
				t.Fatalf("%s %s: SEE %d outside [%d, %d]", p, p.FormatMove(m), got, gain-mover, gain)
			}
			n++
		}
	}
	if n < 100 {
		t.Fatalf("only %d captures checked", n)
	}
}

// exchangeValues returns the possible gains of the side to move from
// starting an exchange on sq with its least valuable capturers.
func exchangeValues(p *Position, sq int) []int {
	var ml [MaxMoves]game.Move
	n := p.genPseudo(&ml)
	rank := func(m game.Move) int {
		if t := valType[p.board[From(m)]]; t != King {
			return material[t]
		}
		return 1 << 20
	}
	least := -1
	for _, m := range ml[:n] {
		if To(m) == sq && (least < 0 || rank(m) < least) {
			least = rank(m)
		}
	}
	var out []int
	for _, m := range ml[:n] {
		if To(m) != sq || rank(m) != least {
			continue
		}
		king := valType[p.board[From(m)]] == King
		victim := material[valType[p.board[sq]]]
		cap := p.doMove(m)
		if king {
			v := 0
			if !p.squareAttacked(sq, uint8(p.side)) {
				v = victim
			}
			out = append(out, v)
		} else {
			for _, r := range exchangeValues(p, sq) {
				out = append(out, max(0, victim-r))
			}
		}
		p.undoMove(m, cap)
	}
	if out == nil {
		out = []int{0}
	}
	return out
}

// TestGenerateQuietChecks: the quiet checks are exactly the legal moves
// that capture nothing and leave the opponent in check, on positions from
// random play.
func TestGenerateQuietChecks(t *testing.T) {
	total := 0
	for _, gp := range gametest.RandomPositions(New(DefaultRules), 60, 150, 13) {
		p := gp.(*Position)
		if p.InCheck() {
			continue
		}
		var want []game.Move
		for _, m := range p.GenerateMoves(nil) {
			if p.board[To(m)] != 0 {
				continue
			}
			p.Make(m)
			if p.InCheck() {
				want = append(want, m)
			}
			p.Unmake()
		}
		got := p.GenerateQuietChecks(nil)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: quiet checks %v, want %v", p, got, want)
		}
		total += len(want)
	}
	if total < 100 {
		t.Fatalf("only %d quiet checks in the sample", total)
	}
}
