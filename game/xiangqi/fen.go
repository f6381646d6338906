package xiangqi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tabula-zero/tabula/game"
)

// StartFEN is the standard start position.
const StartFEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

// historyCap preallocates the move history so Make does not allocate in
// games up to this length.
const historyCap = 512

var letterType = map[byte]int{
	'k': King, 'a': Advisor, 'b': Elephant, 'e': Elephant, 'n': Horse, 'h': Horse,
	'r': Rook, 'c': Cannon, 'p': Pawn,
}

var typeLetter = [numTypes]byte{0, 'k', 'a', 'b', 'n', 'r', 'c', 'p'}

var typeName = [numTypes]string{"", "general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier"}

// New returns the start position.
func New(rules Rules) *Position {
	p, err := Parse(StartFEN, rules)
	if err != nil {
		panic("xiangqi: start FEN: " + err.Error())
	}
	return p
}

// Parse reads a position in standard Xiangqi FEN: board ranks from Black's
// side (rank 10) down to Red's, side to move (w or r for Red, b for Black),
// then optionally two unused fields, the plies since the last capture and
// the move number. E for elephant and H for horse are accepted as well.
func Parse(fen string, rules Rules) (*Position, error) {
	f := strings.Fields(fen)
	if len(f) == 0 {
		return nil, fmt.Errorf("xiangqi: bad FEN %q: empty", fen)
	}
	if len(f) < 2 {
		return nil, fmt.Errorf("xiangqi: bad FEN %q: side to move missing", fen)
	}
	if len(f) > 6 {
		return nil, fmt.Errorf("xiangqi: bad FEN %q: %d fields, at most 6", fen, len(f))
	}
	p := &Position{rules: rules, hist: make([]undo, 0, historyCap)}
	for i := range p.squares {
		p.squares[i] = -1
	}
	if err := p.parseBoard(f[0]); err != nil {
		return nil, fmt.Errorf("xiangqi: bad FEN %q: %w", fen, err)
	}
	switch f[1] {
	case "w", "r":
		p.side = game.First
	case "b":
		p.side = game.Second
		p.key ^= zobristSide
	default:
		return nil, fmt.Errorf("xiangqi: bad FEN %q: side to move %q is not w, r or b", fen, f[1])
	}
	move := 1
	if len(f) >= 5 {
		n, err := strconv.Atoi(f[4])
		if err != nil || n < 0 {
			return nil, fmt.Errorf("xiangqi: bad FEN %q: halfmove clock %q is not a count", fen, f[4])
		}
		p.halfmove = n
	}
	if len(f) >= 6 {
		n, err := strconv.Atoi(f[5])
		if err != nil || n < 1 || n > 1<<20 {
			return nil, fmt.Errorf("xiangqi: bad FEN %q: move number %q is not a positive number", fen, f[5])
		}
		move = n
	}
	p.ply = 2*(move-1) + int(p.side)
	if p.attacked(int(p.squares[kingVal(p.side^1)-1]), p.side^1) {
		return nil, fmt.Errorf("xiangqi: bad FEN %q: the side not to move is in check (or the generals face each other)", fen)
	}
	p.checked = p.attacked(int(p.squares[kingVal(p.side)-1]), p.side)
	return p, nil
}

func (p *Position) parseBoard(s string) error {
	rows := strings.Split(s, "/")
	if len(rows) != Ranks {
		return fmt.Errorf("%d ranks, want %d", len(rows), Ranks)
	}
	var count [2][numTypes]uint8
	for i, row := range rows {
		r := Ranks - 1 - i
		f := 0
		for j := 0; j < len(row); j++ {
			ch := row[j]
			if ch >= '1' && ch <= '9' {
				f += int(ch - '0')
				continue
			}
			lower := ch | 0x20
			t, ok := letterType[lower]
			if !ok || (ch < 'A' || (ch > 'Z' && ch < 'a') || ch > 'z') {
				return fmt.Errorf("rank %d: unknown piece letter %q", r+1, ch)
			}
			if f >= Files {
				return fmt.Errorf("rank %d has more than %d files", r+1, Files)
			}
			c := game.First
			if ch == lower {
				c = game.Second
			}
			sq := r*Files + f
			if err := checkSquare(c, t, sq); err != nil {
				return err
			}
			if count[c][t] >= typeCount[t] {
				return fmt.Errorf("more than %d %s %s(s)", typeCount[t], sideName(c), typeName[t])
			}
			id := int(c)*16 + int(firstID[t]) + int(count[c][t])
			count[c][t]++
			p.put(uint8(id+1), sq)
			f++
		}
		if f != Files {
			return fmt.Errorf("rank %d has %d files, want %d", r+1, f, Files)
		}
	}
	for c := game.First; c <= game.Second; c++ {
		if count[c][King] != 1 {
			return fmt.Errorf("%s has %d generals, want 1", sideName(c), count[c][King])
		}
	}
	return nil
}

// checkSquare rejects pieces on squares they can never reach.
func checkSquare(c game.Color, t, sq int) error {
	name := func() string {
		return fmt.Sprintf("%s %s on %s", sideName(c), typeName[t], squareName(sq, false))
	}
	switch t {
	case King:
		if !inPalace[c][sq] {
			return fmt.Errorf("%s is outside the palace", name())
		}
	case Advisor:
		if !advSquare[c][sq] {
			return fmt.Errorf("%s is not on a palace diagonal point", name())
		}
	case Elephant:
		if !eleSquare[c][sq] {
			return fmt.Errorf("%s is not on an elephant point of its side", name())
		}
	case Pawn:
		r, f := rankOf(sq), fileOf(sq)
		if c == game.Second {
			r = Ranks - 1 - r
		}
		if r < 3 || (r < 5 && f%2 == 1) {
			return fmt.Errorf("%s is on a square a soldier cannot reach", name())
		}
	}
	return nil
}

func sideName(c game.Color) string {
	if c == game.First {
		return "red"
	}
	return "black"
}

// String returns the position as FEN.
func (p *Position) String() string {
	var b strings.Builder
	for r := Ranks - 1; r >= 0; r-- {
		empty := 0
		for f := 0; f < Files; f++ {
			v := p.board[r*Files+f]
			if v == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			ch := typeLetter[valType[v]]
			if valColor[v] == 0 {
				ch -= 'a' - 'A'
			}
			b.WriteByte(ch)
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	side := "w"
	if p.side == game.Second {
		side = "b"
	}
	fmt.Fprintf(&b, " %s - - %d %d", side, p.halfmove, p.ply/2+1)
	return b.String()
}

// Clone returns an independent copy, history included.
func (p *Position) Clone() game.Position { return p.Copy() }

// Copy returns an independent copy as the concrete type.
func (p *Position) Copy() *Position {
	q := *p
	q.hist = make([]undo, len(p.hist), max(cap(p.hist), historyCap))
	copy(q.hist, p.hist)
	return &q
}

// Board gives the pieces for drawing: 9 files, 10 ranks from Black's
// side, on points.
func (p *Position) Board() game.Board {
	cells, _ := game.GridCells(strings.Fields(p.String())[0], Files) // the position's own FEN always reads
	return game.Board{Files: Files, Ranks: len(cells) / Files, Cells: cells, Style: "xiangqi", Side: p.SideToMove()}
}

// Diagram draws the board (Red's upper-case pieces at the bottom, ranks 1
// to 10, the river between 5 and 6) and the side to move.
func (p *Position) Diagram() string {
	fields := strings.Fields(p.String())
	d, err := game.GridDiagram(fields[0], Files, 1, 5)
	if err != nil {
		return err.Error() // the position's own FEN always draws
	}
	side := "Red"
	if p.SideToMove() == game.Second {
		side = "Black"
	}
	return d + side + " to move\n"
}
