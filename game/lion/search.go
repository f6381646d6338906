package lion

import "github.com/tabula-zero/tabula/game"

// Hooks for the generic alpha-beta searcher (package alphabeta).

// Material in centi-units after Baier and Winands: chick 3, giraffe 5,
// elephant 5, hen 7 (a win counts 1000 there; here wins are mate scores).
// Hand pieces count like pieces on the board.
var material = [numTypes]int{Chick: 300, Giraffe: 500, Elephant: 500, Lion: 0, Hen: 700}

// Try threats: a lion that can step onto an unattacked square of its far
// rank wins next move (a safe try wins under both rules).
const (
	tryToMove   = 800 // the side to move can try: nearly a win
	tryOpponent = 200 // the opponent threatens one: must be met
)

// Evaluate returns material (board and hands) plus try threats, from the
// side to move's view.
func (p *Position) Evaluate() int {
	us, them := p.stm, p.stm.Other()
	s := 0
	for sq := 0; sq < squares; sq++ {
		if pc := p.sq[sq]; pc != 0 {
			if colorOf(pc) == us {
				s += material[typeOf(pc)]
			} else {
				s -= material[typeOf(pc)]
			}
		}
	}
	for t := range numHand {
		s += (int(p.hand[us][t]) - int(p.hand[them][t])) * material[t]
	}
	if p.canTry(us) {
		s += tryToMove
	}
	if p.canTry(them) {
		s -= tryOpponent
	}
	return s
}

// canTry reports whether c's lion can step onto a square of its far rank
// that no enemy piece attacks.
func (p *Position) canTry(c game.Color) bool {
	l := p.byType[Lion] & p.byColor[c]
	if l == 0 {
		return false
	}
	for t := attacks[c][Lion][lsb(l)] & farRank[c] &^ p.byColor[c]; t != 0; t &= t - 1 {
		if p.attackers(c.Other(), lsb(t)) == 0 {
			return true
		}
	}
	return false
}

// InCheck is false: a threatened lion is not check (moving into capture is
// legal and loses).
func (p *Position) InCheck() bool { return false }

// GenerateCaptures appends the capturing board moves to dst[:0].
func (p *Position) GenerateCaptures(dst []game.Move) []game.Move {
	all := p.GenerateMoves(dst)
	n := 0
	for _, m := range all {
		if moveFrom(m) >= 0 && p.sq[moveTo(m)] != 0 {
			all[n] = m
			n++
		}
	}
	return all[:n]
}

// MoveValues returns the value of the captured piece (a lion counts as a
// win, 10000) and of the mover.
func (p *Position) MoveValues(m game.Move) (captured, mover int) {
	if pc := p.sq[moveTo(m)]; pc != 0 && moveFrom(m) >= 0 {
		captured = material[typeOf(pc)]
		if typeOf(pc) == Lion {
			captured = 10000
		}
	}
	if f := moveFrom(m); f >= 0 {
		mover = material[typeOf(p.sq[f])]
	} else {
		mover = material[moveDrop(m)]
	}
	return captured, mover
}

// RuleStatus is Status, which needs no move generation here.
func (p *Position) RuleStatus() game.Status { return p.Status() }
