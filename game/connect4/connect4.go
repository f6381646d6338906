// Package connect4 implements Connect Four (7 columns x 6 rows) on
// bitboards, as in the Connect Four seed and Pascal Pons' solver.
//
// Layout: column-major, 7 bits per column, cell (col c, row r from the
// bottom) is bit 7c+r. Bit 7c+6 of every column is an always-empty sentinel,
// so line detection by shifts (1 vertical, 7 horizontal, 6 and 8 diagonal)
// never wraps from one column into the next.
//
// A position stores the stones of the side to move (Current) and the mask of
// all stones (Mask); the opponent's stones are Current^Mask. The text format
// is Pons' notation: the columns played from the empty board as digits 1-7,
// so the start position is the empty string.
package connect4

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"

	"github.com/tabula-zero/tabula/game"
)

// Name is the registered name of the game.
const Name = "connect4"

// Board dimensions.
const (
	Width  = 7
	Height = 6
	Cells  = Width * Height
)

const (
	// BottomMask has the bottom cell of every column.
	BottomMask uint64 = 1 | 1<<7 | 1<<14 | 1<<21 | 1<<28 | 1<<35 | 1<<42
	// BoardMask has every playable cell (sentinels excluded).
	BoardMask uint64 = BottomMask * (1<<Height - 1)
)

// ColumnMask returns the playable cells of column col (0-6).
func ColumnMask(col int) uint64 { return (1<<Height - 1) << (col * (Height + 1)) }

func topMask(col int) uint64    { return 1 << (Height - 1 + col*(Height+1)) }
func bottomMask(col int) uint64 { return 1 << (col * (Height + 1)) }

// ColumnMove returns the Move for column col (0-6). Moves are col+1 so that
// game.NoMove (0) is never a column.
func ColumnMove(col int) game.Move { return game.Move(col + 1) }

// MoveColumn returns the column (0-6) of m, or -1 for a value that is no
// column.
func MoveColumn(m game.Move) int {
	if m < 1 || m > Width {
		return -1
	}
	return int(m) - 1
}

// HasFour reports whether stones holds four in a row in any direction.
func HasFour(stones uint64) bool {
	// Horizontal.
	m := stones & (stones >> (Height + 1))
	if m&(m>>(2*(Height+1))) != 0 {
		return true
	}
	// Diagonal "\" (down to the right).
	m = stones & (stones >> Height)
	if m&(m>>(2*Height)) != 0 {
		return true
	}
	// Diagonal "/" (up to the right).
	m = stones & (stones >> (Height + 2))
	if m&(m>>(2*(Height+2))) != 0 {
		return true
	}
	// Vertical.
	m = stones & (stones >> 1)
	return m&(m>>2) != 0
}

// Possible returns the playable cells (one per non-full column) of a board
// whose stones are mask: adding the bottom bit carries through each column's
// stones to the first empty cell.
func Possible(mask uint64) uint64 { return (mask + BottomMask) & BoardMask }

// WinningCells returns the empty cells that would complete a four for the
// player with the given stones (Pons' construction), playable now or not.
// A solver ANDs it with Possible for immediate wins, and uses it for
// threat-count move ordering and non-losing move pruning.
func WinningCells(stones, mask uint64) uint64 {
	// Vertical: three stacked stones, the cell above.
	r := (stones << 1) & (stones << 2) & (stones << 3)
	r |= lineGaps(stones, Height+1) // horizontal
	r |= lineGaps(stones, Height)   // diagonal "\"
	r |= lineGaps(stones, Height+2) // diagonal "/"
	return r & (BoardMask ^ mask)
}

// lineGaps returns the cells that complete three stones along direction s
// (xxx., xx.x, x.xx, .xxx).
func lineGaps(stones uint64, s uint) uint64 {
	p := (stones << s) & (stones << (2 * s))
	r := p & (stones << (3 * s))
	r |= p & (stones >> s)
	p = (stones >> s) & (stones >> (2 * s))
	r |= p & (stones << s)
	r |= p & (stones >> (3 * s))
	return r
}

// zobrist[color][bit] and the side key come from a fixed PCG seed, so keys
// are identical across runs and processes (replay shards, NN caches).
var (
	zobrist     [2][64]uint64
	zobristSide uint64
)

func init() {
	rng := rand.New(rand.NewPCG(0xc04ec7f0, 0x7ab01a))
	for c := range zobrist {
		for b := range zobrist[c] {
			zobrist[c][b] = rng.Uint64()
		}
	}
	zobristSide = rng.Uint64()
}

// Position is a Connect Four position with its move history. The zero value
// is the empty board. It implements game.Position and game.Perfter.
type Position struct {
	current uint64 // stones of the side to move
	mask    uint64 // all stones
	key     uint64
	n       int          // plies played
	cols    [Cells]uint8 // columns played (0-6); a game has at most 42 plies, so the history lives inline and Make never allocates
}

var _ game.Position = (*Position)(nil)
var _ game.Perfter = (*Position)(nil)

// New returns the empty board, the first player to move.
func New() *Position { return &Position{} }

// Game returns "connect4".
func (p *Position) Game() string { return Name }

// SideToMove returns First after an even number of plies.
func (p *Position) SideToMove() game.Color { return game.Color(p.n & 1) }

// Ply returns the number of stones on the board.
func (p *Position) Ply() int { return p.n }

// Moves returns the number of stones on the board (Pons' nbMoves).
func (p *Position) Moves() int { return p.n }

// Key returns the Zobrist key of the stones and the side to move.
func (p *Position) Key() uint64 { return p.key }

// Current returns the stones of the side to move.
func (p *Position) Current() uint64 { return p.current }

// Mask returns all stones on the board.
func (p *Position) Mask() uint64 { return p.mask }

// PackedKey returns current+mask, a unique 49-bit code of the position
// (the seed's and Pons' transposition-table key).
func (p *Position) PackedKey() uint64 { return p.current + p.mask }

// Possible returns the playable cells, regardless of whether the game is
// over.
func (p *Position) Possible() uint64 { return Possible(p.mask) }

// CanPlay reports whether column col (0-6) has room. It ignores whether the
// game is over; GenerateMoves and ParseMove do not.
func (p *Position) CanPlay(col int) bool {
	return col >= 0 && col < Width && p.mask&topMask(col) == 0
}

// IsWinningMove reports whether playing column col (0-6), which must be
// playable, completes a four for the side to move.
func (p *Position) IsWinningMove(col int) bool {
	mv := (p.mask + bottomMask(col)) & ColumnMask(col)
	return HasFour(p.current | mv)
}

// NonLosingMoves returns the playable cells after which the opponent
// cannot win at once (Pons' possibleNonLosingMoves), 0 when every move
// loses. It assumes the side to move has no winning move, which a solver
// checks first.
func (p *Position) NonLosingMoves() uint64 {
	possible := Possible(p.mask)
	opp := WinningCells(p.current^p.mask, p.mask)
	if forced := possible & opp; forced != 0 {
		if forced&(forced-1) != 0 {
			return 0 // two threats: cannot block both
		}
		possible = forced
	}
	return possible &^ (opp >> 1) // never play just below an opponent's winning cell
}

// over reports whether the board decides the game: the player who just
// moved has four, or the board is full.
func (p *Position) over() bool {
	return p.n == Cells || HasFour(p.current^p.mask)
}

// GenerateMoves appends the playable columns, left to right, to dst[:0];
// none when the game is over.
func (p *Position) GenerateMoves(dst []game.Move) []game.Move {
	dst = dst[:0]
	if p.over() {
		return dst
	}
	for col := 0; col < Width; col++ {
		if p.mask&topMask(col) == 0 {
			dst = append(dst, ColumnMove(col))
		}
	}
	return dst
}

// Make drops a stone of the side to move into m's column. It panics when the
// column does not exist or is full, which would corrupt the bitboards; it
// does not check whether the game is already over.
func (p *Position) Make(m game.Move) {
	col := MoveColumn(m)
	if col < 0 || p.mask&topMask(col) != 0 {
		panic(fmt.Sprintf("connect4: Make of illegal move %d", m))
	}
	mv := (p.mask + bottomMask(col)) & ColumnMask(col)
	p.key ^= zobrist[p.n&1][bits.TrailingZeros64(mv)] ^ zobristSide
	p.current ^= p.mask
	p.mask |= mv
	p.cols[p.n] = uint8(col)
	p.n++
}

// Unmake takes back the last move. It panics on the start position.
func (p *Position) Unmake() {
	if p.n == 0 {
		panic("connect4: Unmake without a move")
	}
	p.n--
	col := int(p.cols[p.n])
	// The top stone of the column is one below its first empty cell.
	mv := (((p.mask & ColumnMask(col)) + bottomMask(col)) >> 1)
	p.mask ^= mv
	p.current ^= p.mask
	p.key ^= zobrist[p.n&1][bits.TrailingZeros64(mv)] ^ zobristSide
}

// Status: after a four the side to move (who did not make it) has lost; a
// full board without a four is a draw.
func (p *Position) Status() game.Status {
	if HasFour(p.current ^ p.mask) {
		return game.Status{Result: game.Loss, Reason: "four in a row"}
	}
	if p.n == Cells {
		return game.Status{Result: game.Draw, Reason: "board full"}
	}
	return game.Status{Result: game.Ongoing}
}

// ParseMove reads a column digit 1-7 and checks that it can be played here.
func (p *Position) ParseMove(s string) (game.Move, error) {
	if len(s) != 1 || s[0] < '1' || s[0] > '7' {
		return game.NoMove, fmt.Errorf("connect4: move %q is not a column digit 1-7", s)
	}
	col := int(s[0] - '1')
	if st := p.Status(); st.Over() {
		return game.NoMove, fmt.Errorf("connect4: move %q: the game is over (%s)", s, st.Reason)
	}
	if !p.CanPlay(col) {
		return game.NoMove, fmt.Errorf("connect4: move %q: column %d is full", s, col+1)
	}
	return ColumnMove(col), nil
}

// FormatMove writes m as its column digit 1-7 ("?" for a value that is no
// column).
func (p *Position) FormatMove(m game.Move) string {
	if col := MoveColumn(m); col >= 0 {
		return string(rune('1' + col))
	}
	return "?"
}

// String returns the columns played as digits 1-7 ("" at the start).
func (p *Position) String() string {
	var b [Cells]byte
	for i := 0; i < p.n; i++ {
		b[i] = '1' + p.cols[i]
	}
	return string(b[:p.n])
}

// Clone returns an independent copy; the history is inline, so a value copy
// is deep.
func (p *Position) Clone() game.Position {
	q := *p
	return &q
}

// Parse reads a position in Pons' notation: the columns played from the
// empty board as digits 1-7. Surrounding white space is ignored.
func Parse(text string) (*Position, error) {
	start := len(text) - len(strings.TrimLeft(text, " \t\r\n"))
	s := strings.TrimRight(text[start:], " \t\r\n")
	p := New()
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '1' || c > '7' {
			return nil, fmt.Errorf("connect4: position %q: character %q at index %d is not a column digit 1-7", text, c, start+i)
		}
		col := int(c - '1')
		if st := p.Status(); st.Over() {
			return nil, fmt.Errorf("connect4: position %q: move %c at index %d comes after the game ended (%s)", text, c, start+i, st.Reason)
		}
		if !p.CanPlay(col) {
			return nil, fmt.Errorf("connect4: position %q: move %c at index %d plays into full column %d", text, c, start+i, col+1)
		}
		p.Make(ColumnMove(col))
	}
	return p, nil
}

func init() {
	g := game.Game{Name: Name}
	game.Register(game.Game{
		Name:    Name,
		Options: nil,
		// Connect Four has no rule options: Resolve rejects any.
		New: func(opts game.Options) (game.Position, error) {
			if _, err := g.Resolve(opts); err != nil {
				return nil, err
			}
			return New(), nil
		},
		Parse: func(text string, opts game.Options) (game.Position, error) {
			if _, err := g.Resolve(opts); err != nil {
				return nil, err
			}
			p, err := Parse(text)
			if err != nil {
				return nil, err
			}
			return p, nil
		},
		Encoder:      Encoder{},
		OpeningPlies: 2, // a game ends by itself within 42 plies: no playout cap
		Capabilities: []any{capabilities{}},
	})
}

// Board gives the stones for drawing: X the first player's, O the
// second's, the top row first.
func (p *Position) Board() game.Board {
	b := game.Board{Files: Width, Ranks: Height, Cells: make([]string, Width*Height), Style: "connect4", Side: p.SideToMove()}
	var height [Width]int
	for i := 0; i < p.n; i++ {
		c := int(p.cols[i])
		mark := "X"
		if i%2 == 1 {
			mark = "O"
		}
		b.Cells[(Height-1-height[c])*Width+c] = mark
		height[c]++
	}
	return b
}

// Diagram draws the board: X for the first player's stones, O for the
// second's, columns 1 to 7 below, and who moves.
func (p *Position) Diagram() string {
	var grid [Height][Width]byte
	var height [Width]int
	for i := 0; i < p.n; i++ {
		c := p.cols[i]
		mark := byte('X')
		if i%2 == 1 {
			mark = 'O'
		}
		grid[height[c]][c] = mark
		height[c]++
	}
	var b strings.Builder
	for r := Height - 1; r >= 0; r-- {
		for c := range Width {
			ch := grid[r][c]
			if ch == 0 {
				ch = '.'
			}
			b.WriteByte(ch)
			if c < Width-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	b.WriteString("1 2 3 4 5 6 7\n")
	if p.n%2 == 0 {
		b.WriteString("X to move\n")
	} else {
		b.WriteString("O to move\n")
	}
	return b.String()
}
