package game_test

import (
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
