package xiangqi

import "github.com/tabula-zero/tabula/game"

// seeOrder lists the piece types from the least valuable: the order in
// which an exchange brings in its attackers, the general last.
var seeOrder = [...]uint8{Pawn, Advisor, Elephant, Horse, Cannon, Rook, King}

// SEE returns the static exchange evaluation of move m by the side to
// move: the material it wins on m's target when both sides then take
// turns recapturing there with their least valuable piece, each free to
// stop. Lines, screens and horse legs follow the pieces as they go; pins
// are ignored, and the general takes only a piece nothing defends.
func (p *Position) SEE(m game.Move) int {
	to := To(m)
	gain := material[valType[p.board[to]]]
	cap := p.doMove(m)
	v := gain - p.seeOn(to, uint8(p.side))
	p.undoMove(m, cap)
	return v
}

// seeOn returns what side by, to move, wins by starting an exchange on sq
// (0 when it does better not to).
func (p *Position) seeOn(sq int, by uint8) int {
	for _, t := range seeOrder {
		from := p.attackerOf(sq, by, t)
		if from < 0 {
			continue
		}
		victim := material[valType[p.board[sq]]]
		m := newMove(from, sq)
		cap := p.doMove(m)
		v := 0
		if t != King {
			v = victim - p.seeOn(sq, by^1)
		} else if !p.squareAttacked(sq, by^1) {
			v = victim
		}
		p.undoMove(m, cap)
		return max(0, v)
	}
	return 0
}
