package xiangqi

import "github.com/tabula-zero/tabula/game"

// Rule names reported in game.Status.Reason.
const (
	ReasonNoMoves        = "no legal moves"
	ReasonRepetition     = "repetition"
	ReasonPerpetualCheck = "perpetual check"
	ReasonPerpetualChase = "perpetual chase"
	ReasonNoCapture      = "120 plies without capture"
	ReasonMaterial       = "no attacking material"
	ReasonPlyCap         = "ply cap"
)

// NoCapturePlies is the number of plies without a capture that draws.
const NoCapturePlies = 120

// Status reports whether the game has ended, from the side to move's view.
func (p *Position) Status() game.Status {
	var ml [MaxMoves]game.Move
	if p.genLegal(&ml) == 0 {
		return game.Status{Result: game.Loss, Reason: ReasonNoMoves}
	}
	return p.RuleStatus()
}

// RuleStatus applies the rules that do not depend on the legal moves:
// repetition, the no-capture rule, material and the ply cap. Search code
// that has generated the moves anyway calls it instead of Status.
func (p *Position) RuleStatus() game.Status {
	if r, reason := p.repetition(); r != game.Ongoing {
		return game.Status{Result: r, Reason: reason}
	}
	if p.halfmove >= NoCapturePlies {
		return game.Status{Result: game.Draw, Reason: ReasonNoCapture}
	}
	if !p.hasAttackers(game.First) && !p.hasAttackers(game.Second) {
		return game.Status{Result: game.Draw, Reason: ReasonMaterial}
	}
	if p.rules.PlyCap > 0 && p.ply >= p.rules.PlyCap {
		return game.Status{Result: game.Draw, Reason: ReasonPlyCap}
	}
	return game.Status{}
}

// hasAttackers reports whether side c has a piece that can cross the river.
func (p *Position) hasAttackers(c game.Color) bool {
	for id := int(c)*16 + int(firstID[Horse]); id < int(c)*16+16; id++ {
		if p.squares[id] >= 0 {
			return true
		}
	}
	return false
}

// Repetition applies the repetition rule to the current position. It
// returns Ongoing unless the position occurs for the third time; then the
// moves since its first occurrence decide, as in Fairy-Stockfish: a side
// that gave check with every one of its moves while the other did not
// loses (perpetual check); otherwise a side that chased (see chased) with
// every one of its moves while the other did not loses (perpetual chase);
// otherwise the game is drawn.
func (p *Position) Repetition() game.Result {
	r, _ := p.repetition()
	return r
}

// repetition is Repetition with the reason for the verdict.
func (p *Position) repetition() (game.Result, string) {
	n := len(p.hist)
	seen := 0
	first := -1 // index in hist of the first of the three occurrences
	// Only positions since the last capture can repeat; step 2 keeps the
	// side to move the same.
	for i := n - 2; i >= 0 && i >= n-p.halfmove; i -= 2 {
		if p.hist[i].key == p.key {
			seen++
			if seen == 2 {
				first = i
				break
			}
		}
	}
	if seen < 2 {
		return game.Ongoing, ""
	}
	// hist[i].checked tells whether the position before move i was in
	// check, i.e. whether move i-1 gave check; p.checked covers the last move.
	gaveCheck := func(i int) bool {
		if i == n-1 {
			return p.checked
		}
		return p.hist[i+1].checked
	}
	usAll, themAll := true, true // us: the side to move now
	for i := first; i < n; i++ {
		if (n-i)%2 == 0 {
			usAll = usAll && gaveCheck(i)
		} else {
			themAll = themAll && gaveCheck(i)
		}
	}
	// Checking counts before chasing: a side that checks perpetually loses
	// even if the other chased, and mutual perpetual check is a draw.
	if usAll || themAll {
		return verdict(usAll, themAll, ReasonPerpetualCheck)
	}
	usChase, themChase := p.perpetualChase(first)
	return verdict(usChase, themChase, ReasonPerpetualChase)
}

// verdict is the result for the side to move when us and them broke the
// rule named by reason with every move: the side that alone did loses;
// both or neither draw by repetition.
func verdict(us, them bool, reason string) (game.Result, string) {
	switch {
	case us && !them:
		return game.Loss, reason
	case them && !us:
		return game.Win, reason
	}
	return game.Draw, ReasonRepetition
}

// perpetualChase reports whether the side to move (us) and the other side
// (them) chased one and the same enemy piece with every one of their moves
// since hist[first]; like Fairy-Stockfish, them's move into the first
// occurrence counts too when there is one (a move, not a pass). It
// replays those moves on the board, which is restored before it returns.
func (p *Position) perpetualChase(first int) (us, them bool) {
	n := len(p.hist)
	start := first
	// A search's null move (a pass) may stand before the first
	// occurrence: it is no move to replay or to judge.
	if start > 0 && p.hist[start-1].move != game.NoMove {
		start--
	}
	for i := n - 1; i >= start; i-- {
		p.undoMove(p.hist[i].move, p.hist[i].captured)
	}
	// chased[i-start]: the pieces move i chased. The span has no capture,
	// so it is short (the no-capture rule ends games at 120 plies), and the
	// search calls this at every third occurrence: no allocation then.
	var buf [NoCapturePlies + 2]sqSet
	chased := buf[:]
	if n-start > len(buf) {
		chased = make([]sqSet, n-start)
	}
	for i := start; i < n; i++ {
		prev := p.blockers(uint8(p.side) ^ 1)
		cap := p.doMove(p.hist[i].move)
		chased[i-start] = p.chased(p.hist[i].move, cap != 0, prev)
	}
	// Follow the chased pieces back through their own moves: a chase counts
	// only when one piece is chased by every move.
	follow := func(last, stop int) bool {
		s := chased[last-start]
		for i := last - 2; i >= stop && !s.empty(); i -= 2 {
			s = undoMoveSet(s, p.hist[i+1].move).and(chased[i-start])
		}
		return !s.empty()
	}
	return follow(n-2, first), follow(n-1, start)
}
