package connect4

import (
	"math/bits"

	"github.com/tabula-zero/tabula/game"
)

// Hooks for the generic alpha-beta searcher (package alphabeta).

// cellWeight[i] for bitboard cell i is the number of four-in-a-row lines
// through the cell: the seed's heuristic weights (3 4 5 7 5 4 3 on the
// bottom row, 13 at the centre). Counted rather than copied: the seed's
// printed table has 9 where the count is 10 (column 4, rows 2 and 5).
var cellWeight [64]int

func init() {
	for col := 0; col < Width; col++ {
		for row := 0; row < Height; row++ {
			n := 0
			for _, d := range [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
				for k := 0; k < 4; k++ { // lines starting k steps back
					c0, r0 := col-k*d[0], row-k*d[1]
					c3, r3 := c0+3*d[0], r0+3*d[1]
					if c0 >= 0 && c0 < Width && r0 >= 0 && r0 < Height && c3 >= 0 && c3 < Width && r3 >= 0 && r3 < Height {
						n++
					}
				}
			}
			cellWeight[col*(Height+1)+row] = n
		}
	}
}

// CellWeight returns the heuristic weight of the cell at column col
// (0-6) and row (0 = bottom).
func CellWeight(col, row int) int { return cellWeight[col*(Height+1)+row] }

// Evaluate is the seed's heuristic: the weights of the side to move's
// stones minus the opponent's (|value| <= 100).
func (p *Position) Evaluate() int {
	return weightSum(p.current) - weightSum(p.current^p.mask)
}

func weightSum(b uint64) int {
	s := 0
	for ; b != 0; b &= b - 1 {
		s += cellWeight[bits.TrailingZeros64(b)]
	}
	return s
}

// QuietScore orders moves as the seed does: by the number of winning
// cells (threats) the move creates, then centre columns first.
func (p *Position) QuietScore(m game.Move) int {
	col := MoveColumn(m)
	mv := (p.mask + bottomMask(col)) & ColumnMask(col)
	threats := bits.OnesCount64(WinningCells(p.current|mv, p.mask|mv))
	centre := Width/2 - abs(col-Width/2)
	return threats*8 + centre
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// InCheck is false: Connect Four has no check.
func (p *Position) InCheck() bool { return false }

// GenerateCaptures returns no moves: Connect Four has no captures, so
// quiescence search stands pat.
func (p *Position) GenerateCaptures(dst []game.Move) []game.Move { return dst[:0] }

// MoveValues is zero for every move (no captures).
func (p *Position) MoveValues(game.Move) (captured, mover int) { return 0, 0 }

// RuleStatus is Status: every Connect Four ending is decided by the board.
func (p *Position) RuleStatus() game.Status { return p.Status() }
