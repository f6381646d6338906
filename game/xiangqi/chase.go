package xiangqi

import (
	"math/bits"

	"github.com/tabula-zero/tabula/game"
)

// The perpetual-chase test follows Fairy-Stockfish's xiangqi chasing rule
// (Position::chased and the repetition part of is_optional_game_end, its
// AXF_CHASING rule) so that adjudication agrees with the usual peer. It runs
// only when a position occurs for the third time, so it favours plainness
// over speed: attack sets are rebuilt from the board for every question.

// sqSet is a set of squares (bit sq of the 90).
type sqSet [2]uint64

func (s *sqSet) add(sq int)          { s[sq>>6] |= 1 << uint(sq&63) }
func (s *sqSet) remove(sq int)       { s[sq>>6] &^= 1 << uint(sq&63) }
func (s sqSet) has(sq int) bool      { return s[sq>>6]&(1<<uint(sq&63)) != 0 }
func (s sqSet) and(t sqSet) sqSet    { return sqSet{s[0] & t[0], s[1] & t[1]} }
func (s sqSet) or(t sqSet) sqSet     { return sqSet{s[0] | t[0], s[1] | t[1]} }
func (s sqSet) andNot(t sqSet) sqSet { return sqSet{s[0] &^ t[0], s[1] &^ t[1]} }
func (s sqSet) empty() bool          { return s[0]|s[1] == 0 }
func (s sqSet) count() int           { return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) }
func (s sqSet) without(sq int) sqSet { s.remove(sq); return s }
func (s sqSet) with(sq int) sqSet    { s.add(sq); return s }
func (s sqSet) equal(t sqSet) bool   { return s == t }
func (s sqSet) forEach(f func(sq int)) {
	for w := 0; w < 2; w++ {
		for m := s[w]; m != 0; m &= m - 1 {
			f(w*64 + bits.TrailingZeros64(m))
		}
	}
}

// occupied returns the occupied squares.
func (p *Position) occupied() sqSet {
	var s sqSet
	for sq, v := range p.board {
		if v != 0 {
			s.add(sq)
		}
	}
	return s
}

// piecesOf returns the squares of side c's pieces whose type is in types
// (all types when types is empty).
func (p *Position) piecesOf(c uint8, types ...uint8) sqSet {
	var s sqSet
	for id := int(c) * 16; id < int(c)*16+16; id++ {
		sq := int(p.squares[id])
		if sq < 0 {
			continue
		}
		if len(types) == 0 {
			s.add(sq)
			continue
		}
		for _, t := range types {
			if idType[id&15] == t {
				s.add(sq)
			}
		}
	}
	return s
}

// crossed reports whether a soldier of side c on sq has crossed the river.
func crossed(c uint8, sq int) bool {
	if c == 0 {
		return rankOf(sq) >= 5
	}
	return rankOf(sq) <= 4
}

// attacksOn returns the squares a piece of side c and type t on sq attacks
// (captures on, whatever stands there) with the squares of occ occupied.
// The move tables already keep generals and advisors in their palace and
// elephants on their own side.
func attacksOn(c, t uint8, sq int, occ sqSet) sqSet {
	var s sqSet
	switch t {
	case King:
		for i := uint8(0); i < kingN[sq]; i++ {
			s.add(int(kingMoves[sq][i]))
		}
	case Advisor:
		for i := uint8(0); i < advN[sq]; i++ {
			s.add(int(advMoves[sq][i]))
		}
	case Elephant:
		for i := uint8(0); i < elephN[sq]; i++ {
			if e := elephMoves[sq][i]; !occ.has(int(e.leg)) {
				s.add(int(e.to))
			}
		}
	case Horse:
		for i := uint8(0); i < horseN[sq]; i++ {
			if e := horseMoves[sq][i]; !occ.has(int(e.leg)) {
				s.add(int(e.to))
			}
		}
	case Rook, Cannon:
		r, f := rankOf(sq), fileOf(sq)
		for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			screen := false
			for tr, tf := r+d[0], f+d[1]; onBoard(tr, tf); tr, tf = tr+d[0], tf+d[1] {
				t2 := tr*Files + tf
				if t == Rook {
					s.add(t2)
					if occ.has(t2) {
						break
					}
					continue
				}
				if !occ.has(t2) {
					continue
				}
				if screen {
					s.add(t2)
					break
				}
				screen = true
			}
		}
	case Pawn:
		for i := uint8(0); i < pawnN[c][sq]; i++ {
			s.add(int(pawnMoves[c][sq][i]))
		}
	}
	return s
}

// lineThrough returns the whole rank or file through a and b (empty when
// they share neither).
func lineThrough(a, b int) sqSet {
	var s sqSet
	switch {
	case rankOf(a) == rankOf(b):
		for f := 0; f < Files; f++ {
			s.add(rankOf(a)*Files + f)
		}
	case fileOf(a) == fileOf(b):
		for r := 0; r < Ranks; r++ {
			s.add(r*Files + fileOf(a))
		}
	}
	return s
}

// attackersTo returns the squares of side c's pieces that attack sq with
// the squares of occ occupied (FSF attackers_to: no flying general).
func (p *Position) attackersTo(sq int, occ sqSet, c uint8) sqSet {
	var s sqSet
	for id := int(c) * 16; id < int(c)*16+16; id++ {
		from := int(p.squares[id])
		if from >= 0 && attacksOn(c, idType[id&15], from, occ).has(sq) {
			s.add(from)
		}
	}
	return s
}

// blockers returns the pieces of either side whose removal would expose
// side c's general to a chariot (one piece between), a cannon (two pieces
// between: either one) or a horse (the piece on its leg): FSF's
// blockers_for_king, pinned pieces and discovered-check candidates alike.
func (p *Position) blockers(c uint8) sqSet {
	var b sqSet
	k := int(p.squares[kingVal(game.Color(c))-1])
	if k < 0 {
		return b
	}
	o := c ^ 1
	occ := p.occupied()
	// Snipers: pieces that would attack the general without a blocker.
	// Chariots and horses among them are lifted off the board for the count,
	// as FSF does.
	type sniper struct {
		sq, t   int
		between sqSet
	}
	var snipers []sniper
	var sliding sqSet
	for id := int(o) * 16; id < int(o)*16+16; id++ {
		s := int(p.squares[id])
		if s < 0 {
			continue
		}
		t := idType[id&15]
		switch t {
		case Rook, Cannon:
			if s == k || !sameLine(s, k) || attacksOn(o, t, s, occ).has(k) {
				continue
			}
			snipers = append(snipers, sniper{s, int(t), between(s, k)})
			if t == Rook {
				sliding.add(s)
			}
		case Horse:
			for i := uint8(0); i < horseAttN[k]; i++ {
				h := horseAttacks[k][i]
				if int(h.to) == s && occ.has(int(h.leg)) {
					var leg sqSet
					leg.add(int(h.leg))
					snipers = append(snipers, sniper{s, Horse, leg})
					sliding.add(s)
				}
			}
		}
	}
	for _, sn := range snipers {
		var on sqSet
		if sn.t == Cannon {
			on = sn.between.and(occ.without(sn.sq))
		} else {
			on = sn.between.and(occ.andNot(sliding))
		}
		if n := on.count(); n == 1 || (sn.t == Cannon && n == 2) {
			b = b.or(on)
		}
	}
	return b
}

// between returns the squares strictly between a and b on a rank or file.
func between(a, b int) sqSet {
	var s sqSet
	line := lineThrough(a, b)
	lo, hi := min(a, b), max(a, b)
	line.forEach(func(sq int) {
		if sq > lo && sq < hi {
			s.add(sq)
		}
	})
	return s
}

// chased returns the pieces of the side to move that the move m just made
// chases, FSF's Position::chased: pieces newly attacked by the moved piece
// or by a piece it unmasked, that are unprotected or worth more than the
// attacker (a horse or cannon on a chariot; an elephant or advisor on a
// chariot, cannon or horse); never the general or a soldier that has not
// crossed the river, nor a piece of the attacker's own type that could
// take back (unless pinned); plus pieces that lost a protector to a new
// pin and pieces hit by a piece that now gives discovered check. prevBlk
// is blockers(side to move) before m; captured tells whether m captured.
func (p *Position) chased(m game.Move, captured bool, prevBlk sqSet) sqSet {
	var b sqSet
	vs := uint8(p.side) // the chased side
	as := vs ^ 1        // the chasing side
	occ := p.occupied()
	vsPieces := p.piecesOf(vs)
	vsKing := int(p.squares[kingVal(game.Color(vs))-1])
	asKing := int(p.squares[kingVal(game.Color(as))-1])
	blk := p.blockers(vs)
	pins := blk
	// Flying general: the only piece between the generals cannot leave.
	if asKing >= 0 {
		var file sqSet
		vsPieces.forEach(func(sq int) {
			if fileOf(sq) == fileOf(asKing) {
				file.add(sq)
			}
		})
		if vsKing >= 0 && file.has(vsKing) && file.without(vsKing).count() <= 1 {
			pins = pins.or(file.without(vsKing))
		}
	}
	// The general and soldiers on their own side of the river are never
	// chased.
	var exempt sqSet
	if vsKing >= 0 {
		exempt.add(vsKing)
	}
	p.piecesOf(vs, Pawn).forEach(func(sq int) {
		if !crossed(vs, sq) {
			exempt.add(sq)
		}
	})
	add := func(asq int, at uint8, attacks sqSet) {
		if attacks.andNot(b).empty() {
			return
		}
		attacks = attacks.andNot(exempt)
		switch at {
		case Horse, Cannon:
			b = b.or(attacks.and(p.piecesOf(vs, Rook)))
		case Elephant, Advisor:
			b = b.or(attacks.and(p.piecesOf(vs, Rook, Cannon, Horse)))
		}
		// A piece of the same type could take back: not a chase, unless it
		// is pinned or (horses) its own leg is blocked.
		if at == Horse && !diagonalNeighbours(asq).and(occ).empty() {
			attacks.and(p.piecesOf(vs, Horse)).forEach(func(h int) {
				if attacksOn(vs, Horse, h, occ).has(asq) {
					attacks.remove(h)
				}
			})
		} else {
			attacks = attacks.andNot(p.piecesOf(vs, at).andNot(pins))
		}
		attacks.forEach(func(s int) {
			roots := p.attackersTo(s, occ.without(asq), vs).andNot(pins)
			var kingOnly sqSet
			kingOnly.add(vsKing)
			if roots.empty() || (roots.equal(kingOnly) && asKing >= 0 && attacksOn(as, Rook, asKing, occ.without(asq)).has(s)) {
				b.add(s)
			}
		})
	}

	from, to := From(m), To(m)
	mt := valType[p.board[to]]
	if mt != King && mt != Pawn {
		direct := attacksOn(as, mt, to, occ).and(vsPieces)
		if mt == Rook || mt == Cannon {
			// Only new attacks count: not those along the line moved on.
			direct = direct.andNot(lineThrough(from, to))
		}
		add(to, mt, direct)
	}

	// Discovered attacks: a horse whose leg or an elephant whose eye was
	// freed, a chariot or cannon on a line through from, a cannon that got
	// a new screen on a line through to.
	prevOcc := occ.with(from)
	if !captured {
		prevOcc.remove(to)
	}
	for id := int(as) * 16; id < int(as)*16+16; id++ {
		s := int(p.squares[id])
		if s < 0 {
			continue
		}
		t := idType[id&15]
		cand := false
		switch t {
		case Horse:
			cand = orthogonalNeighbours(from).has(s)
		case Elephant:
			cand = diagonalNeighbours(from).has(s)
		case Rook:
			cand = s != from && sameLine(s, from)
		case Cannon:
			cand = (s != from && sameLine(s, from)) || (s != to && sameLine(s, to))
		}
		if cand {
			disc := vsPieces.and(attacksOn(as, t, s, occ)).andNot(attacksOn(as, t, s, prevOcc))
			add(s, t, disc)
		}
	}

	// Fake protection: a protector newly pinned against its general.
	newPins := blk.andNot(prevBlk).and(vsPieces)
	asBlk := p.blockers(as)
	newPins.forEach(func(s int) {
		t := valType[p.board[s]]
		attacksOn(vs, t, s, occ).and(vsPieces).andNot(exempt).forEach(func(s2 int) {
			if !p.attackersTo(s2, occ, as).andNot(asBlk).empty() {
				b.add(s2)
			}
		})
	})
	// Discovered-check candidates: what they attack is chased unless the
	// general can take it back.
	var kingZone sqSet
	if vsKing >= 0 {
		kingZone = attacksOn(vs, King, vsKing, occ)
	}
	blk.andNot(prevBlk).and(p.piecesOf(as)).forEach(func(s int) {
		t := valType[p.board[s]]
		da := attacksOn(as, t, s, occ).and(vsPieces)
		b = b.or(da.andNot(kingZone))
		da.and(kingZone).forEach(func(s2 int) {
			if !p.attackersTo(s2, occ.without(s).without(vsKing), as).without(s).empty() {
				b.add(s2)
			}
		})
	})
	return b
}

func sameLine(a, b int) bool { return rankOf(a) == rankOf(b) || fileOf(a) == fileOf(b) }

func orthogonalNeighbours(sq int) sqSet {
	var s sqSet
	r, f := rankOf(sq), fileOf(sq)
	for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
		if onBoard(r+d[0], f+d[1]) {
			s.add((r+d[0])*Files + f + d[1])
		}
	}
	return s
}

func diagonalNeighbours(sq int) sqSet {
	var s sqSet
	r, f := rankOf(sq), fileOf(sq)
	for _, d := range [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
		if onBoard(r+d[0], f+d[1]) {
			s.add((r+d[0])*Files + f + d[1])
		}
	}
	return s
}

// undoMoveSet maps a set of squares back through move m: a piece m moved
// to To(m) stood on From(m) before it (FSF undo_move_board).
func undoMoveSet(s sqSet, m game.Move) sqSet {
	if s.has(To(m)) {
		s.remove(To(m))
		s.add(From(m))
	}
	return s
}
