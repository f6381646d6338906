package xiangqi

import "github.com/tabula-zero/tabula/game"

// Position is a Xiangqi position with its history. The zero value is not
// usable; get one from New or Parse.
type Position struct {
	board   [NumSquares]uint8 // id+1 of the piece on each square, 0 = empty
	squares [32]int8          // square of each piece id, -1 once captured
	rankOcc [Ranks]uint16     // bit f set when (rank, f) is occupied
	fileOcc [Files]uint16     // bit r set when (r, file) is occupied
	side    game.Color
	key     uint64

	ply      int // game ply (from the FEN's move number)
	halfmove int // plies since the last capture
	// checked: the side to move is in check (kept for the repetition rule).
	checked bool
	hist    []undo

	rules Rules
	// noPST drops the piece-square tables from Evaluate (the other terms
	// stay), for measuring what the tables are worth.
	noPST bool
}

// Rules are the options that change adjudication and notation.
type Rules struct {
	PlyCap int  // the game is drawn when this game ply is reached
	ICCS   bool // write moves in ICCS ranks 0-9 (h2e2) instead of UCI ranks 1-10
}

// DefaultRules are the rules of a new game.
var DefaultRules = Rules{PlyCap: 400}

type undo struct {
	move     game.Move
	captured uint8 // board value taken, 0 for a quiet move
	key      uint64
	halfmove int32
	checked  bool // the side to move was in check before the move
}

// SideToMove returns the side to move.
func (p *Position) SideToMove() game.Color { return p.side }

// Key returns the Zobrist key of the pieces and side to move.
func (p *Position) Key() uint64 { return p.key }

// Ply returns the game ply.
func (p *Position) Ply() int { return p.ply }

// HalfmoveClock returns the plies since the last capture.
func (p *Position) HalfmoveClock() int { return p.halfmove }

// Game returns "xiangqi".
func (p *Position) Game() string { return Name }

// Rules returns the position's rule options.
func (p *Position) Rules() Rules { return p.rules }

// InCheck reports whether the side to move is in check.
func (p *Position) InCheck() bool { return p.checked }

// PieceAt returns the colour and type (NoType when empty) on sq.
func (p *Position) PieceAt(sq int) (game.Color, int) {
	v := p.board[sq]
	if v == 0 {
		return 0, NoType
	}
	return game.Color(valColor[v]), int(valType[v])
}

func (p *Position) put(v uint8, sq int) {
	p.board[sq] = v
	p.squares[v-1] = int8(sq)
	p.rankOcc[rankOf(sq)] |= 1 << fileOf(sq)
	p.fileOcc[fileOf(sq)] |= 1 << rankOf(sq)
	p.key ^= zobrist[v][sq]
}

// doMove moves the pieces and updates occupancy and key; it returns the
// board value captured (0 if none). It is the shared core of Make and perft.
func (p *Position) doMove(m game.Move) uint8 {
	from, to := From(m), To(m)
	v := p.board[from]
	cap := p.board[to]
	p.board[from] = 0
	p.board[to] = v
	p.squares[v-1] = int8(to)
	fr, ff, tr, tf := rankOf(from), fileOf(from), rankOf(to), fileOf(to)
	p.rankOcc[fr] &^= 1 << ff
	p.fileOcc[ff] &^= 1 << fr
	p.rankOcc[tr] |= 1 << tf
	p.fileOcc[tf] |= 1 << tr
	p.key ^= zobrist[v][from] ^ zobrist[v][to] ^ zobristSide
	if cap != 0 {
		p.squares[cap-1] = -1
		p.key ^= zobrist[cap][to]
	}
	p.side ^= 1
	return cap
}

func (p *Position) undoMove(m game.Move, cap uint8) {
	from, to := From(m), To(m)
	v := p.board[to]
	p.board[from] = v
	p.board[to] = cap
	p.squares[v-1] = int8(from)
	fr, ff, tr, tf := rankOf(from), fileOf(from), rankOf(to), fileOf(to)
	p.rankOcc[fr] |= 1 << ff
	p.fileOcc[ff] |= 1 << fr
	p.key ^= zobrist[v][from] ^ zobrist[v][to] ^ zobristSide
	if cap != 0 {
		p.squares[cap-1] = int8(to)
		p.key ^= zobrist[cap][to]
	} else {
		p.rankOcc[tr] &^= 1 << tf
		p.fileOcc[tf] &^= 1 << tr
	}
	p.side ^= 1
}

// Make plays a legal move and records it for Unmake and the rules.
func (p *Position) Make(m game.Move) {
	p.hist = append(p.hist, undo{move: m, key: p.key, halfmove: int32(p.halfmove), checked: p.checked})
	cap := p.doMove(m)
	p.hist[len(p.hist)-1].captured = cap
	p.ply++
	if cap != 0 {
		p.halfmove = 0
	} else {
		p.halfmove++
	}
	p.checked = p.attacked(int(p.squares[kingVal(p.side)-1]), p.side)
}

// Unmake takes back the last move made.
func (p *Position) Unmake() {
	u := p.hist[len(p.hist)-1]
	p.hist = p.hist[:len(p.hist)-1]
	p.undoMove(u.move, u.captured)
	p.ply--
	p.halfmove = int(u.halfmove)
	p.checked = u.checked
}

// attacked reports whether the general of side us, on k, is attacked:
// by a chariot or the other general (flying general) on an open line, a
// cannon over one screen, a horse whose leg is free, or a soldier.
func (p *Position) attacked(k int, us game.Color) bool {
	them := uint8(us ^ 1)
	r, f := rankOf(k), fileOf(k)

	e := &rankLine[f][p.rankOcc[r]]
	for m := e.rookCap; m != 0; m &= m - 1 {
		v := p.board[r*Files+trailing(m)]
		if valColor[v] == them && valType[v] == Rook {
			return true
		}
	}
	for m := e.cannonCap; m != 0; m &= m - 1 {
		v := p.board[r*Files+trailing(m)]
		if valColor[v] == them && valType[v] == Cannon {
			return true
		}
	}
	e = &fileLine[r][p.fileOcc[f]]
	for m := e.rookCap; m != 0; m &= m - 1 {
		v := p.board[trailing(m)*Files+f]
		if valColor[v] == them && (valType[v] == Rook || valType[v] == King) {
			return true
		}
	}
	for m := e.cannonCap; m != 0; m &= m - 1 {
		v := p.board[trailing(m)*Files+f]
		if valColor[v] == them && valType[v] == Cannon {
			return true
		}
	}
	for i := uint8(0); i < horseAttN[k]; i++ {
		h := horseAttacks[k][i]
		if p.board[h.leg] == 0 {
			v := p.board[h.to]
			if valColor[v] == them && valType[v] == Horse {
				return true
			}
		}
	}
	// Soldiers attack from the square in front of the general (seen from
	// us) and from beside it: a soldier in the enemy palace has crossed the
	// river, so it may step sideways.
	fwd := k + Files
	if us == game.Second {
		fwd = k - Files
	}
	if fwd >= 0 && fwd < NumSquares {
		if v := p.board[fwd]; valColor[v] == them && valType[v] == Pawn {
			return true
		}
	}
	if f > 0 {
		if v := p.board[k-1]; valColor[v] == them && valType[v] == Pawn {
			return true
		}
	}
	if f < Files-1 {
		if v := p.board[k+1]; valColor[v] == them && valType[v] == Pawn {
			return true
		}
	}
	return false
}
