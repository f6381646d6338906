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
// Bitboards make turning, mirroring and indexing a few word operations.
type pos struct {
	occ  [2]uint16 // squares of each owner
	kind [5]uint16 // squares of each type
	hand [2][nkinds]uint8
}

// put places a piece of type t and owner o on the empty square s.
func (p *pos) put(s, t, o int) {
	p.occ[o] |= 1 << s
	p.kind[t] |= 1 << s
}

// at returns the type and owner of the piece on s; ok is false if empty.
func (p *pos) at(s int) (t, o int, ok bool) {
	b := uint16(1) << s
	if (p.occ[0]|p.occ[1])&b == 0 {
		return 0, 0, false
	}
	if p.occ[1]&b != 0 {
		o = 1
	}
	for t = 0; p.kind[t]&b == 0; t++ {
	}
	return t, o, true
}

// typeAt returns the type of the piece on the occupied square bit b.
func (p *pos) typeAt(b uint16) int {
	t := 0
	for p.kind[t]&b == 0 {
		t++
	}
	return t
}

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

// mirrorSq swaps files a and c; mirrorMask does it for a set of squares.
var (
	mirrorSq   [nsq]int
	mirrorMask [1 << nsq]uint16
)

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
	for m := range mirrorMask {
		for s := range nsq {
			if m&(1<<s) != 0 {
				mirrorMask[m] |= 1 << mirrorSq[s]
			}
		}
	}
}

// masks returns the occupied squares of each owner.
func (p *pos) masks() (own, opp uint16) { return p.occ[0], p.occ[1] }

// lions returns the squares of our lion and theirs, -1 when missing.
func (p *pos) lions() (ours, theirs int) {
	l := p.kind[lionT]
	ours, theirs = bits.TrailingZeros16(l&p.occ[0]), bits.TrailingZeros16(l&p.occ[1])
	if ours == 16 {
		ours = -1
	}
	if theirs == 16 {
		theirs = -1
	}
	return ours, theirs
}

// attacked reports whether a piece of owner o attacks square s.
func (p *pos) attacked(o, s int) bool {
	var a uint16
	for t := range 5 {
		a |= rsteps[o][t][s] & p.kind[t]
	}
	return a&p.occ[o] != 0
}

// turn reverses the squares of a set: the board turned by 180 degrees.
func turn(x uint16) uint16 { return bits.Reverse16(x) >> (16 - nsq) }

// rotate returns the position seen by the other side: the board turned by
// 180 degrees, owners and hands swapped.
func (p *pos) rotate() pos {
	var q pos
	q.occ[0], q.occ[1] = turn(p.occ[1]), turn(p.occ[0])
	for t := range p.kind {
		q.kind[t] = turn(p.kind[t])
	}
	q.hand[0], q.hand[1] = p.hand[1], p.hand[0]
	return q
}

// mirror returns the position with files a and c swapped.
func (p *pos) mirror() pos {
	q := pos{hand: p.hand}
	q.occ[0], q.occ[1] = mirrorMask[p.occ[0]], mirrorMask[p.occ[1]]
	for t := range p.kind {
		q.kind[t] = mirrorMask[p.kind[t]]
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
	own, opp := p.occ[0], p.occ[1]
	for t := range 5 {
		for b := p.kind[t] & own; b != 0; b &= b - 1 {
			s := bits.TrailingZeros16(b)
			fb := uint16(1) << s
			for m := steps[0][t][s] &^ own; m != 0; m &= m - 1 {
				tb := m & -m
				q := *p
				if opp&tb != 0 {
					ct := p.typeAt(tb)
					if ct == lionT {
						return 0, true
					}
					q.kind[ct] &^= tb
					q.occ[1] &^= tb
					q.hand[0][kindOf(ct)]++
				}
				q.occ[0] ^= fb | tb
				q.kind[t] &^= fb
				nt := t
				if t == chick && topRank&tb != 0 {
					nt = hen
				}
				q.kind[nt] |= tb
				dst[n] = q.rotate()
				n++
			}
		}
	}
	empty := ^(own | opp) & allSq
	for k := range nkinds {
		if p.hand[0][k] == 0 {
			continue
		}
		for m := empty; m != 0; m &= m - 1 {
			tb := m & -m
			q := *p
			q.hand[0][k]--
			q.occ[0] |= tb
			q.kind[k] |= tb
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
	own, opp := p.occ[0], p.occ[1]
	empty := ^(own | opp) & allSq
	for t := range 5 {
		for b := p.kind[t] & opp; b != 0; b &= b - 1 {
			s := bits.TrailingZeros16(b)
			sb := uint16(1) << s
			if t <= elephant { // it may have been dropped
				q := *p
				q.occ[1] &^= sb
				q.kind[t] &^= sb
				q.hand[1][t]++
				dst[n] = q.rotate()
				n++
			}
			// The types it may have had before moving: a hen on the
			// opponent's far rank (our home rank) may have been a chick;
			// an unpromoted chick there was dropped.
			var was [2]int
			nw := 0
			switch {
			case t == chick && homeRank&sb != 0:
			case t == hen && homeRank&sb != 0:
				was[0], was[1], nw = hen, chick, 2
			default:
				was[0], nw = t, 1
			}
			for _, wt := range was[:nw] {
				for m := rsteps[1][wt][s] & empty; m != 0; m &= m - 1 {
					fb := m & -m
					if wt == lionT && homeRank&fb != 0 {
						continue // its lion stood on its far rank: the game was over
					}
					q := *p
					q.occ[1] ^= sb | fb
					q.kind[t] &^= sb
					q.kind[wt] |= fb
					dst[n] = q.rotate()
					n++
					for k := range nkinds { // the move took one of our pieces
						if q.hand[1][k] == 0 {
							continue
						}
						r := q
						r.hand[1][k]--
						r.occ[0] |= sb
						r.kind[k] |= sb
						dst[n] = r.rotate()
						n++
						if k == chick {
							r.kind[chick] &^= sb
							r.kind[hen] |= sb
							dst[n] = r.rotate()
							n++
						}
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
	for s := range nsq {
		t, c, there := lp.PieceAt(s)
		if !there {
			continue
		}
		o := 0
		if c != stm {
			o = 1
		}
		sq := s
		if stm == game.Second {
			sq = nsq - 1 - s // the second player plays down the board
		}
		p.put(sq, t, o)
	}
	for k := range nkinds {
		p.hand[0][k] = uint8(lp.InHand(stm, k))
		p.hand[1][k] = uint8(lp.InHand(stm.Other(), k))
	}
	return p, p.kind[lionT]&p.occ[0] != 0
}

// text writes the position in package lion's text format with the side
// to move as the first player (upper case, moving up the board).
func (p *pos) text() string {
	letters := [5]byte{'C', 'G', 'E', 'L', 'H'}
	var b []byte
	for r := 3; r >= 0; r-- {
		empty := 0
		for f := range nfiles {
			t, o, ok := p.at(r*nfiles + f)
			if !ok {
				empty++
				continue
			}
			if empty > 0 {
				b = append(b, byte('0'+empty))
				empty = 0
			}
			l := letters[t]
			if o == 1 {
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
