package lion

import "github.com/tabula-zero/tabula/game"

// MoveFeatures describes m, a legal move of the side to move, by the two
// binary move features of playout policy adaptation with move features
// (PPAF; package rollout): bit 0 when m captures, bit 1 when a piece of
// the opponent attacks m's target square (every piece steps one square, so
// the square left behind never opens a line).
func (p *Position) MoveFeatures(m game.Move) uint8 {
	to := moveTo(m)
	var f uint8
	if moveFrom(m) >= 0 && p.sq[to] != 0 {
		f |= 1
	}
	if p.attackers(p.stm.Other(), to) != 0 {
		f |= 2
	}
	return f
}
