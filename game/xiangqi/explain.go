package xiangqi

import (
	"fmt"
	"strings"

	"github.com/tabula-zero/tabula/game"
)

// This file explains illegal moves in words a player reads. It follows
// the rules directly on a plain board (a piece's steps by coordinates, an
// attack as an enemy piece's own move onto the general) rather than the
// move generator's tables, so that the two check each other
// (TestWhyIllegalAgreesWithGenerator).

// pieceNames are the types' names, as a player reads them.
var pieceNames = [numTypes]string{King: "general", Advisor: "advisor", Elephant: "elephant", Horse: "horse", Rook: "chariot", Cannon: "cannon", Pawn: "soldier"}

// cell is a point of the plain board: a piece's colour and type, NoType
// when empty.
type cell struct {
	c game.Color
	t int
}

// WhyIllegal says why m is not a legal move for the side to move, in
// words ("the horse is blocked at e2", "that move leaves your general in
// check", "the generals would face each other", "no piece of yours on
// h3"), or "" when it is legal.
func (p *Position) WhyIllegal(m game.Move) string {
	from, to := From(m), To(m)
	if from >= NumSquares || to >= NumSquares {
		return "that is not a square of the board"
	}
	name := func(sq int) string { return squareName(sq, p.rules.ICCS) }
	var b [NumSquares]cell
	for sq := range b {
		c, t := p.PieceAt(sq)
		b[sq] = cell{c, t}
	}
	us := p.side
	switch {
	case from == to:
		return "the piece does not move"
	case b[from].t == NoType || b[from].c != us:
		return fmt.Sprintf("no piece of yours on %s (%s is to move)", name(from), strings.ToUpper(sideName(us)[:1])+sideName(us)[1:])
	case b[to].t != NoType && b[to].c == us:
		return fmt.Sprintf("%s holds a piece of your own", name(to))
	}
	if why := stepWhy(&b, from, to, name); why != "" {
		return why
	}
	checked := attackedOn(&b, us) != ""
	after := b
	after[to], after[from] = after[from], cell{}
	switch by := attackedOn(&after, us); {
	case by == "":
		return ""
	case by == "facing":
		return "the generals would face each other"
	case b[from].t == King:
		return fmt.Sprintf("the general would be in check from the %s", by)
	case checked:
		return fmt.Sprintf("your general is in check, and that move leaves it attacked by the %s", by)
	default:
		return fmt.Sprintf("that move leaves your general in check from the %s", by)
	}
}

// ownRank is sq's rank counted from colour c's back rank.
func ownRank(c game.Color, sq int) int {
	if c == game.Second {
		return Ranks - 1 - rankOf(sq)
	}
	return rankOf(sq)
}

// palace reports whether sq is in colour c's palace; diagonal whether it
// is also on the palace's diagonals.
func palace(c game.Color, sq int) bool {
	r, f := ownRank(c, sq), fileOf(sq)
	return r <= 2 && f >= 3 && f <= 5
}

func diagonal(c game.Color, sq int) bool {
	return palace(c, sq) && (ownRank(c, sq)+fileOf(sq))%2 == 1
}

// elephantPoint reports whether sq is one of the seven points colour c's
// elephants can reach.
func elephantPoint(c game.Color, sq int) bool {
	r, f := ownRank(c, sq), fileOf(sq)
	return r <= 4 && r%2 == 0 && f%2 == 0 && (r/2+f/2)%2 == 1
}

// pointsBetween lists the points strictly between from and to on one rank or
// file, from from's side.
func pointsBetween(from, to int) []int {
	dr, df := sign(rankOf(to)-rankOf(from)), sign(fileOf(to)-fileOf(from))
	var out []int
	for s := from + dr*Files + df; s != to; s += dr*Files + df {
		out = append(out, s)
	}
	return out
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// stepWhy says why the piece on from cannot go to to by its own move
// (empty or an enemy piece there), ignoring the own general's safety, or
// "" when it can.
func stepWhy(b *[NumSquares]cell, from, to int, name func(int) string) string {
	pc := b[from]
	c := pc.c
	dr, df := rankOf(to)-rankOf(from), fileOf(to)-fileOf(from)
	adr, adf := abs(dr), abs(df)
	capture := b[to].t != NoType
	switch pc.t {
	case King:
		switch {
		case adr+adf != 1:
			return "a general steps one point along a rank or a file"
		case !palace(c, from) || !palace(c, to):
			return "the general may not leave its palace"
		}
	case Advisor:
		switch {
		case adr != 1 || adf != 1:
			return "an advisor steps one point diagonally"
		case !palace(c, to) || !palace(c, from):
			return "the advisor may not leave its palace"
		case !diagonal(c, from) || !diagonal(c, to):
			return "an advisor moves only along the palace's diagonals"
		}
	case Elephant:
		switch {
		case adr != 2 || adf != 2:
			return "an elephant moves exactly two points diagonally"
		case ownRank(c, to) > 4:
			return "an elephant may not cross the river"
		case !elephantPoint(c, from):
			return fmt.Sprintf("an elephant off its points (on %s) cannot move", name(from))
		case b[(from+to)/2].t != NoType:
			return fmt.Sprintf("the elephant is blocked at %s", name((from+to)/2))
		}
	case Horse:
		if !(adr == 2 && adf == 1 || adr == 1 && adf == 2) {
			return "a horse moves one point along a rank or file, then one diagonally outward"
		}
		leg := from + dr/2*Files
		if adf == 2 {
			leg = from + df/2
		}
		if b[leg].t != NoType {
			return fmt.Sprintf("the horse is blocked at %s", name(leg))
		}
	case Rook:
		if dr != 0 && df != 0 {
			return "a chariot moves along a rank or a file"
		}
		for _, s := range pointsBetween(from, to) {
			if b[s].t != NoType {
				return fmt.Sprintf("the chariot is blocked at %s", name(s))
			}
		}
	case Cannon:
		if dr != 0 && df != 0 {
			return "a cannon moves along a rank or a file"
		}
		var screens []int
		for _, s := range pointsBetween(from, to) {
			if b[s].t != NoType {
				screens = append(screens, s)
			}
		}
		switch {
		case !capture && len(screens) > 0:
			return fmt.Sprintf("the cannon is blocked at %s (it jumps only to capture)", name(screens[0]))
		case capture && len(screens) == 0:
			return "a cannon captures by jumping over exactly one piece, and there is none between"
		case capture && len(screens) > 1:
			return fmt.Sprintf("a cannon captures by jumping over exactly one piece, and there are %d between", len(screens))
		}
	case Pawn:
		fwd := 1
		if c == game.Second {
			fwd = -1
		}
		switch {
		case dr == fwd && df == 0:
		case dr == 0 && adf == 1:
			if ownRank(c, from) <= 4 {
				return "a soldier moves sideways only after crossing the river"
			}
		case dr*fwd < 0 && df == 0:
			return "a soldier never moves backward"
		default:
			return "a soldier steps one point forward (or sideways once across the river)"
		}
	}
	return ""
}

// attackedOn says what attacks colour us's general on b: "facing" when
// the generals face each other on an open file, else the name of an
// enemy piece that could take it, or "" when none can.
func attackedOn(b *[NumSquares]cell, us game.Color) string {
	k, ek := -1, -1
	for sq, x := range b {
		if x.t == King {
			if x.c == us {
				k = sq
			} else {
				ek = sq
			}
		}
	}
	if k < 0 {
		return ""
	}
	if ek >= 0 && fileOf(k) == fileOf(ek) {
		open := true
		for _, s := range pointsBetween(k, ek) {
			open = open && b[s].t == NoType
		}
		if open {
			return "facing"
		}
	}
	noName := func(int) string { return "" }
	for sq, x := range b {
		if x.t != NoType && x.t != King && x.c != us && stepWhy(b, sq, k, noName) == "" {
			return pieceNames[x.t]
		}
	}
	return ""
}
