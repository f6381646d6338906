package xiangqi

import (
	"math/bits"

	"github.com/tabula-zero/tabula/game"
)

// This file is the hot path: pseudo-legal generation, the legality filter
// and perft. Nothing here allocates.

func trailing(m uint16) int { return bits.TrailingZeros16(m) }

// genPseudo writes the pseudo-legal moves of the side to move into ml and
// returns their number.
func (p *Position) genPseudo(ml *[MaxMoves]game.Move) int { return p.gen(ml, false) }

// targetOK[captures][us][valColor of the target]: whether a step onto the
// target is generated: onto an empty or enemy point, or an enemy one only.
var targetOK = [2][2][3]bool{
	{{false, true, true}, {true, false, true}},
	{{false, true, false}, {true, false, false}},
}

// gen writes the pseudo-legal moves, or with captures only those that
// capture (quiescence search's moves), into ml and returns their number.
func (p *Position) gen(ml *[MaxMoves]game.Move, captures bool) int {
	us := p.side
	ok := &targetOK[0][us]
	if captures {
		ok = &targetOK[1][us]
	}
	n := 0
	base := int(us) * 16
	for id := base; id < base+16; id++ {
		s := int(p.squares[id])
		if s < 0 {
			continue
		}
		switch idType[id&15] {
		case King:
			for i := uint8(0); i < kingN[s]; i++ {
				t := int(kingMoves[s][i])
				if ok[valColor[p.board[t]]] {
					ml[n] = newMove(s, t)
					n++
				}
			}
		case Advisor:
			for i := uint8(0); i < advN[s]; i++ {
				t := int(advMoves[s][i])
				if ok[valColor[p.board[t]]] {
					ml[n] = newMove(s, t)
					n++
				}
			}
		case Elephant:
			for i := uint8(0); i < elephN[s]; i++ {
				e := elephMoves[s][i]
				if p.board[e.leg] == 0 && ok[valColor[p.board[e.to]]] {
					ml[n] = newMove(s, int(e.to))
					n++
				}
			}
		case Horse:
			for i := uint8(0); i < horseN[s]; i++ {
				e := horseMoves[s][i]
				if p.board[e.leg] == 0 && ok[valColor[p.board[e.to]]] {
					ml[n] = newMove(s, int(e.to))
					n++
				}
			}
		case Rook, Cannon:
			n = p.genSlider(ml, n, s, idType[id&15] == Rook, captures)
		case Pawn:
			for i := uint8(0); i < pawnN[us][s]; i++ {
				t := int(pawnMoves[us][s][i])
				if ok[valColor[p.board[t]]] {
					ml[n] = newMove(s, t)
					n++
				}
			}
		}
	}
	return n
}

func (p *Position) genSlider(ml *[MaxMoves]game.Move, n, s int, rook, captures bool) int {
	us := uint8(p.side)
	r, f := rankOf(s), fileOf(s)
	re := &rankLine[f][p.rankOcc[r]]
	fe := &fileLine[r][p.fileOcc[f]]
	row := r * Files
	if !captures {
		for m := re.quiet; m != 0; m &= m - 1 {
			ml[n] = newMove(s, row+trailing(m))
			n++
		}
		for m := fe.quiet; m != 0; m &= m - 1 {
			ml[n] = newMove(s, trailing(m)*Files+f)
			n++
		}
	}
	rc, fc := re.cannonCap, fe.cannonCap
	if rook {
		rc, fc = re.rookCap, fe.rookCap
	}
	for m := rc; m != 0; m &= m - 1 {
		t := row + trailing(m)
		if valColor[p.board[t]] == us^1 {
			ml[n] = newMove(s, t)
			n++
		}
	}
	for m := fc; m != 0; m &= m - 1 {
		t := trailing(m)*Files + f
		if valColor[p.board[t]] == us^1 {
			ml[n] = newMove(s, t)
			n++
		}
	}
	return n
}

// legal reports whether pseudo-legal move m leaves the own general safe.
// k is the general's square and inCheck whether it is attacked now: when it
// is not, a move that touches neither the general's lines nor its horse-leg
// squares cannot expose it and needs no test.
func (p *Position) legal(m game.Move, k int, inCheck bool) bool {
	from, to := From(m), To(m)
	if !inCheck && from != k && sensitive[k][from]&1 == 0 && sensitive[k][to]&2 == 0 {
		return true
	}
	us := p.side
	cap := p.doMove(m)
	if from == k {
		k = to
	}
	ok := !p.attacked(k, us)
	p.undoMove(m, cap)
	return ok
}

// countLegal returns the number of legal moves (perft's bulk count).
func (p *Position) countLegal() int {
	var ml [MaxMoves]game.Move
	n := p.genPseudo(&ml)
	k := int(p.squares[kingVal(p.side)-1])
	inCheck := p.attacked(k, p.side)
	c := 0
	for i := 0; i < n; i++ {
		if p.legal(ml[i], k, inCheck) {
			c++
		}
	}
	return c
}

// genLegal writes the legal moves into ml and returns their number. It
// trusts p.checked, which Make, MakeNull and the FEN parser keep.
func (p *Position) genLegal(ml *[MaxMoves]game.Move) int {
	return p.filterLegal(ml, p.genPseudo(ml), int(p.squares[kingVal(p.side)-1]), p.checked)
}

// genLegalBare is genLegal for perft, whose doMove does not keep p.checked.
func (p *Position) genLegalBare(ml *[MaxMoves]game.Move) int {
	k := int(p.squares[kingVal(p.side)-1])
	return p.filterLegal(ml, p.genPseudo(ml), k, p.attacked(k, p.side))
}

// filterLegal keeps the legal ones of the n pseudo-legal moves in ml and
// returns their number; k is the general's square.
func (p *Position) filterLegal(ml *[MaxMoves]game.Move, n, k int, inCheck bool) int {
	j := 0
	for i := 0; i < n; i++ {
		if p.legal(ml[i], k, inCheck) {
			ml[j] = ml[i]
			j++
		}
	}
	return j
}

// GenerateMoves appends the legal moves to dst[:0].
func (p *Position) GenerateMoves(dst []game.Move) []game.Move {
	var ml [MaxMoves]game.Move
	n := p.genLegal(&ml)
	return append(dst[:0], ml[:n]...)
}

// LegalMoves writes the legal moves into ml and returns their number; it is
// the allocation-free form of GenerateMoves for search code.
func (p *Position) LegalMoves(ml *[MaxMoves]game.Move) int { return p.genLegal(ml) }

// Perft counts the leaves of the legal move tree to depth, counting the
// last ply in bulk. It allocates one buffer per call, nothing per node.
func (p *Position) Perft(depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	bufs := make([][MaxMoves]game.Move, depth)
	return p.perft(depth, bufs)
}

func (p *Position) perft(depth int, bufs [][MaxMoves]game.Move) uint64 {
	if depth == 1 {
		return uint64(p.countLegal())
	}
	ml := &bufs[depth-1]
	n := p.genLegalBare(ml)
	var total uint64
	for i := 0; i < n; i++ {
		m := ml[i]
		cap := p.doMove(m)
		total += p.perft(depth-1, bufs)
		p.undoMove(m, cap)
	}
	return total
}
