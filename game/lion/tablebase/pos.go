package tablebase

import (
	"math/bits"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
)

// Board geometry as in package lion: square s = rank*3 + file, rank 0 the
// home rank of the side that plays up the board.
const (
	nsq      = 12
	nfiles   = 3
	allSq    = 1<<nsq - 1
	topRank  = 0b111 << 9 // the far rank of the side to move
	homeRank = 0b111      // the far rank of the opponent
)

// Piece types, equal to package lion's so that conversion is a copy.
const (
	chick    = lion.Chick
	giraffe  = lion.Giraffe
	elephant = lion.Elephant
	lionT    = lion.Lion
	hen      = lion.Hen
	nkinds   = 3 // kinds that can be held in hand: chick, giraffe, elephant
)

// maxChildren bounds the moves of a position: a lion (8), six other pieces
// (at most 6 steps each) and three drop kinds on at most 10 empty squares.
// maxParents bounds the unmoves: six enemy pieces (and the lion) stepping
// back from up to 8 squares, each with or without one of four uncaptures,
// plus the undrops.
const (
	maxChildren = 128
	maxParents  = 512
)

// pos is a position seen by the side to move ("us", owner 0), which plays
// up the board; the opponent is owner 1. Every stored position and every
// probe is normalised this way: a second-player position is turned by 180
// degrees with the colours swapped, so one table serves both sides.
//
// sq holds 0 for empty, otherwise (type+1) | owner<<3.
type pos struct {
	sq   [nsq]uint8
	hand [2][nkinds]uint8
}

func pc(t, owner int) uint8 { return uint8(t+1) | uint8(owner)<<3 }
func ptype(c uint8) int     { return int(c&7) - 1 }
func powner(c uint8) int    { return int(c >> 3) }

// kindOf is the hand kind a piece becomes when captured (a hen a chick).
func kindOf(t int) int {
	if t == hen {
		return chick
	}
	return t
}

// steps[o][t][s]: the squares a piece of type t and owner o on s attacks;
// owner 0 moves up (+rank), owner 1 down. rsteps[o][t][s]: the squares
// from which such a piece attacks s (for unmoves).
var steps, rsteps [2][5][nsq]uint16

// mirrorSq swaps files a and c.
var mirrorSq [nsq]int

func init() {
	type d struct{ df, dr int }
	patterns := [5][]d{
		chick:    {{0, 1}},
		giraffe:  {{0, 1}, {1, 0}, {0, -1}, {-1, 0}},
		elephant: {{1, 1}, {1, -1}, {-1, -1}, {-1, 1}},
		lionT:    {{0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}},
		hen:      {{0, 1}, {1, 1}, {-1, 1}, {1, 0}, {-1, 0}, {0, -1}},
	}
	for o := range 2 {
		sign := 1 - 2*o
		for t, ds := range patterns {
			for s := range nsq {
				f, r := s%nfiles, s/nfiles
				for _, x := range ds {
					nf, nr := f+x.df, r+sign*x.dr
					if nf >= 0 && nf < nfiles && nr >= 0 && nr < 4 {
						to := nr*nfiles + nf
						steps[o][t][s] |= 1 << to
						rsteps[o][t][to] |= 1 << s
					}
				}
			}
		}
	}
	for s := range nsq {
		mirrorSq[s] = s - s%nfiles + nfiles - 1 - s%nfiles
	}
}

// masks returns the occupied squares of each owner.
func (p *pos) masks() (own, opp uint16) {
	for s, c := range p.sq {
		if c != 0 {
			if powner(c) == 0 {
				own |= 1 << s
			} else {
				opp |= 1 << s
			}
		}
	}
	return own, opp
}

// lions returns the squares of our lion and theirs, -1 when missing.
func (p *pos) lions() (ours, theirs int) {
	ours, theirs = -1, -1
	for s, c := range p.sq {
		switch c {
		case pc(lionT, 0):
			ours = s
		case pc(lionT, 1):
			theirs = s
		}
	}
	return ours, theirs
}

// attacked reports whether a piece of owner o attacks square s.
func (p *pos) attacked(o, s int) bool {
	for f, c := range p.sq {
		if c != 0 && powner(c) == o && steps[o][ptype(c)][f]&(1<<s) != 0 {
			return true
		}
	}
	return false
}

// rotate returns the position seen by the other side: the board turned by
// 180 degrees, owners and hands swapped.
func (p *pos) rotate() pos {
	var q pos
	for s, c := range p.sq {
		if c != 0 {
			q.sq[nsq-1-s] = c ^ 1<<3
		}
	}
	q.hand[0], q.hand[1] = p.hand[1], p.hand[0]
	return q
}

// mirror returns the position with files a and c swapped.
func (p *pos) mirror() pos {
	q := pos{hand: p.hand}
	for s, c := range p.sq {
		q.sq[mirrorSq[s]] = c
	}
	return q
}

// Distance codes: one byte per position. 0 is a draw (or, while building,
// not yet decided); otherwise a win in d plies is d+2 when d is odd and 1
// when d is 0, a loss in d plies is d+2 (d is even for every loss, see
// the package documentation), so odd codes are wins and even codes losses.
const (
	codeDraw = 0
	maxDist  = 253
)

func winCode(d int) uint8 {
	if d == 0 {
		return 1
	}
	return uint8(d + 2)
}
func lossCode(d int) uint8 { return uint8(d + 2) }

// decodeCode turns a code into a result and a distance in plies.
func decodeCode(c uint8) (game.Result, int) {
	switch {
	case c == codeDraw:
		return game.Draw, 0
	case c == 1:
		return game.Win, 0
	case c&1 == 1:
		return game.Win, int(c) - 2
	}
	return game.Loss, int(c) - 2
}

// trivial decides, without the table, the positions the table does not
// store (both lions must be on the board): our lion on our far rank has
// survived a reply, a win in 0; their lion on their far rank wins for them
// at once unless we attack it (a loss in 0), and if we do we take it (a win
// in 1); lions side by side: we take theirs (a win in 1). ok is false for
// the positions the table stores.
func (p *pos) trivial(ours, theirs int) (code uint8, ok bool) {
	switch {
	case topRank&(1<<ours) != 0:
		return winCode(0), true
	case homeRank&(1<<theirs) != 0:
		if p.attacked(0, theirs) {
			return winCode(1), true
		}
		return lossCode(0), true
	case steps[0][lionT][ours]&(1<<theirs) != 0:
		return winCode(1), true
	}
	return 0, false
}

// children writes the positions after each of our moves, each normalised
// (the opponent to move), into dst and returns how many; takesLion is true
// (and n undefined) when a move captures the opponent's lion.
func (p *pos) children(dst *[maxChildren]pos) (n int, takesLion bool) {
	own, opp := p.masks()
	for b := own; b != 0; b &= b - 1 {
		s := bits.TrailingZeros16(b)
		c := p.sq[s]
		t := ptype(c)
		for m := steps[0][t][s] &^ own; m != 0; m &= m - 1 {
			to := bits.TrailingZeros16(m)
			q := *p
			if cap := q.sq[to]; cap != 0 {
				ct := ptype(cap)
				if ct == lionT {
					return 0, true
				}
				q.hand[0][kindOf(ct)]++
			}
			q.sq[s] = 0
			if t == chick && topRank&(1<<to) != 0 {
				c = pc(hen, 0)
			}
			q.sq[to] = c
			c = p.sq[s]
			dst[n] = q.rotate()
			n++
		}
	}
	empty := ^(own | opp) & allSq
	for k := range nkinds {
		if p.hand[0][k] == 0 {
			continue
		}
		for m := empty; m != 0; m &= m - 1 {
			to := bits.TrailingZeros16(m)
			q := *p
			q.hand[0][k]--
			q.sq[to] = pc(k, 0)
			dst[n] = q.rotate()
			n++
		}
	}
	return n, false
}

// parents writes the positions from which the opponent's last move led
// here, each normalised (the opponent to move), into dst and returns how
// many. p must be a stored position (see trivial): then our lion is not on
// our far rank, so every such position was still being played. A parent in
// which the opponent's lion already stood on its far rank is left out: the
// game was over there.
func (p *pos) parents(dst *[maxParents]pos) int {
	n := 0
	own, opp := p.masks()
	empty := ^(own | opp) & allSq
	add := func(q *pos) {
		dst[n] = q.rotate()
		n++
	}
	for b := opp; b != 0; b &= b - 1 {
		s := bits.TrailingZeros16(b)
		t := ptype(p.sq[s])
		if t <= elephant { // it may have been dropped
			q := *p
			q.sq[s] = 0
			q.hand[1][t]++
			add(&q)
		}
		// The types it may have had before moving: a hen on the
		// opponent's far rank (our home rank) may have been a chick; an
		// unpromoted chick there was dropped.
		var was [2]int
		nw := 0
		switch {
		case t == chick && homeRank&(1<<s) != 0:
		case t == hen && homeRank&(1<<s) != 0:
			was[0], was[1], nw = hen, chick, 2
		default:
			was[0], nw = t, 1
		}
		for _, wt := range was[:nw] {
			for m := rsteps[1][wt][s] & empty; m != 0; m &= m - 1 {
				f := bits.TrailingZeros16(m)
				if wt == lionT && homeRank&(1<<f) != 0 {
					continue // its lion stood on its far rank: the game was over
				}
				q := *p
				q.sq[s] = 0
				q.sq[f] = pc(wt, 1)
				add(&q)
				for k := range nkinds { // the move took one of our pieces
					if q.hand[1][k] == 0 {
						continue
					}
					r := q
					r.hand[1][k]--
					r.sq[s] = pc(k, 0)
					add(&r)
					if k == chick {
						r.sq[s] = pc(hen, 0)
						add(&r)
					}
				}
			}
		}
	}
	return n
}

// fromLion converts a lion.Position to a normalised pos; ok is false when
// the side to move has no lion (it has just been captured).
func fromLion(lp *lion.Position) (p pos, ok bool) {
	stm := lp.SideToMove()
	hasLion := false
	for s := range nsq {
		t, c, there := lp.PieceAt(s)
		if !there {
			continue
		}
		o := 0
		if c != stm {
			o = 1
		}
		p.sq[s] = pc(t, o)
		if t == lionT && o == 0 {
			hasLion = true
		}
	}
	for k := range nkinds {
		p.hand[0][k] = uint8(lp.InHand(stm, k))
		p.hand[1][k] = uint8(lp.InHand(stm.Other(), k))
	}
	if stm == game.Second {
		p = p.rotate()
		// rotate swapped owners too; swap them back: the side to move is
		// owner 0 in both colours.
		p = p.swapOwners()
	}
	return p, hasLion
}

// swapOwners exchanges the owners of all pieces and the hands, leaving
// squares in place.
func (p *pos) swapOwners() pos {
	q := *p
	for s, c := range q.sq {
		if c != 0 {
			q.sq[s] = c ^ 1<<3
		}
	}
	q.hand[0], q.hand[1] = p.hand[1], p.hand[0]
	return q
}

// text writes the position in package lion's text format with the side
// to move as the first player (upper case, moving up the board).
func (p *pos) text() string {
	letters := [5]byte{'C', 'G', 'E', 'L', 'H'}
	var b []byte
	for r := 3; r >= 0; r-- {
		empty := 0
		for f := range nfiles {
			c := p.sq[r*nfiles+f]
			if c == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b = append(b, byte('0'+empty))
				empty = 0
			}
			l := letters[ptype(c)]
			if powner(c) == 1 {
				l += 'a' - 'A'
			}
			b = append(b, l)
		}
		if empty > 0 {
			b = append(b, byte('0'+empty))
		}
		if r > 0 {
			b = append(b, '/')
		}
	}
	b = append(b, " w "...)
	n := len(b)
	for o := range 2 {
		for k := range nkinds {
			if p.hand[o][k] == 0 {
				continue
			}
			if p.hand[o][k] == 2 {
				b = append(b, '2')
			}
			l := letters[k]
			if o == 1 {
				l += 'a' - 'A'
			}
			b = append(b, l)
		}
	}
	if len(b) == n {
		b = append(b, '-')
	}
	return string(append(b, " 1"...))
}
