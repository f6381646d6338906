package nnuedata

import (
	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// Material is the evaluation of material alone, from fixed piece values
// (MaterialValue): a start for the learned evaluation that owes nothing to
// games played elsewhere, unlike the classical one, whose weights were
// fitted to Fairy-Stockfish's games.
var Material = Eval{
	Name: "material",
	Wrap: func(p *xiangqi.Position) alphabeta.Position { return &MaterialPosition{p} },
}

// materialValues are conventional textbook piece values in the classical
// evaluation's unit (centi-units, a soldier about 100), written here and
// not fitted to anything: general 0 (it is never captured), advisor 200,
// elephant 200, horse 400, chariot 900, cannon 450, soldier 100 before
// the river; a soldier across it is worth crossedSoldier.
var materialValues = [...]int{
	xiangqi.NoType:   0,
	xiangqi.King:     0,
	xiangqi.Advisor:  200,
	xiangqi.Elephant: 200,
	xiangqi.Horse:    400,
	xiangqi.Rook:     900,
	xiangqi.Cannon:   450,
	xiangqi.Pawn:     100,
}

// crossedSoldier is the conventional value of a soldier across the river,
// where it can also move sideways.
const crossedSoldier = 200

// MaterialValue returns the side to move's material minus the other side's
// in the values of materialValues.
func MaterialValue(p *xiangqi.Position) int {
	var s [2]int
	sq := p.PieceSquares()
	for id, q := range sq {
		if q < 0 {
			continue
		}
		side, t := id>>4, xiangqi.PieceIDType(id)
		v := materialValues[t]
		if t == xiangqi.Pawn {
			rank := int(q) / xiangqi.Files
			if (side == 0 && rank >= xiangqi.Ranks/2) || (side == 1 && rank < xiangqi.Ranks/2) {
				v = crossedSoldier
			}
		}
		s[side] += v
	}
	us := int(p.SideToMove())
	return s[us] - s[us^1]
}

// MaterialPosition is a Xiangqi position searched with MaterialValue in
// place of the classical evaluation; every other method (move generation,
// ordering, SEE, null moves) is the position's own. It keeps no state of
// its own, so making and unmaking moves needs nothing more.
type MaterialPosition struct {
	*xiangqi.Position
}

// Evaluate returns MaterialValue of the position.
func (p *MaterialPosition) Evaluate() int { return MaterialValue(p.Position) }

// Clone returns an independent copy, still evaluated by material.
func (p *MaterialPosition) Clone() game.Position {
	return &MaterialPosition{p.Position.Copy()}
}
