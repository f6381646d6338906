package xiangqi

import "github.com/tabula-zero/tabula/game"

// Static evaluation for alpha-beta, in centi-units from the side to move's
// view: CheapChess material (soldier 1, across the river 2, advisor 2,
// elephant 2, horse 4, cannon 4.5, chariot 9; times 100) plus piece-square
// tables. Tables are written from Red's side, rank 0 first; Black reads
// them with ranks turned.

// Material values by piece type (soldier before the river).
var material = [numTypes]int{0, 0, 200, 200, 400, 900, 450, 100}

// crossedBonus is added for a soldier across the river (worth 2 then).
const crossedBonus = 100

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

// pieceValue[v][sq]: material plus table for board value v on sq, from its
// owner's view; built once so Evaluate is one look-up per piece.
// materialValue is the same without the tables.
var pieceValue, materialValue [33][NumSquares]int16

func initEval() {
	for v := 1; v <= 32; v++ {
		t, c := valType[v], valColor[v]
		for sq := 0; sq < NumSquares; sq++ {
			r, f := rankOf(sq), fileOf(sq)
			if c == 1 {
				r = Ranks - 1 - r
			}
			val := material[t] + pst[t][r][f]
			if t == Pawn && r >= 5 {
				val += crossedBonus
			}
			pieceValue[v][sq] = int16(val)
			materialValue[v][sq] = int16(val - pst[t][r][f])
		}
	}
}

// Evaluate returns the static score for the side to move.
func (p *Position) Evaluate() int {
	var s [2]int
	table := &pieceValue
	if p.noPST {
		table = &materialValue
	}
	for id := 0; id < 32; id++ {
		if sq := p.squares[id]; sq >= 0 {
			s[id>>4] += int(table[id+1][sq])
		}
	}
	if p.side == game.First {
		return s[0] - s[1]
	}
	return s[1] - s[0]
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
	n := p.genPseudo(&ml)
	k := int(p.squares[kingVal(p.side)-1])
	dst = dst[:0]
	for _, m := range ml[:n] {
		if (p.checked || p.board[To(m)] != 0) && p.legal(m, k, p.checked) {
			dst = append(dst, m)
		}
	}
	return dst
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
