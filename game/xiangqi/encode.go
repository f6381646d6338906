package xiangqi

import (
	"math/bits"

	"github.com/tabula-zero/tabula/game"
)

// Network encoding, from the side to move's view: for Black the board is
// turned 180 degrees, so the side to move always plays up the board and
// equivalent moves of both colours share an action index.
//
// Planes (19 x 10 x 9, row 0 the far rank): 7 piece types of the side to
// move, 7 of the opponent, the no-capture count / 120, and the attack maps:
// squares the side to move attacks at least once and at least twice, then
// the same for the opponent. The attack maps are there because a cannon's
// capture over a screen, or a chariot's along an open file, is a relation
// across the whole board that a small convolutional tower learns slowly
// (KataGo's game-specific input features, its ladder and liberty planes,
// are worth 1.55x in self-play compute); with them, a hanging piece is a
// local pattern. Attacks ignore pins and the flying-general rule.
// Everything is a function of the FEN, so replay shards can store positions
// as FEN; repetitions are left to the search, which sees them through the
// rules.
// Version 3 (ThreatEncoder) adds two planes from the static exchange
// evaluation (SEE): on each piece of the side to move, what the opponent
// wins by starting an exchange there, and on each opponent piece what the
// side to move wins, both in chariots (900) and capped at 1. Trained
// networks of encoder 2 dropped pieces to one-move captures a depth-1
// quiescence search sees: whether an exchange wins is a count of
// attackers and defenders in order of value, which the attack maps give
// only up to two; with the SEE planes a piece en prise is marked on its
// own square.
// Actions: every (from, to) pair a
// piece of the side to move can ever play: chariot lines (which contain
// all general and soldier steps), horse jumps, and the advisor and elephant
// steps of the own half.
// Version 4 (FromToEncoder) has version 3's planes and every ordered pair
// of squares as its actions, from*90+to: the shape a from-to policy head
// (net's Spec.PolicyHead "fromto") scores, one logit per pair of squares'
// features, instead of a dense layer over the whole board per move.

// EncoderVersion is the version of Encoder{}, the encoding of new
// networks unless a config picks ThreatEncoder; versions change whenever
// planes or actions change meaning.
const EncoderVersion = 2

// ThreatEncoderVersion is ThreatEncoder's version.
const ThreatEncoderVersion = 3

// FromToEncoderVersion is FromToEncoder's version.
const FromToEncoderVersion = 4

const (
	clockPlane  = 14
	attackPlane = 15 // us >= 1, us >= 2, them >= 1, them >= 2
	numPlanes   = 19
	threatPlane = 19 // version 3: ours lost by an exchange, theirs won
	// threatScale is the SEE gain that fills a threat plane's cell.
	threatScale = 900
)

// ThreatEncoder is version 3 of the encoding: Encoder's planes and the
// two SEE planes.
var ThreatEncoder = Encoder{threats: true}

// FromToEncoder is version 4: ThreatEncoder's planes, and an action for
// every ordered pair of squares (from*NumSquares + to).
var FromToEncoder = Encoder{threats: true, fromTo: true}

var (
	actionOf   [NumSquares][NumSquares]int16 // -1 when no action
	actionFrom []int8
	actionTo   []int8
	mirrorSym  game.Symmetry
	// mirrorPairs is the mirror of version 4's square-pair actions.
	mirrorPairs game.Symmetry
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
	mirrorPairs = game.Symmetry{Name: "mirror", Cells: mirrorSym.Cells, Actions: make([]int, NumSquares*NumSquares)}
	for a := range mirrorPairs.Actions {
		mirrorPairs.Actions[a] = mirrorSquare(a/NumSquares)*NumSquares + mirrorSquare(a%NumSquares)
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

// Encoder is the Xiangqi network encoding: version 2 as the zero value,
// version 3 as ThreatEncoder, version 4 as FromToEncoder.
type Encoder struct{ threats, fromTo bool }

func (e Encoder) Version() int {
	switch {
	case e.fromTo:
		return FromToEncoderVersion
	case e.threats:
		return ThreatEncoderVersion
	}
	return EncoderVersion
}

func (e Encoder) Shape() (c, h, w int) { return e.planes(), Ranks, Files }

func (e Encoder) planes() int {
	if e.threats {
		return numPlanes + 2
	}
	return numPlanes
}

func (e Encoder) ActionSize() int {
	if e.fromTo {
		return NumSquares * NumSquares
	}
	return len(actionFrom)
}

func (e Encoder) Symmetries() []game.Symmetry {
	if e.fromTo {
		return []game.Symmetry{mirrorPairs}
	}
	return []game.Symmetry{mirrorSym}
}

// Encode writes the planes of p (a *Position) into dst.
func (e Encoder) Encode(gp game.Position, dst []float32) {
	p := gp.(*Position)
	clear(dst[:e.planes()*NumSquares])
	var occ sqSet // the attack maps' blockers, gathered with the pieces
	for sq := 0; sq < NumSquares; sq++ {
		v := p.board[sq]
		if v == 0 {
			continue
		}
		occ.add(sq)
		plane := int(valType[v]) - 1
		if game.Color(valColor[v]) != p.side {
			plane += 7
		}
		dst[plane*NumSquares+p.cell(sq)] = 1
	}
	clock := float32(min(p.halfmove, NoCapturePlies)) / NoCapturePlies
	for c := 0; c < NumSquares; c++ {
		dst[clockPlane*NumSquares+c] = clock
	}
	for i, c := range [2]game.Color{p.side, p.side.Other()} {
		once, twice := p.attackMaps(uint8(c), occ)
		p.fillPlane(dst[(attackPlane+2*i)*NumSquares:], once)
		p.fillPlane(dst[(attackPlane+2*i+1)*NumSquares:], twice)
	}
	if e.threats {
		p.threatPlanes(dst[threatPlane*NumSquares : (threatPlane+2)*NumSquares])
	}
}

// threatPlanes writes the SEE planes: on each piece, what the other side
// wins by starting an exchange on its square (the side to move's pieces
// in the first plane). The exchanges are played on p and taken back.
func (p *Position) threatPlanes(dst []float32) {
	for id := range p.squares {
		sq := int(p.squares[id])
		if sq < 0 {
			continue
		}
		owner := uint8(id / 16)
		plane := 0
		if game.Color(owner) != p.side {
			plane = 1
		}
		if gain := p.seeOn(sq, owner^1); gain > 0 {
			dst[plane*NumSquares+p.cell(sq)] = min(1, float32(gain)/threatScale)
		}
	}
}

// attackMaps returns the squares side c attacks with at least one and
// with at least two of its pieces.
func (p *Position) attackMaps(c uint8, occ sqSet) (once, twice sqSet) {
	for id := int(c) * 16; id < int(c)*16+16; id++ {
		if from := int(p.squares[id]); from >= 0 {
			a := attacksOn(c, idType[id&15], from, occ)
			twice = twice.or(once.and(a))
			once = once.or(a)
		}
	}
	return once, twice
}

// cell is square sq's cell in a plane, from the side to move's view.
func (p *Position) cell(sq int) int {
	rel := relative(sq, p.side)
	return (Ranks-1-rankOf(rel))*Files + fileOf(rel)
}

// fillPlane sets the cells of the squares of s in plane, from the side to
// move's view.
func (p *Position) fillPlane(plane []float32, s sqSet) {
	for w := range s {
		for m := s[w]; m != 0; m &= m - 1 {
			plane[p.cell(w*64+bits.TrailingZeros64(m))] = 1
		}
	}
}

// ActionIndex maps a legal move of p to its action index.
func (e Encoder) ActionIndex(gp game.Position, m game.Move) int {
	p := gp.(*Position)
	from, to := relative(From(m), p.side), relative(To(m), p.side)
	if e.fromTo {
		return from*NumSquares + to
	}
	return int(actionOf[from][to])
}

// ActionMove maps an action index back to a move of p (not necessarily
// legal); ok is false for an index out of range or, in version 4, a
// square paired with itself.
func (e Encoder) ActionMove(gp game.Position, a int) (game.Move, bool) {
	if a < 0 || a >= e.ActionSize() {
		return game.NoMove, false
	}
	var from, to int
	if e.fromTo {
		from, to = a/NumSquares, a%NumSquares
	} else {
		from, to = int(actionFrom[a]), int(actionTo[a])
	}
	if from == to {
		return game.NoMove, false
	}
	p := gp.(*Position)
	return newMove(relative(from, p.side), relative(to, p.side)), true
}
