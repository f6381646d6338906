package lion

import "github.com/tabula-zero/tabula/game"

// PieceAt returns the type (Chick, Giraffe, Elephant, Lion or Hen) and
// colour of the piece on square s (rank*3 + file, a1 = 0), ok false when
// the square is empty. Tablebases and other exact solvers read positions
// through it without going through text.
func (p *Position) PieceAt(s int) (t int, c game.Color, ok bool) {
	pc := p.sq[s]
	if pc == 0 {
		return 0, 0, false
	}
	return typeOf(pc), colorOf(pc), true
}

// InHand returns how many pieces of type t (Chick, Giraffe or Elephant)
// colour c holds in hand.
func (p *Position) InHand(c game.Color, t int) int { return int(p.hand[c][t]) }
