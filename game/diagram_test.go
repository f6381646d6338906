package game_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all"
	"github.com/tabula-zero/tabula/game/gametest"
)

// boardOf reads a grid diagram's points back into FEN board text.
func boardOf(d string) string {
	var ranks []string
	for _, line := range strings.Split(d, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0][0] < '0' || f[0][0] > '9' {
			continue
		}
		var b strings.Builder
		empty := 0
		for _, c := range f[1:] {
			if c == "." {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteString(c)
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		ranks = append(ranks, b.String())
	}
	return strings.Join(ranks, "/")
}

// The diagrams of Xiangqi and Catch the Lion read back to the board of
// the position's own text; Connect Four's hold one stone per ply, in the
// columns played, X and O alternating.
func TestDiagrams(t *testing.T) {
	for _, name := range []string{"xiangqi", "lion", "connect4"} {
		g, _ := game.Lookup(name)
		start, _ := g.New(nil)
		for _, p := range gametest.RandomPositions(start, 50, 60, 3) {
			d := p.(game.Diagrammer).Diagram()
			if !strings.HasSuffix(d, " to move\n") {
				t.Fatalf("%s: no side to move in\n%s", name, d)
			}
			if name != "connect4" {
				if want := strings.Fields(p.String())[0]; boardOf(d) != want {
					t.Fatalf("%s %s: the diagram reads back as %s\n%s", name, p, boardOf(d), d)
				}
				continue
			}
			x, o := strings.Count(d, "X")-strings.Count(d, "X to move"), strings.Count(d, "O")-strings.Count(d, "O to move")
			if n := len(p.String()); x != (n+1)/2 || o != n/2 {
				t.Fatalf("connect4 %s: %d X and %d O in\n%s", p, x, o, d)
			}
			rows := strings.Split(d, "\n")[:6]
			for col := range 7 {
				stones := 0
				for _, r := range rows {
					if r[2*col] != '.' {
						stones++
					}
				}
				if want := strings.Count(p.String(), string(rune('1'+col))); stones != want {
					t.Fatalf("connect4 %s: column %d has %d stones, %d plays\n%s", p, col+1, stones, want, d)
				}
			}
		}
	}
	if _, err := game.GridDiagram("3/2", 3, 1, 0); err == nil || !strings.Contains(err.Error(), `rank "2" has 2 points`) {
		t.Fatalf("a short rank: %v", err)
	}
}

// Board gives back the position: the cells written as FEN ranks are the
// position's own board text (Xiangqi, Catch the Lion, with the hands
// counted back), and Connect Four's stones sit where its moves dropped
// them.
func TestBoards(t *testing.T) {
	for _, name := range []string{"xiangqi", "lion", "connect4"} {
		g, _ := game.Lookup(name)
		start, _ := g.New(nil)
		hands := 0
		for _, p := range gametest.RandomPositions(start, 80, 60, 4) {
			b := p.(game.Boarder).Board()
			if len(b.Cells) != b.Files*b.Ranks || b.Side != p.SideToMove() {
				t.Fatalf("%s %s: %d cells for %dx%d, side %v", name, p, len(b.Cells), b.Files, b.Ranks, b.Side)
			}
			if name == "connect4" {
				var height [7]int
				for i, c := range p.String() {
					col := int(c - '1')
					mark := map[bool]string{true: "X", false: "O"}[i%2 == 0]
					if got := b.Cells[(5-height[col])*7+col]; got != mark {
						t.Fatalf("connect4 %s: move %d in column %d shows %q", p, i+1, col+1, got)
					}
					height[col]++
				}
				if n := strings.Count(strings.Join(b.Cells, ""), ""); n-1 != len(p.String()) {
					t.Fatalf("connect4 %s: %d stones", p, n-1)
				}
				continue
			}
			fields := strings.Fields(p.String())
			if got := fenRanks(b); got != fields[0] {
				t.Fatalf("%s %s: cells read back as %s", name, p, got)
			}
			if name == "lion" {
				want := fields[2]
				if want == "-" {
					want = ""
				}
				if got := handText(b.Hands[0]) + handText(b.Hands[1]); got != want {
					t.Fatalf("lion %s: hands %q read back as %q", p, fields[2], got)
				}
				if b.Hands != [2]string{} {
					hands++
				}
			}
		}
		if name == "lion" && hands == 0 {
			t.Error("lion: no position with pieces in hand in the sample")
		}
	}
}

// fenRanks writes cells as FEN ranks.
func fenRanks(b game.Board) string {
	var ranks []string
	for r := range b.Ranks {
		var s strings.Builder
		empty := 0
		for _, c := range b.Cells[r*b.Files : (r+1)*b.Files] {
			if c == "" {
				empty++
				continue
			}
			if empty > 0 {
				s.WriteByte(byte('0' + empty))
				empty = 0
			}
			s.WriteString(c)
		}
		if empty > 0 {
			s.WriteByte(byte('0' + empty))
		}
		ranks = append(ranks, s.String())
	}
	return strings.Join(ranks, "/")
}

// handText writes a hand as the lion text does: C G E order, a count
// before a letter held twice.
func handText(h string) string {
	var s strings.Builder
	for _, k := range []string{"C", "G", "E", "c", "g", "e"} {
		switch n := strings.Count(h, k); n {
		case 0:
		case 1:
			s.WriteString(k)
		default:
			fmt.Fprintf(&s, "%d%s", n, k)
		}
	}
	return s.String()
}
