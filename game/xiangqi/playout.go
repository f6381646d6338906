package xiangqi

import (
	"sync"

	"github.com/tabula-zero/tabula/game"
)

// This file draws uniformly random legal moves for random playouts
// (package rollout detects RandomMove) without generating every legal
// move at every step.

// Random move drawing in two stages, each exactly uniform over the legal
// moves, so that their combination is too:
//
//  1. Slots, with replacement (not in check). Every piece of the side to
//     move has a fixed number of move slots given by its type and square
//     alone: the entries of its step table (general, advisor, elephant,
//     horse, soldier) or, for a chariot or cannon, the 9 squares of its
//     rank and the 10 of its file. A slot drawn uniformly from all of
//     them is a pseudo-legal move or nothing (a blocked leg, an own piece,
//     a square the slider cannot reach, its own square); the move is then
//     tested for legality. A draw lands on each legal move with the same
//     probability 1/(all slots), so an accepted draw is uniform over the
//     legal moves; a rejected one is redrawn independently (with
//     replacement). After slotTries rejections (a position with few legal
//     moves, or none) stage 2 starts afresh. The probability of returning
//     a legal move m is then sum over t of P(t-1 rejections)/(all slots)
//     plus P(slotTries rejections) times stage 2's 1/|legal|: the same
//     for every m.
//  2. The list, without replacement (in check, or after stage 1 gave up).
//     The pseudo-legal moves are generated (genPseudo), one is drawn
//     uniformly and tested for legality alone; an illegal one is removed
//     and the draw repeated among the rest. Drawing without replacement
//     until the first legal move takes the first legal move of a
//     uniformly random permutation of the pseudo-legal moves, and by
//     symmetry every legal move is first among the legal ones with
//     probability 1/|legal|. When all are removed there is no legal move.
//
// The legality test is GenerateMoves's (legal, attacked): the own general
// is not attacked after the move and the generals do not face each other.

// slotTries is the number of stage-1 draws before stage 2. About half of
// the slots are legal moves (the start position: 44 of 96; positions of
// random games: 46 % on average), so 12 draws all fail in under 1 % of
// such positions; positions with few legal moves or none fall through to
// the list after a dozen cheap draws.
const slotTries = 12

// sliderSlots is the number of slots of a chariot or cannon: its rank's 9
// squares, then its file's 10 (its own square twice, always empty slots).
const sliderSlots = Files + Ranks

// pieceSlots[c][j][s] is the number of slots of piece id j (within its
// side's 16) of side c on square s. It is filled on first use: it is built
// from the step tables, which tables.go's init fills after this file's
// init would run (init functions run in file-name order).
var (
	pieceSlots     [2][16][NumSquares]uint8
	pieceSlotsOnce sync.Once
)

func initPieceSlots() {
	for c := range 2 {
		for j := range 16 {
			for s := range NumSquares {
				var n uint8
				switch idType[j] {
				case King:
					n = kingN[s]
				case Advisor:
					n = advN[s]
				case Elephant:
					n = elephN[s]
				case Horse:
					n = horseN[s]
				case Rook, Cannon:
					n = sliderSlots
				case Pawn:
					n = pawnN[c][s]
				}
				pieceSlots[c][j][s] = n
			}
		}
	}
}

// RandomMove draws a legal move of the side to move uniformly at random
// (see the comment above for why the distribution is exactly uniform). It
// reports false when there is no legal move: the side to move has lost
// (Status: ReasonNoMoves). intn(n) must return a uniform integer in
// [0, n), n > 0. The position is left unchanged and nothing is allocated.
func (p *Position) RandomMove(intn func(n int) int) (game.Move, bool) {
	pieceSlotsOnce.Do(initPieceSlots)
	k := int(p.squares[kingVal(p.side)-1])
	if !p.checked {
		if m, ok := p.randomSlot(intn, k); ok {
			return m, true
		}
	}
	return p.randomFromList(intn, k)
}

// randomSlot is stage 1: up to slotTries uniform slot draws; it returns
// the first that is a legal move. k is the general's square (not in check).
func (p *Position) randomSlot(intn func(n int) int, k int) (game.Move, bool) {
	us := uint8(p.side)
	base := int(us) * 16
	var slots [16]uint8
	total := 0
	for j := range 16 {
		if s := p.squares[base+j]; s >= 0 {
			c := pieceSlots[us][j][s]
			slots[j] = c
			total += int(c)
		}
	}
	if total == 0 {
		return game.NoMove, false
	}
	for range slotTries {
		i := intn(total)
		j := 0
		for i >= int(slots[j]) {
			i -= int(slots[j])
			j++
		}
		s := int(p.squares[base+j])
		to := p.slotTarget(idType[j], s, i)
		if to < 0 {
			continue
		}
		if m := newMove(s, to); p.legal(m, k, false) {
			return m, true
		}
	}
	return game.NoMove, false
}

// slotTarget returns the target square of slot i of the piece of type t
// of the side to move on s when the slot is a pseudo-legal move, else -1.
// The pseudo-legal moves of a piece are exactly its non-empty slots, each
// once (the moves genPseudo writes for it).
func (p *Position) slotTarget(t uint8, s, i int) int {
	us := uint8(p.side)
	to := -1
	switch t {
	case King:
		to = int(kingMoves[s][i])
	case Advisor:
		to = int(advMoves[s][i])
	case Elephant:
		e := elephMoves[s][i]
		if p.board[e.leg] != 0 {
			return -1
		}
		to = int(e.to)
	case Horse:
		e := horseMoves[s][i]
		if p.board[e.leg] != 0 {
			return -1
		}
		to = int(e.to)
	case Pawn:
		to = int(pawnMoves[us][s][i])
	case Rook, Cannon:
		r, f := rankOf(s), fileOf(s)
		var e *lineEntry
		var bit uint16
		if i < Files {
			e, bit, to = &rankLine[f][p.rankOcc[r]], 1<<i, r*Files+i
		} else {
			i -= Files
			e, bit, to = &fileLine[r][p.fileOcc[f]], 1<<i, i*Files+f
		}
		if e.quiet&bit != 0 {
			return to
		}
		capt := e.cannonCap
		if t == Rook {
			capt = e.rookCap
		}
		if capt&bit != 0 && valColor[p.board[to]] == us^1 {
			return to
		}
		return -1
	}
	if valColor[p.board[to]] == us {
		return -1
	}
	return to
}

// randomFromList is stage 2: draws without replacement from the
// pseudo-legal list until a legal move. k is the general's square.
func (p *Position) randomFromList(intn func(n int) int, k int) (game.Move, bool) {
	var ml [MaxMoves]game.Move
	n := p.genPseudo(&ml)
	for n > 0 {
		i := intn(n)
		m := ml[i]
		if p.legal(m, k, p.checked) {
			return m, true
		}
		n--
		ml[i] = ml[n]
	}
	return game.NoMove, false
}

// PseudoMoves appends the pseudo-legal moves of the side to move to
// dst[:0]: every legal move and the moves that leave the own general
// attacked or facing the other (package rollout's MAST playouts draw from
// them and test the draw with LegalPseudo). It allocates only when dst
// holds fewer than MaxMoves.
func (p *Position) PseudoMoves(dst []game.Move) []game.Move {
	if cap(dst) >= MaxMoves {
		n := p.genPseudo((*[MaxMoves]game.Move)(dst[:MaxMoves]))
		return dst[:n]
	}
	var ml [MaxMoves]game.Move
	n := p.genPseudo(&ml)
	return append(dst[:0], ml[:n]...)
}

// LegalPseudo reports whether m, one of PseudoMoves's moves here, is legal.
func (p *Position) LegalPseudo(m game.Move) bool {
	return p.legal(m, int(p.squares[kingVal(p.side)-1]), p.checked)
}
