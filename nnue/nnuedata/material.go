package nnuedata

import (
	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// Material is the evaluation of material alone, from fixed conventional
// piece values (xiangqi's MaterialScore): a start for the learned
// evaluation that owes nothing to games played elsewhere, unlike the
// classical one, whose weights were fitted to Fairy-Stockfish's games.
var Material = Eval{
	Name: "material",
	Wrap: func(p *xiangqi.Position) alphabeta.Position { return &MaterialPosition{p} },
}

// MaterialPosition is a Xiangqi position searched with MaterialScore in
// place of the classical evaluation; every other method (move generation,
// ordering, SEE, null moves) is the position's own. It keeps no state of
// its own, so making and unmaking moves needs nothing more.
type MaterialPosition struct {
	*xiangqi.Position
}

// Evaluate returns the position's MaterialScore.
func (p *MaterialPosition) Evaluate() int { return p.MaterialScore() }

// Clone returns an independent copy, still evaluated by material.
func (p *MaterialPosition) Clone() game.Position {
	return &MaterialPosition{p.Position.Copy()}
}
