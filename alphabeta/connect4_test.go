package alphabeta_test

import (
	"bufio"
	"strconv"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/internal/ponsdata"
)

// ponsScore converts a search score into Pascal Pons' convention: 22 minus
// the winner's stone count at the end, positive when the side to move
// wins; n is the number of stones on the board now.
func ponsScore(score, n int) int {
	if !alphabeta.IsMate(score) {
		return 0 // only exact results are compared; a draw is 0
	}
	k := alphabeta.Mate - max(score, -score) // plies to the end
	if score > 0 {
		return 22 - (n/2 + (k+1)/2)
	}
	return -(22 - (n - n/2 + k/2))
}

// TestConnect4EndgamesExact: the generic searcher, searching to the end of
// the game, reproduces Pons' exact scores on his end-game set.
func TestConnect4EndgamesExact(t *testing.T) {
	f, err := ponsdata.Open("Test_L3_R1")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	checked := 0
	for sc.Scan() && checked < 60 {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 || len(fields[0]) < 30 {
			continue
		}
		want, _ := strconv.Atoi(fields[1])
		p, err := connect4.Parse(fields[0])
		if err != nil {
			t.Fatal(err)
		}
		n := len(fields[0])
		r := search(t, p, connect4.Cells-n+1)
		if got := ponsScore(r.Score, n); got != want || (want == 0 && r.Score != 0) {
			t.Errorf("%s: score %s (Pons %d), want %d", fields[0], alphabeta.FormatScore(r.Score), got, want)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no positions checked")
	}
}
