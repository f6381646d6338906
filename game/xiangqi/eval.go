package xiangqi

import (
	"slices"

	"github.com/tabula-zero/tabula/game"
)

// Static evaluation for alpha-beta, in centi-units from the side to move's
// view: a linear function of the terms in evalterms.go (material,
// piece-square tables, mobility, king safety, tempo), with weights tuned by Texel's method (weights.go, written by tabula tune).
// Tables are written from Red's side, rank 0 first; Black reads them with
// ranks turned.

// material orders captures (MoveValues): CheapChess values (soldier 1,
// advisor 2, elephant 2, horse 4, cannon 4.5, chariot 9; times 100). The
// evaluation's own piece values are tuned weights.
var material = [numTypes]int{0, 0, 200, 200, 400, 900, 450, 100}

// Piece-square tables [rank][file], Red's view. Designed by hand: soldiers
// gain for approaching the palace through the centre files and lose on the
// last rank where they can only move sideways; horses want the centre and
// the enemy half but not the edges; chariots want open central ranks and
// files; cannons like the centre file and their own back ranks early; the
// general prefers its back rank. Advisors and elephants add little.
var pst = [numTypes][Ranks][Files]int{
	King: {
		{0, 0, 0, 5, 10, 5, 0, 0, 0},
		{0, 0, 0, -10, -5, -10, 0, 0, 0},
		{0, 0, 0, -25, -20, -25, 0, 0, 0},
	},
	Advisor: {
		{0, 0, 0, 0, 0, 0, 0, 0, 0},
		{0, 0, 0, 0, 5, 0, 0, 0, 0},
	},
	Elephant: {
		{0, 0, 0, 0, 0, 0, 0, 0, 0},
		{0, 0, 0, 0, 0, 0, 0, 0, 0},
		{-5, 0, 0, 0, 5, 0, 0, 0, -5},
	},
	Horse: {
		{-10, -5, 0, 0, -10, 0, 0, -5, -10},
		{-5, 0, 5, 5, -5, 5, 5, 0, -5},
		{0, 5, 10, 5, 10, 5, 10, 5, 0},
		{0, 5, 10, 10, 10, 10, 10, 5, 0},
		{0, 10, 15, 15, 15, 15, 15, 10, 0},
		{5, 15, 20, 20, 20, 20, 20, 15, 5},
		{5, 15, 25, 25, 25, 25, 25, 15, 5},
		{5, 20, 25, 30, 20, 30, 25, 20, 5},
		{0, 10, 20, 25, 10, 25, 20, 10, 0},
		{0, 0, 5, 10, 0, 10, 5, 0, 0},
	},
	Rook: {
		{-5, 5, 0, 5, 0, 5, 0, 5, -5},
		{0, 5, 5, 10, 0, 10, 5, 5, 0},
		{0, 5, 5, 10, 10, 10, 5, 5, 0},
		{5, 10, 10, 15, 15, 15, 10, 10, 5},
		{10, 15, 15, 20, 20, 20, 15, 15, 10},
		{10, 15, 15, 20, 20, 20, 15, 15, 10},
		{10, 15, 15, 20, 20, 20, 15, 15, 10},
		{10, 15, 15, 20, 20, 20, 15, 15, 10},
		{15, 20, 20, 25, 25, 25, 20, 20, 15},
		{10, 15, 15, 20, 20, 20, 15, 15, 10},
	},
	Cannon: {
		{5, 5, 10, 15, 15, 15, 10, 5, 5},
		{0, 5, 5, 5, 10, 5, 5, 5, 0},
		{0, 5, 5, 5, 15, 5, 5, 5, 0},
		{0, 0, 0, 0, 10, 0, 0, 0, 0},
		{0, 0, 5, 0, 10, 0, 5, 0, 0},
		{0, 0, 0, 0, 10, 0, 0, 0, 0},
		{0, 0, 0, 5, 10, 5, 0, 0, 0},
		{0, 0, 0, 5, 10, 5, 0, 0, 0},
		{0, 0, 0, 5, 5, 5, 0, 0, 0},
		{5, 5, 0, 0, 0, 0, 0, 5, 5},
	},
	Pawn: {
		{},
		{},
		{},
		{0, 0, 0, 0, 5, 0, 0, 0, 0},
		{0, 0, 0, 0, 10, 0, 0, 0, 0},
		{0, 5, 10, 15, 20, 15, 10, 5, 0},
		{5, 10, 20, 30, 35, 30, 20, 10, 5},
		{10, 20, 30, 40, 45, 40, 30, 20, 10},
		{5, 15, 25, 40, 50, 40, 25, 15, 5},
		{-30, -20, -10, 0, 0, 0, -10, -20, -30},
	},
}

// pieceValue[v][sq]: the material and table terms of board value v on sq
// times their weights, from its owner's view, in weight units; built from
// evalWeights so Evaluate is one look-up per piece. materialValue is the
// same without the tables.
var pieceValue, materialValue [33][NumSquares]int32

// dynamicWeights: some term beyond the tables has a weight, so Evaluate
// pays for the pass of dynamicTerms.
var dynamicWeights bool

func initEval() {
	w := &evalWeights
	dynamicWeights = slices.ContainsFunc(w[firstDynamicTerm:], func(x int32) bool { return x != 0 })
	for v := 1; v <= 32; v++ {
		for sq := 0; sq < NumSquares; sq++ {
			pt := pieceTermsOf(uint8(v), sq)
			var m int32
			if pt.material >= 0 {
				m = w[pt.material]
			}
			if pt.crossed {
				m += w[TermCrossedSoldier]
			}
			materialValue[v][sq] = m
			pieceValue[v][sq] = m + w[pt.table]*pt.pst
		}
	}
}

// Evaluate returns the static score for the side to move.
func (p *Position) Evaluate() int {
	var s [2]int32
	table := &pieceValue
	if p.noPST {
		table = &materialValue
	}
	for id := 0; id < 32; id++ {
		if sq := p.squares[id]; sq >= 0 {
			s[id>>4] += table[id+1][sq]
		}
	}
	us := p.side
	v := s[us] - s[us^1]
	if dynamicWeights {
		var t [NumEvalTerms]int32
		p.dynamicTerms(&t)
		for i := firstDynamicTerm; i < NumEvalTerms; i++ {
			v += evalWeights[i] * t[i]
		}
	}
	return int(v) / WeightScale
}

// crossedSoldier is the conventional value of a soldier across the river,
// where it also moves sideways: material's soldier doubled.
const crossedSoldier = 200

// MaterialScore returns the side to move's material minus the other
// side's in material's conventional values (a soldier across the river
// crossedSoldier): an evaluation fitted to nothing, unlike Evaluate's
// weights, which were fitted to Fairy-Stockfish's games. The learned
// evaluation's material-only start searches with it.
func (p *Position) MaterialScore() int {
	var s [2]int
	for id := 0; id < 32; id++ {
		sq := int(p.squares[id])
		if sq < 0 {
			continue
		}
		v := uint8(id + 1)
		m := material[valType[v]]
		if pieceTermsOf(v, sq).crossed {
			m = crossedSoldier
		}
		s[id>>4] += m
	}
	return s[p.side] - s[p.side^1]
}

// MoveValues returns the material value of the captured piece (0 for a
// quiet move) and of the moving piece, for capture ordering.
func (p *Position) MoveValues(m game.Move) (captured, mover int) {
	if v := p.board[To(m)]; v != 0 {
		captured = material[valType[v]]
	}
	return captured, material[valType[p.board[From(m)]]]
}

// GenerateCaptures appends the legal captures, or all legal moves when in
// check (the quiescence moves), to dst[:0].
func (p *Position) GenerateCaptures(dst []game.Move) []game.Move {
	var ml [MaxMoves]game.Move
	n := p.gen(&ml, !p.checked)
	n = p.filterLegal(&ml, n, int(p.squares[kingVal(p.side)-1]), p.checked)
	return append(dst[:0], ml[:n]...)
}

// NullMoveOK reports whether the side to move has a chariot, horse or
// cannon: with soldiers, advisors and elephants alone zugzwang is common
// and stalemate loses, so passing would mislead the search.
func (p *Position) NullMoveOK() bool {
	base := int(p.side) * 16
	for id := base + int(firstID[Horse]); id < base+int(firstID[Pawn]); id++ {
		if p.squares[id] >= 0 {
			return true
		}
	}
	return false
}

// FewMoves reports whether the side to move may have no legal move
// without being in check: when it has no chariot, horse or cannon.
func (p *Position) FewMoves() bool { return !p.NullMoveOK() }

// MakeNull passes the move (null-move pruning). The position before it
// cannot repeat across a pass, so the history treats it as irreversible.
func (p *Position) MakeNull() {
	p.hist = append(p.hist, undo{move: game.NoMove, key: p.key, halfmove: int32(p.halfmove), checked: p.checked})
	p.key ^= zobristSide
	p.side ^= 1
	p.ply++
	p.halfmove = 0
	p.checked = false // the side that passed was not in check: the position is legal
}

// UnmakeNull takes back MakeNull.
func (p *Position) UnmakeNull() {
	u := p.hist[len(p.hist)-1]
	p.hist = p.hist[:len(p.hist)-1]
	p.key ^= zobristSide
	p.side ^= 1
	p.ply--
	p.halfmove = int(u.halfmove)
	p.checked = u.checked
}

// GenerateQuietChecks appends the legal moves that capture nothing and
// give check to dst[:0] (quiescence's checks); the side to move is not in
// check. Only a move that leaves a line or a horse leg of the enemy
// general, arrives on its lines, or lands within two steps of it can
// check, so only those are tried on the board.
func (p *Position) GenerateQuietChecks(dst []game.Move) []game.Move {
	var ml [MaxMoves]game.Move
	n := p.gen(&ml, false)
	us := p.side
	k := int(p.squares[kingVal(us)-1])
	e := int(p.squares[kingVal(us^1)-1])
	er, ef := rankOf(e), fileOf(e)
	dst = dst[:0]
	for _, m := range ml[:n] {
		from, to := From(m), To(m)
		if p.board[to] != 0 {
			continue
		}
		near := abs(rankOf(to)-er) <= 2 && abs(fileOf(to)-ef) <= 2
		if !near && sensitive[e][from]&1 == 0 && sensitive[e][to]&2 == 0 {
			continue
		}
		if !p.legal(m, k, false) {
			continue
		}
		p.doMove(m)
		check := p.attacked(e, us^1)
		p.undoMove(m, 0)
		if check {
			dst = append(dst, m)
		}
	}
	return dst
}
