package xiangqi

import (
	"fmt"
	"math/bits"

	"github.com/tabula-zero/tabula/game"
)

// The evaluation is linear: Evaluate = Σ evalWeights[i]·term[i] /
// WeightScale, every term counted from the side to move's view. Most terms
// are a side's count minus the opponent's; the threat terms and the tempo
// are the side to move's own. EvalTerms exposes the terms so that Texel's
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
	// horses and cannons.
	TermPalaceAttacks
	TermHollowCannon
	TermMissingAdvisors
	TermMissingElephants
	// Soldier structure: pairs of crossed soldiers side by side.
	TermSoldierPairs
	// Threats: pieces of the side to move (Us) and of the opponent (Them)
	// that are attacked and either undefended or attacked by a cheaper
	// piece.
	TermThreatenedUs
	TermThreatenedThem
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
	"palace_attacks", "hollow_cannon", "missing_advisors", "missing_elephants",
	"soldier_pairs", "threatened_us", "threatened_them", "tempo",
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
		v := id + 1
		c, ty := valColor[v], int(valType[v])
		r := rankOf(sq)
		if c == 1 {
			r = Ranks - 1 - r
		}
		if ty != King {
			own[c][TermAdvisor+ty-Advisor]++
		}
		if ty == Pawn && r >= 5 {
			own[c][TermCrossedSoldier]++
		}
		own[c][TermTableKing+ty-King] += int32(pst[ty][r][fileOf(sq)])
	}
	us := p.side
	for i := range firstDynamicTerm {
		t[i] = own[us][i] - own[us^1][i]
	}
	p.dynamicTerms(&t)
	return append(dst[:0], t[:]...)
}

// attackMap counts, for each side and square, the side's pieces that
// attack the square (own pieces included: that is defence) and the value
// of the cheapest of them.
type attackMap struct {
	n     [2][NumSquares]uint8
	least [2][NumSquares]uint8
}

// threatValue ranks pieces for "attacked by a cheaper piece".
var threatValue = [numTypes]uint8{0, 255, 2, 2, 4, 9, 5, 1}

func (a *attackMap) add(c uint8, sq int, v uint8) {
	a.n[c][sq]++
	if a.n[c][sq] == 1 || v < a.least[c][sq] {
		a.least[c][sq] = v
	}
}

func (a *attackMap) addLine(c uint8, m uint16, base, stride int, v uint8) {
	for ; m != 0; m &= m - 1 {
		a.add(c, base+trailing(m)*stride, v)
	}
}

// dynamicTerms fills the terms from firstDynamicTerm on: one pass over
// the pieces builds both sides' attacks and mobility, a second reads the
// threats and the king safety off them.
func (p *Position) dynamicTerms(t *[NumEvalTerms]int32) {
	var a attackMap
	var d [2][NumEvalTerms]int32
	var attackers [2]int32 // chariots, horses and cannons
	for id := 0; id < 32; id++ {
		s := int(p.squares[id])
		if s < 0 {
			continue
		}
		c := uint8(id >> 4)
		ty := idType[id&15]
		tv := threatValue[ty]
		switch ty {
		case King:
			for i := uint8(0); i < kingN[s]; i++ {
				a.add(c, int(kingMoves[s][i]), tv)
			}
		case Advisor:
			for i := uint8(0); i < advN[s]; i++ {
				a.add(c, int(advMoves[s][i]), tv)
			}
		case Elephant:
			for i := uint8(0); i < elephN[s]; i++ {
				if e := elephMoves[s][i]; p.board[e.leg] == 0 {
					a.add(c, int(e.to), tv)
				}
			}
		case Horse:
			attackers[c]++
			for i := uint8(0); i < horseN[s]; i++ {
				if e := horseMoves[s][i]; p.board[e.leg] == 0 {
					a.add(c, int(e.to), tv)
					if valColor[p.board[e.to]] != c {
						d[c][TermHorseMobility]++
					}
				}
			}
		case Rook, Cannon:
			attackers[c]++
			r, f := rankOf(s), fileOf(s)
			re, fe := &rankLine[f][p.rankOcc[r]], &fileLine[r][p.fileOcc[f]]
			rc, fc, term := re.cannonCap, fe.cannonCap, TermCannonMobility
			if ty == Rook {
				rc, fc, term = re.rookCap, fe.rookCap, TermRookMobility
				a.addLine(c, re.quiet, r*Files, 1, tv)
				a.addLine(c, fe.quiet, f, Files, tv)
			}
			a.addLine(c, rc, r*Files, 1, tv)
			a.addLine(c, fc, f, Files, tv)
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
		case Pawn:
			for i := uint8(0); i < pawnN[c][s]; i++ {
				a.add(c, int(pawnMoves[c][s][i]), tv)
			}
			// A pair counts once, from its left soldier.
			if r := rankOf(s); (c == 0) == (r >= 5) && fileOf(s) < Files-1 {
				if v := p.board[s+1]; valColor[v] == c && valType[v] == Pawn {
					d[c][TermSoldierPairs]++
				}
			}
		}
	}
	for id := 0; id < 32; id++ {
		s := int(p.squares[id])
		if s < 0 || id&15 == 0 {
			continue
		}
		c := uint8(id >> 4)
		if a.n[c^1][s] > 0 && (a.n[c][s] == 0 || a.least[c^1][s] < threatValue[idType[id&15]]) {
			d[c][TermThreatenedUs]++
		}
	}
	for c := uint8(0); c < 2; c++ {
		e := c ^ 1 // the enemy whose general c attacks
		k := int(p.squares[kingVal(game.Color(e))-1])
		for sq := 0; sq < NumSquares; sq++ {
			if inPalace[e][sq] && a.n[c][sq] > 0 {
				d[c][TermPalaceAttacks]++
			}
		}
		d[c][TermHollowCannon] = p.hollowCannons(k, c)
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
	}
	us := uint8(p.side)
	for i := firstDynamicTerm; i < TermThreatenedUs; i++ {
		t[i] = d[us][i] - d[us^1][i]
	}
	t[TermThreatenedUs] = d[us][TermThreatenedUs]
	t[TermThreatenedThem] = d[us^1][TermThreatenedUs]
	t[TermTempo] = 1
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
