package c4solver

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/game/connect4"
)

// The seed's table (Fig. 3.7), bottom row first, with the two centre cells
// it prints as 9 corrected to the true line count 10.
var seedWeights = [6][7]int{
	{3, 4, 5, 7, 5, 4, 3},
	{4, 6, 8, 10, 8, 6, 4},
	{5, 8, 11, 13, 11, 8, 5},
	{5, 8, 11, 13, 11, 8, 5},
	{4, 6, 8, 10, 8, 6, 4},
	{3, 4, 5, 7, 5, 4, 3},
}

func TestCellWeights(t *testing.T) {
	sum := 0
	for b := range 64 {
		c, r := b/7, b%7
		w := CellWeight(c, r)
		if r == 6 || c >= 7 {
			if w != 0 || cellWeight[b] != 0 {
				t.Errorf("bit %d outside the board has weight %d", b, w)
			}
			continue
		}
		if cellWeight[b] != w {
			t.Errorf("bit %d: %d, CellWeight %d", b, cellWeight[b], w)
		}
		if w != seedWeights[r][c] {
			t.Errorf("cell col %d row %d: weight %d, seed %d", c+1, r+1, w, seedWeights[r][c])
		}
		sum += w
	}
	// 69 lines of four, 4 cells each.
	if sum != 69*4 {
		t.Errorf("weights sum to %d, want 276", sum)
	}
	// The greedy bound of the seed, recomputed.
	var ws []int
	for _, w := range cellWeight {
		if w > 0 {
			ws = append(ws, w)
		}
	}
	slices.Sort(ws)
	top, bottom := 0, 0
	for i := 0; i < 21; i++ {
		top += ws[len(ws)-1-i]
	}
	for i := 0; i < 20; i++ {
		bottom += ws[i]
	}
	if top-bottom != HeuristicBound {
		t.Errorf("greedy bound %d, HeuristicBound %d", top-bottom, HeuristicBound)
	}
}

func TestEvaluate(t *testing.T) {
	p := connect4.New()
	if Evaluate(p) != 0 {
		t.Error("empty board")
	}
	p.Make(connect4.ColumnMove(3))
	if v := Evaluate(p); v != -7 { // the seed's example
		t.Errorf("after a centre opening: %d, want -7", v)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for g := 0; g < 200; g++ {
		p := connect4.New()
		for !p.Status().Over() {
			v := Evaluate(p)
			if v < -HeuristicBound || v > HeuristicBound {
				t.Fatalf("%s: %d outside the bound", p, v)
			}
			var cols []int
			for c := 0; c < 7; c++ {
				if p.CanPlay(c) {
					cols = append(cols, c)
				}
			}
			c := cols[rng.IntN(len(cols))]
			cell := bitOf(p, c)
			p.Make(connect4.ColumnMove(c))
			// The seed's incremental rule e_new = -e + weight(cell), e from
			// the view of the side that just moved: v = -e before the move,
			// the side to move's value -e_new after it.
			if got, want := Evaluate(p), -(v + cellWeight[cell]); got != want {
				t.Fatalf("%s: %d, incremental rule gives %d", p, got, want)
			}
		}
	}
}

func bitOf(p *connect4.Position, c int) int {
	m := (p.Mask() + 1<<(7*c)) & connect4.ColumnMask(c)
	for b := 0; b < 64; b++ {
		if m == 1<<b {
			return b
		}
	}
	return -1
}

// ponsToHeuristic maps an exact Pons score to SearchDepth's scale.
func ponsToHeuristic(v int) int {
	switch {
	case v > 0:
		return WinScore + v
	case v < 0:
		return -WinScore + v
	}
	return 0
}

// Searched to the end, the heuristic search is exact: it must agree with
// Pons on L3_R1 (at most 13 empty cells).
func TestSearchDepthExact(t *testing.T) {
	step := 5
	if testing.Short() {
		step = 20
	}
	for _, tp := range loadSet(t, "Test_L3_R1", step) {
		v, col := SearchDepth(tp.pos, connect4.Cells)
		if v != ponsToHeuristic(tp.score) {
			t.Errorf("%s: SearchDepth %d, Pons %d", tp.moves, v, tp.score)
		}
		a := AnalyzeDepth(tp.pos, connect4.Cells)
		if col < 0 || a[col] != v || slices.Max(a[:]) != v {
			t.Errorf("%s: SearchDepth %d col %d, AnalyzeDepth %v", tp.moves, v, col, a)
		}
	}
}

// At shallow depth the root score is the best AnalyzeDepth score, and a
// win within reach is found.
func TestSearchDepthShallow(t *testing.T) {
	for _, tp := range loadSet(t, "Test_L1_R1", 50) {
		for _, d := range []int{1, 2, 5} {
			v, col := SearchDepth(tp.pos, d)
			a := AnalyzeDepth(tp.pos, d)
			if col < 0 || !tp.pos.CanPlay(col) || a[col] != v || slices.Max(a[:]) != v {
				t.Errorf("%s depth %d: SearchDepth %d col %d, AnalyzeDepth %v", tp.moves, d, v, col, a)
			}
			if v > WinScore || v < -WinScore {
				if v != ponsToHeuristic(tp.score) {
					t.Errorf("%s depth %d: proven %d, Pons %d", tp.moves, d, v, tp.score)
				}
			}
		}
	}
	p := mustParse(t, "445566")
	if v, col := SearchDepth(p, 1); v != WinScore+18 || (col != 2 && col != 6) {
		t.Errorf("445566: %d col %d", v, col)
	}
	if v, col := SearchDepth(mustParse(t, "4455661"), 1); v != -(WinScore+17) || col < 0 {
		t.Errorf("4455661: %d col %d", v, col)
	}
	if v, col := SearchDepth(mustParse(t, "4455667"), 3); v != -(WinScore+18) || col != -1 {
		t.Errorf("finished: %d col %d", v, col)
	}
}
