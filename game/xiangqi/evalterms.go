package xiangqi

import (
	"fmt"
	"math/bits"

	"github.com/tabula-zero/tabula/game"
)

// The evaluation is linear: Evaluate = Σ evalWeights[i]·term[i] /
// WeightScale, every term counted from the side to move's view. Most terms
// are a side's count minus the opponent's; the tempo is the side to
// move's own. EvalTerms exposes the terms so that Texel's
// method can fit the weights to game results (package alphabeta/texel).
const (
	// Material: pieces of each type (the general is always there).
	TermAdvisor = iota
	TermElephant
	TermHorse
	TermRook
	TermCannon
	TermSoldier
	TermCrossedSoldier // soldiers across the river, on top of TermSoldier
	// Piece-square tables: the sum of pst over the pieces of each type;
	// the weight scales the hand-made table.
	TermTableKing
	TermTableAdvisor
	TermTableElephant
	TermTableHorse
	TermTableRook
	TermTableCannon
	TermTableSoldier
	// Mobility: the moves of chariots, horses and cannons (pseudo-legal,
	// to empty squares and onto enemy pieces).
	TermRookMobility
	TermHorseMobility
	TermCannonMobility
	// King safety, counted for the attacker: squares of the enemy palace
	// the side attacks; its cannons facing the enemy general with nothing
	// between (the hollow cannon, one screen away from check); missing
	// enemy advisors and elephants, each times the side's chariots,
	// horses and cannons; the square of the number of the side's pieces
	// that attack the enemy palace (an attack grows with its attackers
	// faster than linearly, as Stockfish's king danger counts them).
	TermPalaceAttacks
	TermHollowCannon
	TermMissingAdvisors
	TermMissingElephants
	TermKingAttackers
	// Tempo: 1 for the side to move.
	TermTempo
	NumEvalTerms

	firstDynamicTerm = TermRookMobility
)

// WeightScale: weights are in 1/WeightScale centi-units.
const WeightScale = 16

var evalTermNames = [NumEvalTerms]string{
	"advisor", "elephant", "horse", "rook", "cannon", "soldier", "crossed_soldier",
	"table_king", "table_advisor", "table_elephant", "table_horse", "table_rook", "table_cannon", "table_soldier",
	"rook_mobility", "horse_mobility", "cannon_mobility",
	"palace_attacks", "hollow_cannon", "missing_advisors", "missing_elephants", "king_attackers",
	"tempo",
}

// EvalTermNames names the terms of EvalTerms, in order.
func EvalTermNames() []string { return evalTermNames[:] }

// EvalWeights returns the weights Evaluate uses, in 1/WeightScale
// centi-units.
func EvalWeights() []int32 { return append([]int32(nil), evalWeights[:]...) }

// SetEvalWeights replaces the weights of every position's Evaluate (for
// tuning and A/B matches; not safe while positions are evaluated).
func SetEvalWeights(w []int32) error {
	if len(w) != NumEvalTerms {
		return fmt.Errorf("xiangqi: %d evaluation weights, want %d (%v)", len(w), NumEvalTerms, evalTermNames)
	}
	copy(evalWeights[:], w)
	initEval()
	return nil
}

// EvalTerms writes the evaluation's terms for the current position into
// dst (NumEvalTerms long) and returns it; Evaluate is their dot product
// with EvalWeights divided by WeightScale.
func (p *Position) EvalTerms(dst []int32) []int32 {
	var t [NumEvalTerms]int32
	var own [2][NumEvalTerms]int32
	for id := 0; id < 32; id++ {
		sq := int(p.squares[id])
		if sq < 0 {
			continue
		}
		c := id >> 4
		pt := pieceTermsOf(uint8(id+1), sq)
		if pt.material >= 0 {
			own[c][pt.material]++
		}
		if pt.crossed {
			own[c][TermCrossedSoldier]++
		}
		own[c][pt.table] += pt.pst
	}
	us := p.side
	for i := range firstDynamicTerm {
		t[i] = own[us][i] - own[us^1][i]
	}
	p.dynamicTerms(&t)
	return append(dst[:0], t[:]...)
}

// pieceTerms are the material and table terms a piece adds to its owner.
type pieceTerms struct {
	material int   // its material term; -1 for the general
	crossed  bool  // a soldier across the river
	table    int   // its table term
	pst      int32 // its table value
}

// pieceTermsOf returns the terms of board value v on sq; Evaluate's
// tables and EvalTerms both count pieces through it.
func pieceTermsOf(v uint8, sq int) pieceTerms {
	t := int(valType[v])
	r := rankOf(sq)
	if valColor[v] == 1 {
		r = Ranks - 1 - r
	}
	pt := pieceTerms{material: -1, crossed: t == Pawn && r >= 5, table: TermTableKing + t - King, pst: int32(pst[t][r][fileOf(sq)])}
	if t != King {
		pt.material = TermAdvisor + t - Advisor
	}
	return pt
}

// palaceIndex[c][sq] numbers the squares of c's palace 0-8, -1 elsewhere.
var palaceIndex [2][NumSquares]int8

// initPalaceIndex runs from init, after the palace tables.
func initPalaceIndex() {
	for c := range palaceIndex {
		for sq := range palaceIndex[c] {
			palaceIndex[c][sq] = -1
			if inPalace[c][sq] {
				r := rankOf(sq)
				if c == 1 {
					r -= Ranks - 3
				}
				palaceIndex[c][sq] = int8(r*3 + fileOf(sq) - 3)
			}
		}
	}
}

// dynamicTerms fills the terms from firstDynamicTerm on in one pass over
// the pieces. It builds no attack map: only the enemy palace's squares
// are tracked (a 9-bit set per side), slider attacks entering it as line
// masks.
func (p *Position) dynamicTerms(t *[NumEvalTerms]int32) {
	var d [2][NumEvalTerms]int32
	var palace [2]uint16   // enemy palace squares attacked, by attacker
	var attackers [2]int32 // chariots, horses and cannons
	var kingAttackers [2]int32
	for id := 0; id < 32; id++ {
		s := int(p.squares[id])
		if s < 0 {
			continue
		}
		c := uint8(id >> 4)
		var hits uint16 // the enemy palace squares this piece attacks
		switch idType[id&15] {
		case Horse:
			attackers[c]++
			var mob int32
			for i := uint8(0); i < horseN[s]; i++ {
				if e := horseMoves[s][i]; p.board[e.leg] == 0 {
					if valColor[p.board[e.to]] != c {
						mob++
					}
					if j := palaceIndex[c^1][e.to]; j >= 0 {
						hits |= 1 << j
					}
				}
			}
			d[c][TermHorseMobility] += mob
		case Rook, Cannon:
			attackers[c]++
			r, f := rankOf(s), fileOf(s)
			re, fe := &rankLine[f][p.rankOcc[r]], &fileLine[r][p.fileOcc[f]]
			rc, fc, term := re.cannonCap, fe.cannonCap, TermCannonMobility
			rAtt, fAtt := rc, fc
			if idType[id&15] == Rook {
				rc, fc, term = re.rookCap, fe.rookCap, TermRookMobility
				rAtt, fAtt = rc|re.quiet, fc|fe.quiet
			}
			mob := bits.OnesCount16(re.quiet) + bits.OnesCount16(fe.quiet)
			for m := rc; m != 0; m &= m - 1 {
				if valColor[p.board[r*Files+trailing(m)]] == c^1 {
					mob++
				}
			}
			for m := fc; m != 0; m &= m - 1 {
				if valColor[p.board[trailing(m)*Files+f]] == c^1 {
					mob++
				}
			}
			d[c][term] += int32(mob)
			hits = palaceLines(c^1, r, f, rAtt, fAtt)
		case Pawn:
			for i := uint8(0); i < pawnN[c][s]; i++ {
				if j := palaceIndex[c^1][pawnMoves[c][s][i]]; j >= 0 {
					hits |= 1 << j
				}
			}
		}
		if hits != 0 {
			palace[c] |= hits
			kingAttackers[c]++
		}
	}
	for c := uint8(0); c < 2; c++ {
		e := c ^ 1 // the enemy whose general c attacks
		d[c][TermPalaceAttacks] = int32(bits.OnesCount16(palace[c]))
		d[c][TermHollowCannon] = p.hollowCannons(int(p.squares[kingVal(game.Color(e))-1]), c)
		base := int(e) * 16
		var adv, ele int32
		for i := firstID[Advisor]; i < firstID[Horse]; i++ {
			if p.squares[base+int(i)] >= 0 {
				if idType[i] == Advisor {
					adv++
				} else {
					ele++
				}
			}
		}
		d[c][TermMissingAdvisors] = (2 - adv) * attackers[c]
		d[c][TermMissingElephants] = (2 - ele) * attackers[c]
		d[c][TermKingAttackers] = kingAttackers[c] * kingAttackers[c]
	}
	us := uint8(p.side)
	for i := firstDynamicTerm; i < TermTempo; i++ {
		t[i] = d[us][i] - d[us^1][i]
	}
	t[TermTempo] = 1
}

// palaceLines returns, as palace indexes, the squares of e's palace among
// a slider's attacks from (r, f): rank holds the attacked files of rank
// r, file the attacked ranks of file f.
func palaceLines(e uint8, r, f int, rank, file uint16) uint16 {
	r0 := 0 // e's first palace rank
	if e == 1 {
		r0 = Ranks - 3
	}
	var set uint16
	if r >= r0 && r < r0+3 {
		set |= (rank >> 3 & 7) << ((r - r0) * 3)
	}
	if f >= 3 && f <= 5 {
		for m := file >> r0 & 7; m != 0; m &= m - 1 {
			set |= 1 << (trailing(m)*3 + f - 3)
		}
	}
	return set
}

// hollowCannons counts c's cannons that are the first piece seen from the
// general on k along its rank or file.
func (p *Position) hollowCannons(k int, c uint8) int32 {
	r, f := rankOf(k), fileOf(k)
	var n int32
	is := func(v uint8) bool { return valColor[v] == c && valType[v] == Cannon }
	for m := rankLine[f][p.rankOcc[r]].rookCap; m != 0; m &= m - 1 {
		if is(p.board[r*Files+trailing(m)]) {
			n++
		}
	}
	for m := fileLine[r][p.fileOcc[f]].rookCap; m != 0; m &= m - 1 {
		if is(p.board[trailing(m)*Files+f]) {
			n++
		}
	}
	return n
}
