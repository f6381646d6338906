package xiangqi

import "github.com/tabula-zero/tabula/game"

// Network encoding, from the side to move's view: for Black the board is
// turned 180 degrees, so the side to move always plays up the board and
// equivalent moves of both colours share an action index.
//
// Planes (15 x 10 x 9, row 0 the far rank): 7 piece types of the side to
// move, 7 of the opponent, and the no-capture count / 120. Everything is
// a function of the FEN, so replay shards can store positions as FEN;
// repetitions are left to the search, which sees them through the rules.
// Actions: every (from, to) pair a
// piece of the side to move can ever play: chariot lines (which contain
// all general and soldier steps), horse jumps, and the advisor and elephant
// steps of the own half.

// EncoderVersion changes whenever planes or actions change meaning.
const EncoderVersion = 1

const numPlanes = 15

var (
	actionOf   [NumSquares][NumSquares]int16 // -1 when no action
	actionFrom []int8
	actionTo   []int8
	mirrorSym  game.Symmetry
)

// initActions runs after the move tables exist (called from tables.go).
func initActions() {
	for i := range actionOf {
		for j := range actionOf[i] {
			actionOf[i][j] = -1
		}
	}
	add := func(from, to int) {
		if actionOf[from][to] < 0 {
			actionOf[from][to] = int16(len(actionFrom))
			actionFrom = append(actionFrom, int8(from))
			actionTo = append(actionTo, int8(to))
		}
	}
	for from := 0; from < NumSquares; from++ {
		for to := 0; to < NumSquares; to++ {
			if from != to && (rankOf(from) == rankOf(to) || fileOf(from) == fileOf(to)) {
				add(from, to)
			}
		}
		for i := uint8(0); i < horseN[from]; i++ {
			add(from, int(horseMoves[from][i].to))
		}
		if advSquare[0][from] {
			for i := uint8(0); i < advN[from]; i++ {
				add(from, int(advMoves[from][i]))
			}
		}
		if eleSquare[0][from] {
			for i := uint8(0); i < elephN[from]; i++ {
				add(from, int(elephMoves[from][i].to))
			}
		}
	}
	mirrorSym = game.Symmetry{Name: "mirror", Cells: make([]int, NumSquares), Actions: make([]int, len(actionFrom))}
	for c := range mirrorSym.Cells {
		y, x := c/Files, c%Files
		mirrorSym.Cells[c] = y*Files + Files - 1 - x
	}
	for a := range actionFrom {
		mirrorSym.Actions[a] = int(actionOf[mirrorSquare(int(actionFrom[a]))][mirrorSquare(int(actionTo[a]))])
	}
}

func mirrorSquare(sq int) int { return rankOf(sq)*Files + Files - 1 - fileOf(sq) }

// relative maps a square to the side to move's view.
func relative(sq int, side game.Color) int {
	if side == game.Second {
		return NumSquares - 1 - sq
	}
	return sq
}

// Encoder is the Xiangqi network encoding.
type Encoder struct{}

func (Encoder) Version() int                { return EncoderVersion }
func (Encoder) Shape() (c, h, w int)        { return numPlanes, Ranks, Files }
func (Encoder) ActionSize() int             { return len(actionFrom) }
func (Encoder) Symmetries() []game.Symmetry { return []game.Symmetry{mirrorSym} }

// Encode writes the planes of p (a *Position) into dst.
func (Encoder) Encode(gp game.Position, dst []float32) {
	p := gp.(*Position)
	clear(dst[:numPlanes*NumSquares])
	for sq := 0; sq < NumSquares; sq++ {
		v := p.board[sq]
		if v == 0 {
			continue
		}
		rel := relative(sq, p.side)
		cell := (Ranks-1-rankOf(rel))*Files + fileOf(rel)
		plane := int(valType[v]) - 1
		if game.Color(valColor[v]) != p.side {
			plane += 7
		}
		dst[plane*NumSquares+cell] = 1
	}
	clock := float32(min(p.halfmove, NoCapturePlies)) / NoCapturePlies
	for c := 0; c < NumSquares; c++ {
		dst[14*NumSquares+c] = clock
	}
}

// ActionIndex maps a legal move of p to its action index.
func (Encoder) ActionIndex(gp game.Position, m game.Move) int {
	p := gp.(*Position)
	return int(actionOf[relative(From(m), p.side)][relative(To(m), p.side)])
}

// ActionMove maps an action index back to a move of p (not necessarily
// legal); ok is false for an index out of range.
func (Encoder) ActionMove(gp game.Position, a int) (game.Move, bool) {
	if a < 0 || a >= len(actionFrom) {
		return game.NoMove, false
	}
	p := gp.(*Position)
	return newMove(relative(int(actionFrom[a]), p.side), relative(int(actionTo[a]), p.side)), true
}
