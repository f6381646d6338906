package xiangqi

import (
	"testing"

	"github.com/tabula-zero/tabula/game"
)

// The piece list views agree with the board on random positions: every
// piece of PieceSquares is on the board with its id's colour and type,
// every piece on the board is listed, and GeneralSquare finds the
// generals.
func TestPieceViews(t *testing.T) {
	for _, gp := range randomPositions(4, 10) {
		p := gp.(*Position)
		listed := 0
		for id, sq := range p.PieceSquares() {
			if sq < 0 {
				continue
			}
			listed++
			c, ty := p.PieceAt(int(sq))
			if c != game.Color(id>>4) || ty != PieceIDType(id) {
				t.Fatalf("%s: id %d on %d is %d %d on the board", p, id, sq, c, ty)
			}
		}
		onBoard := 0
		for sq := range NumSquares {
			if _, ty := p.PieceAt(sq); ty != NoType {
				onBoard++
			}
		}
		if listed != onBoard {
			t.Fatalf("%s: %d pieces listed, %d on the board", p, listed, onBoard)
		}
		for c := game.First; c <= game.Second; c++ {
			if col, ty := p.PieceAt(p.GeneralSquare(c)); col != c || ty != King {
				t.Fatalf("%s: GeneralSquare(%d) = %d holds %d %d", p, c, p.GeneralSquare(c), col, ty)
			}
		}
	}
	if PieceIDType(0) != King || PieceIDType(16) != King || PieceIDType(31) != Pawn || PieceIDType(7) != Rook {
		t.Errorf("PieceIDType does not follow the id order")
	}
}
