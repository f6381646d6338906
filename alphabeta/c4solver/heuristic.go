package c4solver

import (
	"math/bits"

	"github.com/tabula-zero/tabula/game/connect4"
)

// WinScore offsets proven results in the heuristic search above every
// heuristic value (the seed adds 100; its table's bound is 100, the true
// line counts' is 102, see HeuristicBound): a win that a search proves
// scores WinScore plus its Pons score, a loss the negation, a draw 0.
const WinScore = 1000

// HeuristicBound is the largest |Evaluate| the seed's greedy argument
// allows with the true line counts: the side that just moved holds the 21
// heaviest cells but one 6 (186), the other the 20 lightest (84). Real
// positions stay well inside it.
const HeuristicBound = 102

// cellWeight holds, for each bit of the board layout (7c+r), the number
// of four-in-a-row lines through the cell.
var cellWeight [64]int

// CellWeight returns the seed's static weight (Fig. 3.7) of the cell in
// column col and row row (0-based, row 0 at the bottom): the number of
// four-in-a-row lines through it. The thesis prints 9 for the centre
// cells of rows 2 and 5; the true count, used here, is 10.
func CellWeight(col, row int) int {
	if col < 0 || col >= width || row < 0 || row >= connect4.Height {
		return 0
	}
	return cellWeight[col*colBit+row]
}

// weightClass[i] is the set of cells of weight classWeight[i].
var (
	classWeight []int
	weightClass []uint64
)

func init() {
	dirs := [][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} // (dc, dr)
	for c := 0; c < width; c++ {
		for r := 0; r < connect4.Height; r++ {
			for _, d := range dirs {
				// A line of four through (c, r) starts k cells back.
				for k := 0; k < 4; k++ {
					c0, r0 := c-k*d[0], r-k*d[1]
					c3, r3 := c0+3*d[0], r0+3*d[1]
					if c0 >= 0 && c0 < width && r0 >= 0 && r0 < connect4.Height &&
						c3 >= 0 && c3 < width && r3 >= 0 && r3 < connect4.Height {
						cellWeight[c*colBit+r]++
					}
				}
			}
		}
	}
	idx := map[int]int{}
	for b, w := range cellWeight {
		if w == 0 {
			continue
		}
		i, ok := idx[w]
		if !ok {
			i = len(classWeight)
			idx[w] = i
			classWeight = append(classWeight, w)
			weightClass = append(weightClass, 0)
		}
		weightClass[i] |= 1 << b
	}
}

// Evaluate returns the seed's static evaluation of p from the side to
// move's view: the weights of its stones minus the weights of the
// opponent's. It ignores whether the game is over.
func Evaluate(p *connect4.Position) int { return evaluate(p.Current(), p.Mask()) }

func evaluate(cur, mask uint64) int {
	opp := cur ^ mask
	v := 0
	for i, m := range weightClass {
		v += classWeight[i] * (bits.OnesCount64(cur&m) - bits.OnesCount64(opp&m))
	}
	return v
}

// SearchDepth searches p depth plies deep (at least 1) with fail-soft
// alpha-beta on Evaluate, with the exact solver's pruning of losing moves,
// immediate-win check and threat-count ordering (no transposition table).
// It returns the score and the best column (0-6), the most central one
// among equals. Proven results score WinScore + their Pons score (negated
// for losses), draws 0; within the horizon they are exact. A finished
// position returns column -1.
func SearchDepth(p *connect4.Position, depth int) (score, col int) {
	var h heuristic
	return h.root(p.Current(), p.Mask(), p.Moves(), max(depth, 1))
}

// AnalyzeDepth returns SearchDepth's score of every column of p (the
// column played, then depth-1 plies), Invalid for full columns and for
// every column of a finished position.
func AnalyzeDepth(p *connect4.Position, depth int) [connect4.Width]int {
	var a [connect4.Width]int
	var h heuristic
	cur, mask, n := p.Current(), p.Mask(), p.Moves()
	done := over(cur, mask, n)
	depth = max(depth, 1)
	for c := range a {
		switch {
		case done || !canPlay(mask, c):
			a[c] = Invalid
		case isWinning(cur, mask, c):
			a[c] = WinScore + (cells+1-n)/2
		default:
			c2, m2 := play(cur, mask, c)
			v, _ := h.root(c2, m2, n+1, depth-1)
			a[c] = -v
		}
	}
	return a
}

type heuristic struct{ nodes uint64 }

// terminal scores finished positions and immediate wins.
func (h *heuristic) terminal(cur, mask uint64, n int) (int, bool) {
	v, ok := rootValue(cur, mask, n)
	if ok && v != 0 {
		if v > 0 {
			v += WinScore
		} else {
			v -= WinScore
		}
	}
	return v, ok
}

// root searches any position depth plies deep; at depth 0 it returns the
// static value (exact when the game is decided within two plies) and
// column -1.
func (h *heuristic) root(cur, mask uint64, n, depth int) (score, col int) {
	if over(cur, mask, n) {
		v, _ := h.terminal(cur, mask, n)
		return v, -1
	}
	if w := winningMoves(cur, mask); w != 0 {
		for _, c := range order {
			if w&colMask[c] != 0 {
				return WinScore + (cells+1-n)/2, c
			}
		}
	}
	possible := nonLosing(cur, mask)
	if possible == 0 {
		// Every move loses at once: play the most central one.
		for _, c := range order {
			if canPlay(mask, c) {
				return -(WinScore + (cells-n)/2), c
			}
		}
	}
	if depth <= 0 {
		if n >= cells-2 {
			return 0, -1
		}
		return evaluate(cur, mask), -1
	}
	var moves [width]uint64
	k := orderMoves(cur, mask, possible, &moves)
	alpha, beta := -(WinScore + cells), WinScore+cells
	best, col := alpha, -1
	for i := 0; i < k; i++ {
		v := -h.search(cur^mask, mask|moves[i], n+1, depth-1, -beta, -alpha)
		if v > best {
			best, col = v, moveColumn(moves[i])
			alpha = max(alpha, v)
		}
	}
	return best, col
}

// search is fail-soft alpha-beta on a position whose side to move cannot
// win at once.
func (h *heuristic) search(cur, mask uint64, n, depth, alpha, beta int) int {
	h.nodes++
	if n == cells {
		return 0 // the root played the last stone without a four
	}
	possible := nonLosing(cur, mask)
	if possible == 0 {
		return -(WinScore + (cells-n)/2)
	}
	if n >= cells-2 {
		return 0
	}
	if depth <= 0 {
		return evaluate(cur, mask)
	}
	var moves [width]uint64
	k := orderMoves(cur, mask, possible, &moves)
	best := -(WinScore + cells)
	for i := 0; i < k; i++ {
		v := -h.search(cur^mask, mask|moves[i], n+1, depth-1, -beta, -alpha)
		if v >= beta {
			return v
		}
		if v > best {
			best = v
			alpha = max(alpha, v)
		}
	}
	return best
}

// orderMoves writes the cells of possible into moves, most new winning
// cells first, centre first among equals, and returns how many.
func orderMoves(cur, mask, possible uint64, moves *[width]uint64) int {
	var score [width]int
	k := 0
	for _, c := range order {
		m := possible & colMask[c]
		if m == 0 {
			continue
		}
		sc := bits.OnesCount64(connect4.WinningCells(cur|m, mask))
		j := k
		for j > 0 && score[j-1] < sc {
			moves[j], score[j] = moves[j-1], score[j-1]
			j--
		}
		moves[j], score[j] = m, sc
		k++
	}
	return k
}

// moveColumn returns the column of a one-cell move.
func moveColumn(m uint64) int { return bits.TrailingZeros64(m) / colBit }
