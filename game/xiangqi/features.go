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
	for t := uint8(King); t < numTypes; t++ {
		if p.attackerOf(sq, by, t) >= 0 {
			return true
		}
	}
	return false
}

// attackerOf returns the square of a piece of side by and type t that
// could move to sq (ignoring whether the move would leave its own general
// in check), or -1 when there is none.
func (p *Position) attackerOf(sq int, by, t uint8) int {
	// The board holds id+1, and side by's pieces of type t have the ids
	// lo .. lo+n-1: one subtraction tells whether s holds one.
	lo, n := by*16+firstID[t]+1, typeCount[t]
	is := func(s int) bool { return p.board[s]-lo < n }
	switch t {
	case Rook, Cannon:
		// Chariots on the first piece of each line, cannons behind a screen.
		r, f := rankOf(sq), fileOf(sq)
		re, fe := &rankLine[f][p.rankOcc[r]], &fileLine[r][p.fileOcc[f]]
		rm, fm := re.rookCap, fe.rookCap
		if t == Cannon {
			rm, fm = re.cannonCap, fe.cannonCap
		}
		for m := rm; m != 0; m &= m - 1 {
			if s := r*Files + trailing(m); is(s) {
				return s
			}
		}
		for m := fm; m != 0; m &= m - 1 {
			if s := trailing(m)*Files + f; is(s) {
				return s
			}
		}
	case Horse:
		for i := uint8(0); i < horseAttN[sq]; i++ {
			if h := horseAttacks[sq][i]; p.board[h.leg] == 0 && is(int(h.to)) {
				return int(h.to)
			}
		}
	// Elephant, advisor and general steps are symmetric: a piece on s
	// reaches sq exactly when sq's table lists s (for elephants, with the
	// same eye).
	case Elephant:
		for i := uint8(0); i < elephN[sq]; i++ {
			if el := elephMoves[sq][i]; p.board[el.leg] == 0 && is(int(el.to)) {
				return int(el.to)
			}
		}
	case Advisor:
		for i := uint8(0); i < advN[sq]; i++ {
			if s := int(advMoves[sq][i]); is(s) {
				return s
			}
		}
	case King:
		for i := uint8(0); i < kingN[sq]; i++ {
			if s := int(kingMoves[sq][i]); is(s) {
				return s
			}
		}
	case Pawn:
		// From behind sq (seen from by) or beside it.
		f := fileOf(sq)
		cand := [4]int{sq - Files, sq + Files, -1, -1}
		if f > 0 {
			cand[2] = sq - 1
		}
		if f < Files-1 {
			cand[3] = sq + 1
		}
		for _, s := range cand {
			if s >= 0 && s < NumSquares && is(s) && p.pawnReaches(s, sq, by) {
				return s
			}
		}
	}
	return -1
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
