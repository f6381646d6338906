package xiangqi

import "github.com/tabula-zero/tabula/game"

// Rule names reported in game.Status.Reason.
const (
	ReasonNoMoves        = "no legal moves"
	ReasonRepetition     = "repetition"
	ReasonPerpetualCheck = "perpetual check"
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
	if r := p.Repetition(); r != game.Ongoing {
		reason := ReasonRepetition
		if r != game.Draw {
			reason = ReasonPerpetualCheck
		}
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
// last cycle (from the previous occurrence to now) decides: a side that
// gave check with every one of its moves while the other did not loses
// (perpetual check), otherwise the game is drawn.
func (p *Position) Repetition() game.Result {
	n := len(p.hist)
	seen := 0
	last := -1 // index in hist of the most recent earlier occurrence
	// Only positions since the last capture can repeat; step 2 keeps the
	// side to move the same.
	for i := n - 2; i >= 0 && i >= n-p.halfmove; i -= 2 {
		if p.hist[i].key == p.key {
			seen++
			if last < 0 {
				last = i
			}
			if seen == 2 {
				break
			}
		}
	}
	if seen < 2 {
		return game.Ongoing
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
	for i := last; i < n; i++ {
		if (n-i)%2 == 0 {
			usAll = usAll && gaveCheck(i)
		} else {
			themAll = themAll && gaveCheck(i)
		}
	}
	switch {
	case usAll && !themAll:
		return game.Loss
	case themAll && !usAll:
		return game.Win
	}
	return game.Draw
}
