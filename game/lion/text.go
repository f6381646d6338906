package lion

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tabula-zero/tabula/game"
)

// StartText is the start position in the text format.
const StartText = "gle/1c1/1C1/ELG w - 1"

const (
	pieceLetters = "CGELH" // by type, upper case for the first player
	handLetters  = "CGE"
	maxPly       = 1 << 30 // bound on the text ply number, far beyond any cap
)

var colorName = [2]string{"first player", "second player"}

// typeName is used in error messages.
var typeName = [numTypes]string{"chick", "giraffe", "elephant", "lion", "hen"}

func squareName(s int) string {
	return string([]byte{byte('a' + s%files), byte('1' + s/files)})
}

// Parse reads a position in the text format (see the package
// documentation) under the given rule options.
func Parse(text string, opts game.Options) (*Position, error) {
	r, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	return parse(text, r)
}

func parse(text string, r rules) (*Position, error) {
	f := strings.Fields(text)
	if len(f) != 4 {
		return nil, fmt.Errorf("lion: position %q has %d fields, want 4: <board> <side> <hands> <ply>", text, len(f))
	}
	p := &Position{rules: r, hist: make([]undo, 0, histCap)}

	// Board.
	rk := strings.Split(f[0], "/")
	if len(rk) != ranks {
		return nil, fmt.Errorf("lion: board %q has %d ranks, want %d separated by '/'", f[0], len(rk), ranks)
	}
	for i, row := range rk {
		rank := ranks - 1 - i
		file := 0
		for j := 0; j < len(row); j++ {
			ch := row[j]
			switch {
			case ch >= '1' && ch <= '9':
				file += int(ch - '0')
				if file > files {
					return nil, fmt.Errorf("lion: rank %d %q is longer than %d squares", rank+1, row, files)
				}
			case strings.IndexByte(pieceLetters, upper(ch)) >= 0:
				if file >= files {
					return nil, fmt.Errorf("lion: rank %d %q is longer than %d squares", rank+1, row, files)
				}
				t := strings.IndexByte(pieceLetters, upper(ch))
				c := game.First
				if ch >= 'a' {
					c = game.Second
				}
				p.put(rank*files+file, code(t, c))
				file++
			default:
				return nil, fmt.Errorf("lion: rank %d %q: unknown piece letter %q (want L G E C H, upper case for the first player, or a digit 1-3)", rank+1, row, rune(ch))
			}
		}
		if file != files {
			return nil, fmt.Errorf("lion: rank %d %q has %d squares, want %d", rank+1, row, file, files)
		}
	}

	// Side to move.
	switch f[1] {
	case "w":
		p.stm = game.First
	case "b":
		p.stm = game.Second
		p.key ^= sideKey
	default:
		return nil, fmt.Errorf("lion: bad side to move %q, want w or b", f[1])
	}

	// Hands.
	if err := p.parseHands(f[2]); err != nil {
		return nil, err
	}

	// Ply number: the ply about to be played, 1 at the start.
	n, err := strconv.Atoi(f[3])
	if err != nil || n < 1 || n > maxPly {
		return nil, fmt.Errorf("lion: bad ply number %q, want an integer from 1 to %d", f[3], maxPly)
	}
	if game.Color((n-1)&1) != p.stm {
		return nil, fmt.Errorf("lion: ply number %d does not fit side to move %s: the first player (w) moves on odd plies", n, f[1])
	}
	p.ply = n - 1

	if err := p.validate(); err != nil {
		return nil, err
	}
	return p, nil
}

func upper(ch byte) byte {
	if ch >= 'a' && ch <= 'z' {
		return ch - 'a' + 'A'
	}
	return ch
}

func (p *Position) parseHands(s string) error {
	if s == "-" {
		return nil
	}
	if s == "" {
		return fmt.Errorf("lion: empty hands, want - for none")
	}
	var seen [2][numHand]bool
	for i := 0; i < len(s); i++ {
		count := 1
		if ch := s[i]; ch >= '0' && ch <= '9' {
			if ch != '1' && ch != '2' {
				return fmt.Errorf("lion: hands %q: count %c is impossible, a hand holds 1 or 2 of a kind", s, ch)
			}
			count = int(ch - '0')
			i++
			if i == len(s) {
				return fmt.Errorf("lion: hands %q: count without a piece letter", s)
			}
		}
		ch := s[i]
		c := game.First
		if ch >= 'a' && ch <= 'z' {
			c = game.Second
		}
		switch upper(ch) {
		case 'L':
			return fmt.Errorf("lion: hands %q: a lion never enters a hand", s)
		case 'H':
			return fmt.Errorf("lion: hands %q: a hen cannot be in hand (a captured hen becomes a chick)", s)
		}
		t := strings.IndexByte(handLetters, upper(ch))
		if t < 0 {
			return fmt.Errorf("lion: hands %q: unknown piece letter %q (want C G E, upper case for the first player)", s, rune(ch))
		}
		if seen[c][t] {
			return fmt.Errorf("lion: hands %q: %c given twice", s, ch)
		}
		seen[c][t] = true
		p.hand[c][t] = uint8(count)
		p.key ^= handKey[c][t][count]
	}
	return nil
}

// validate rejects piece sets and placements that no game can reach.
func (p *Position) validate() error {
	for c := range 2 {
		lions := popcount(p.byType[Lion] & p.byColor[c])
		if lions > 1 {
			return fmt.Errorf("lion: the %s has %d lions, want 1", colorName[c], lions)
		}
		if lions == 0 && game.Color(c) != p.stm {
			return fmt.Errorf("lion: the %s has no lion (only the side to move may lack it, just captured)", colorName[c])
		}
	}
	for t := range numHand {
		n := popcount(p.byType[t]) + int(p.hand[0][t]) + int(p.hand[1][t])
		what := typeName[t] + "s"
		if t == Chick {
			n += popcount(p.byType[Hen])
			what = "chicks and hens"
		}
		if n > 2 {
			return fmt.Errorf("lion: %d %s on board and in hand, the game has 2", n, what)
		}
	}
	if p.rules.immediate {
		for c := range 2 {
			if b := p.byType[Chick] & p.byColor[c] & farRank[c]; b != 0 {
				return fmt.Errorf("lion: %s chick on %s, its far rank: impossible under TryRule=immediate (chicks promote there and may not be dropped there)", colorName[c], squareName(lsb(b)))
			}
		}
		if b := p.byType[Lion] & p.byColor[p.stm] & farRank[p.stm]; b != 0 {
			return fmt.Errorf("lion: %s lion on %s, its far rank, with its side to move: impossible under TryRule=immediate (the try ended the game)", colorName[p.stm], squareName(lsb(b)))
		}
	}
	return nil
}

// String returns the position in the text format.
func (p *Position) String() string {
	var b strings.Builder
	for rank := ranks - 1; rank >= 0; rank-- {
		empty := 0
		for file := range files {
			pc := p.sq[rank*files+file]
			if pc == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteByte(letter(pc))
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if rank > 0 {
			b.WriteByte('/')
		}
	}
	if p.stm == game.First {
		b.WriteString(" w ")
	} else {
		b.WriteString(" b ")
	}
	hands := false
	for c := range 2 {
		for t := range numHand {
			n := p.hand[c][t]
			if n == 0 {
				continue
			}
			if n > 1 {
				b.WriteByte(byte('0' + n))
			}
			ch := handLetters[t]
			if c == 1 {
				ch += 'a' - 'A'
			}
			b.WriteByte(ch)
			hands = true
		}
	}
	if !hands {
		b.WriteByte('-')
	}
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(p.ply + 1))
	return b.String()
}

func letter(pc uint8) byte {
	ch := pieceLetters[typeOf(pc)]
	if colorOf(pc) == game.Second {
		ch += 'a' - 'A'
	}
	return ch
}

// FormatMove writes m as from-to ("b1b2") or as a drop ("C*b3"); codes
// that are no move come out as "0000".
func (p *Position) FormatMove(m game.Move) string { return FormatMove(m) }

// FormatMove writes a move code in the move notation.
func FormatMove(m game.Move) string {
	from, to, t := moveFrom(m), moveTo(m), moveDrop(m)
	switch {
	case m>>10 != 0 || to >= squares:
	case t < 0 && from >= 0 && from < squares && from != to:
		return squareName(from) + squareName(to)
	case t >= 0 && t < numHand && from < 0:
		return string(handLetters[t]) + "*" + squareName(to)
	}
	return "0000"
}

// ParseMove reads a move and checks that it is legal here.
func (p *Position) ParseMove(s string) (game.Move, error) {
	m, err := parseMoveText(s)
	if err != nil {
		return game.NoMove, err
	}
	var buf [maxMoves]game.Move
	for _, x := range p.GenerateMoves(buf[:0]) {
		if x == m {
			return m, nil
		}
	}
	return game.NoMove, p.whyIllegal(s, m)
}

func parseSquare(s string) (int, bool) {
	if len(s) != 2 || s[0] < 'a' || s[0] >= 'a'+files || s[1] < '1' || s[1] >= '1'+ranks {
		return 0, false
	}
	return int(s[1]-'1')*files + int(s[0]-'a'), true
}

func parseMoveText(s string) (game.Move, error) {
	if len(s) == 5 && s[4] == '+' {
		return game.NoMove, fmt.Errorf("lion: move %q: promotion is implicit, write it without '+'", s)
	}
	if len(s) != 4 {
		return game.NoMove, fmt.Errorf("lion: malformed move %q, want from-to like b1b2 or a drop like C*b3", s)
	}
	if s[1] == '*' {
		to, ok := parseSquare(s[2:])
		if !ok {
			return game.NoMove, fmt.Errorf("lion: drop %q: bad square %q (files a-c, ranks 1-4)", s, s[2:])
		}
		switch s[0] {
		case 'L':
			return game.NoMove, fmt.Errorf("lion: drop %q: a lion is never in hand", s)
		case 'H':
			return game.NoMove, fmt.Errorf("lion: drop %q: a hen is never in hand (captured hens become chicks)", s)
		}
		t := strings.IndexByte(handLetters, s[0])
		if t < 0 {
			return game.NoMove, fmt.Errorf("lion: drop %q: piece letter must be C, G or E (upper case for both sides)", s)
		}
		return dropMove(t, to), nil
	}
	from, ok1 := parseSquare(s[:2])
	to, ok2 := parseSquare(s[2:])
	if !ok1 || !ok2 {
		return game.NoMove, fmt.Errorf("lion: malformed move %q, want from-to like b1b2 (files a-c, ranks 1-4) or a drop like C*b3", s)
	}
	if from == to {
		return game.NoMove, fmt.Errorf("lion: move %q does not move", s)
	}
	return boardMove(from, to), nil
}

// whyIllegal explains why the well-formed move m (text s) is not legal.
func (p *Position) whyIllegal(s string, m game.Move) error {
	if st := p.boardState(); st != stOngoing && st != stMustTake {
		return fmt.Errorf("lion: illegal move %s: the game is over (%s)", s, p.Status().Reason)
	}
	us := p.stm
	to := moveTo(m)
	if t := moveDrop(m); t >= 0 {
		switch {
		case p.hand[us][t] == 0:
			return fmt.Errorf("lion: illegal drop %s: the %s has no %s in hand", s, colorName[us], typeName[t])
		case p.sq[to] != 0:
			return fmt.Errorf("lion: illegal drop %s: %s is occupied", s, squareName(to))
		case t == Chick && p.rules.immediate && farRank[us]&(1<<to) != 0:
			return fmt.Errorf("lion: illegal drop %s: no chick drops on the far rank under TryRule=immediate", s)
		}
	} else {
		from := moveFrom(m)
		pc := p.sq[from]
		switch {
		case pc == 0 || colorOf(pc) != us:
			return fmt.Errorf("lion: illegal move %s: no piece of the %s (to move) on %s", s, colorName[us], squareName(from))
		case attacks[us][typeOf(pc)][from]&(1<<to) == 0:
			return fmt.Errorf("lion: illegal move %s: a %s cannot step from %s to %s", s, typeName[typeOf(pc)], squareName(from), squareName(to))
		case p.byColor[us]&(1<<to) != 0:
			return fmt.Errorf("lion: illegal move %s: %s holds a piece of the same side", s, squareName(to))
		}
	}
	return fmt.Errorf("lion: illegal move %s", s)
}

// Board gives the pieces for drawing: 3 files, 4 ranks from the second
// player's side, and the hands.
func (p *Position) Board() game.Board {
	fields := strings.Fields(p.String())
	cells, _ := game.GridCells(fields[0], files) // the position's own text always reads
	b := game.Board{Files: files, Ranks: len(cells) / files, Cells: cells, Style: "squares", Side: p.SideToMove()}
	count := 1
	for _, c := range fields[2] {
		switch {
		case c >= '1' && c <= '9':
			count = int(c - '0')
			continue
		case c >= 'A' && c <= 'Z':
			b.Hands[game.First] += strings.Repeat(string(c), count)
		case c >= 'a' && c <= 'z':
			b.Hands[game.Second] += strings.Repeat(string(c), count)
		}
		count = 1
	}
	return b
}

// Diagram draws the board (the first player's upper-case pieces at the
// bottom, ranks 1 to 4), the pieces in hand and the side to move.
func (p *Position) Diagram() string {
	fields := strings.Fields(p.String())
	d, err := game.GridDiagram(fields[0], files, 1, 0)
	if err != nil {
		return err.Error() // the position's own text always draws
	}
	side := "first (upper case)"
	if p.SideToMove() == game.Second {
		side = "second (lower case)"
	}
	return d + "hands: " + fields[2] + "\n" + side + " to move\n"
}
