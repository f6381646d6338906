package xiangqi

import "github.com/tabula-zero/tabula/game"

// MoveFeatures describes m, a legal move of the side to move, by the two
// binary move features of playout policy adaptation with move features
// (PPAF; package rollout, Xiangqi thesis §2.4.4): bit 0 when m captures,
// bit 1 when a piece of the opponent attacks m's target square once m is
// made (a pseudo-legal attack: pins are ignored; the square m leaves may
// open a line or a horse leg).
func (p *Position) MoveFeatures(m game.Move) uint8 {
	to := To(m)
	var f uint8
	if p.board[to] != 0 {
		f |= 1
	}
	cap := p.doMove(m)
	if p.squareAttacked(to, uint8(p.side)) {
		f |= 2
	}
	p.undoMove(m, cap)
	return f
}

// squareAttacked reports whether a piece of side by could move to sq
// (ignoring whether the move would leave its own general in check).
func (p *Position) squareAttacked(sq int, by uint8) bool {
	r, f := rankOf(sq), fileOf(sq)
	is := func(s int, t uint8) bool {
		v := p.board[s]
		return valColor[v] == by && valType[v] == t
	}
	// Chariots on the first piece of each line, cannons behind a screen.
	e := &rankLine[f][p.rankOcc[r]]
	for m := e.rookCap; m != 0; m &= m - 1 {
		if is(r*Files+trailing(m), Rook) {
			return true
		}
	}
	for m := e.cannonCap; m != 0; m &= m - 1 {
		if is(r*Files+trailing(m), Cannon) {
			return true
		}
	}
	e = &fileLine[r][p.fileOcc[f]]
	for m := e.rookCap; m != 0; m &= m - 1 {
		if is(trailing(m)*Files+f, Rook) {
			return true
		}
	}
	for m := e.cannonCap; m != 0; m &= m - 1 {
		if is(trailing(m)*Files+f, Cannon) {
			return true
		}
	}
	for i := uint8(0); i < horseAttN[sq]; i++ {
		h := horseAttacks[sq][i]
		if p.board[h.leg] == 0 && is(int(h.to), Horse) {
			return true
		}
	}
	// Elephant, advisor and general steps are symmetric: a piece on t
	// reaches sq exactly when sq's table lists t (for elephants, with the
	// same eye).
	for i := uint8(0); i < elephN[sq]; i++ {
		el := elephMoves[sq][i]
		if p.board[el.leg] == 0 && is(int(el.to), Elephant) {
			return true
		}
	}
	for i := uint8(0); i < advN[sq]; i++ {
		if is(int(advMoves[sq][i]), Advisor) {
			return true
		}
	}
	for i := uint8(0); i < kingN[sq]; i++ {
		if is(int(kingMoves[sq][i]), King) {
			return true
		}
	}
	// Soldiers: from behind sq (seen from by) or beside it.
	cand := [4]int{sq - Files, sq + Files, -1, -1}
	if f > 0 {
		cand[2] = sq - 1
	}
	if f < Files-1 {
		cand[3] = sq + 1
	}
	for _, s := range cand {
		if s >= 0 && s < NumSquares && is(s, Pawn) && p.pawnReaches(s, sq, by) {
			return true
		}
	}
	return false
}

// pawnReaches reports whether a soldier of side c on s can step to t.
func (p *Position) pawnReaches(s, t int, c uint8) bool {
	for i := uint8(0); i < pawnN[c][s]; i++ {
		if int(pawnMoves[c][s][i]) == t {
			return true
		}
	}
	return false
}
