package lion

import (
	"github.com/tabula-zero/tabula/game"
)

// Move codes: bits 0-3 hold from+1 for a board move (0 for a drop), bits
// 4-7 the target square, bits 8-9 the dropped type+1 for a drop (0 for a
// board move). Promotion is implied by a chick reaching its far rank. Code 0
// is never a legal move.
func boardMove(from, to int) game.Move { return game.Move(from+1) | game.Move(to)<<4 }
func dropMove(t, to int) game.Move     { return game.Move(to)<<4 | game.Move(t+1)<<8 }

func moveFrom(m game.Move) int { return int(m&15) - 1 } // -1 for a drop
func moveTo(m game.Move) int   { return int(m>>4) & 15 }
func moveDrop(m game.Move) int { return int(m>>8) - 1 } // -1 for a board move

// rules are the resolved rule options of a position.
type rules struct {
	immediate bool // TryRule=immediate
	plyCap    int
}

// undo is one entry of the history stack.
type undo struct {
	key      uint64    // key before the move
	move     game.Move // the move made
	moved    uint8     // code of the piece that moved (before promotion); 0 for a drop
	captured uint8     // code of the captured piece, 0 if none
}

// Position is a Catch the Lion position with its history. It implements
// game.Position and game.Perfter.
type Position struct {
	sq      [squares]uint8
	byType  [numTypes]uint16
	byColor [2]uint16
	hand    [2][numHand]uint8
	stm     game.Color
	ply     int // plies since the game's start
	key     uint64
	hist    []undo
	rules   rules
}

var _ interface {
	game.Position
	game.Perfter
} = (*Position)(nil)

// histCap is the initial capacity of the history stack; games longer than
// this grow it once (amortised), so Make does not allocate in steady state.
const histCap = 256

// Game returns "lion".
func (p *Position) Game() string { return "lion" }

// SideToMove returns the side to move.
func (p *Position) SideToMove() game.Color { return p.stm }

// Ply returns the number of plies played since the game's start (the text
// format's ply number minus one).
func (p *Position) Ply() int { return p.ply }

// Key returns the Zobrist key of board, hands and side to move.
func (p *Position) Key() uint64 { return p.key }

// Immediate reports whether the position plays under TryRule=immediate.
func (p *Position) Immediate() bool { return p.rules.immediate }

// Clone returns a deep copy, history included.
func (p *Position) Clone() game.Position { return p.clone() }

func (p *Position) clone() *Position {
	q := *p
	q.hist = make([]undo, len(p.hist), max(histCap, cap(p.hist)))
	copy(q.hist, p.hist)
	return &q
}

func (p *Position) put(s int, pc uint8) {
	b := uint16(1) << s
	t, c := typeOf(pc), colorOf(pc)
	p.sq[s] = pc
	p.byType[t] |= b
	p.byColor[c] |= b
	p.key ^= pieceKey[c][t][s]
}

func (p *Position) remove(s int, pc uint8) {
	b := uint16(1) << s
	t, c := typeOf(pc), colorOf(pc)
	p.sq[s] = 0
	p.byType[t] &^= b
	p.byColor[c] &^= b
	p.key ^= pieceKey[c][t][s]
}

// Make plays m, which must be legal here.
func (p *Position) Make(m game.Move) {
	us := p.stm
	to := moveTo(m)
	if from := moveFrom(m); from >= 0 {
		pc, cp := p.sq[from], p.sq[to]
		p.hist = append(p.hist, undo{key: p.key, move: m, moved: pc, captured: cp})
		if cp != 0 {
			p.remove(to, cp)
			if t := typeOf(cp); t != Lion {
				if t == Hen {
					t = Chick
				}
				n := p.hand[us][t]
				p.hand[us][t] = n + 1
				p.key ^= handKey[us][t][n] ^ handKey[us][t][n+1]
			}
		}
		p.remove(from, pc)
		if typeOf(pc) == Chick && farRank[us]&(1<<to) != 0 {
			pc = code(Hen, us)
		}
		p.put(to, pc)
	} else {
		t := moveDrop(m)
		p.hist = append(p.hist, undo{key: p.key, move: m})
		n := p.hand[us][t]
		p.hand[us][t] = n - 1
		p.key ^= handKey[us][t][n] ^ handKey[us][t][n-1]
		p.put(to, code(t, us))
	}
	p.stm = us.Other()
	p.key ^= sideKey
	p.ply++
}

// Unmake takes back the last move made.
func (p *Position) Unmake() {
	n := len(p.hist) - 1
	u := p.hist[n]
	p.hist = p.hist[:n]
	p.stm = p.stm.Other()
	p.ply--
	us := p.stm
	to := moveTo(u.move)
	if from := moveFrom(u.move); from >= 0 {
		p.remove(to, p.sq[to])
		p.put(from, u.moved)
		if cp := u.captured; cp != 0 {
			p.put(to, cp)
			if t := typeOf(cp); t != Lion {
				if t == Hen {
					t = Chick
				}
				p.hand[us][t]--
			}
		}
	} else {
		p.remove(to, p.sq[to])
		p.hand[us][moveDrop(u.move)]++
	}
	p.key = u.key
}

// attackers returns the pieces of colour c that attack square s.
func (p *Position) attackers(c game.Color, s int) uint16 {
	o := c.Other() // a piece of c on x attacks s iff s's reverse pattern (o's) holds x
	return p.byColor[c] & (attacks[o][Chick][s]&p.byType[Chick] |
		attacks[o][Giraffe][s]&p.byType[Giraffe] |
		attacks[o][Elephant][s]&p.byType[Elephant] |
		attacks[o][Lion][s]&p.byType[Lion] |
		attacks[o][Hen][s]&p.byType[Hen])
}

// Board-decided states, from the side to move's view.
const (
	stOngoing  = iota
	stLionLost // the side to move's lion was captured: loss
	stTryWon   // the side to move's lion survived a reply on its far rank: win
	stTryLost  // the opponent's lion reached its far rank and wins at once: loss
	stMustTake // safe rule: the opponent's lion stands attacked on its far rank; all moves are legal, only capturing it avoids the loss
)

// boardState decides the position from the board alone. Under the safe try
// rule a lion that moves onto its far rank wins at once unless a piece of
// the other side attacks it; if attacked, the other side must capture it:
// any other reply leaves the lion on the far rank with its owner to move,
// which wins.
func (p *Position) boardState() int {
	us := p.stm
	them := us.Other()
	ours := p.byType[Lion] & p.byColor[us]
	if ours == 0 {
		return stLionLost
	}
	if ours&farRank[us] != 0 {
		return stTryWon
	}
	theirs := p.byType[Lion] & p.byColor[them]
	if theirs&farRank[them] != 0 {
		if p.rules.immediate || p.attackers(us, lsb(theirs)) == 0 {
			return stTryLost
		}
		return stMustTake
	}
	return stOngoing
}

// GenerateMoves appends the legal moves to dst[:0]: board moves by
// from-square, then drops (chick, giraffe, elephant) by target square. It
// returns none when the board decides the game (lion captured, try won).
func (p *Position) GenerateMoves(dst []game.Move) []game.Move {
	dst = dst[:0]
	switch p.boardState() {
	case stOngoing, stMustTake:
	default:
		return dst
	}
	us := p.stm
	own := p.byColor[us]
	for b := own; b != 0; b &= b - 1 {
		s := lsb(b)
		for t := attacks[us][typeOf(p.sq[s])][s] &^ own; t != 0; t &= t - 1 {
			dst = append(dst, boardMove(s, lsb(t)))
		}
	}
	empty := ^(p.byColor[0] | p.byColor[1]) & allBits
	for t := range numHand {
		if p.hand[us][t] == 0 {
			continue
		}
		e := empty
		if t == Chick && p.rules.immediate {
			e &^= farRank[us]
		}
		for ; e != 0; e &= e - 1 {
			dst = append(dst, dropMove(t, lsb(e)))
		}
	}
	return dst
}

// countMoves returns len(GenerateMoves) without generating.
func (p *Position) countMoves() int {
	switch p.boardState() {
	case stOngoing, stMustTake:
	default:
		return 0
	}
	us := p.stm
	own := p.byColor[us]
	n := 0
	for b := own; b != 0; b &= b - 1 {
		s := lsb(b)
		n += popcount(attacks[us][typeOf(p.sq[s])][s] &^ own)
	}
	empty := ^(p.byColor[0] | p.byColor[1]) & allBits
	ne := popcount(empty)
	h := &p.hand[us]
	if h[Chick] != 0 {
		if p.rules.immediate {
			n += popcount(empty &^ farRank[us])
		} else {
			n += ne
		}
	}
	if h[Giraffe] != 0 {
		n += ne
	}
	if h[Elephant] != 0 {
		n += ne
	}
	return n
}

// Status reasons.
const (
	ReasonLionCaptured = "lion captured"
	ReasonTry          = "try"
	ReasonRepetition   = "repetition"
	ReasonPlyCap       = "ply cap"
	ReasonNoMove       = "no legal move"
)

// Status reports the end of the game: a captured lion or a won try (board),
// then threefold repetition, then the ply cap.
func (p *Position) Status() game.Status {
	switch p.boardState() {
	case stLionLost:
		return game.Status{Result: game.Loss, Reason: ReasonLionCaptured}
	case stTryWon:
		return game.Status{Result: game.Win, Reason: ReasonTry}
	case stTryLost:
		return game.Status{Result: game.Loss, Reason: ReasonTry}
	}
	if p.countMoves() == 0 {
		// Rare (every piece of the side to move blocked by its own, and
		// nothing in hand), and lost, as in shogi; the tablebase agrees.
		return game.Status{Result: game.Loss, Reason: ReasonNoMove}
	}
	if p.repetitions() >= 3 {
		return game.Status{Result: game.Draw, Reason: ReasonRepetition}
	}
	if p.ply >= p.rules.plyCap {
		return game.Status{Result: game.Draw, Reason: ReasonPlyCap}
	}
	return game.Status{}
}

// repetitions counts how often the current position (board, hands, side to
// move) has occurred in the known history, this occurrence included.
func (p *Position) repetitions() int {
	n := 1
	for i := len(p.hist) - 2; i >= 0; i -= 2 {
		if p.hist[i].key == p.key {
			n++
		}
	}
	return n
}

// Perft counts the leaves of the legal move tree to depth, counting the
// last ply in bulk. It does not allocate.
func (p *Position) Perft(depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	return p.perft(depth)
}

// maxMoves bounds the legal moves of any position: at most 7 pieces of one
// side on the board (lion + two of each other kind), at most 8 steps each,
// plus 3 drop types onto at most 12 empty squares; 128 is ample.
const maxMoves = 128

func (p *Position) perft(depth int) uint64 {
	if depth == 1 {
		return uint64(p.countMoves())
	}
	var buf [maxMoves]game.Move
	moves := p.GenerateMoves(buf[:0])
	var n uint64
	for _, m := range moves {
		p.Make(m)
		n += p.perft(depth - 1)
		p.Unmake()
	}
	return n
}
