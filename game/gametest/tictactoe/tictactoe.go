// Package tictactoe is a game that lives only in tests: noughts and
// crosses, registered as "tictactoe" by importing this package. It proves
// that a new game is one package (docs/new-game.md walks through it): the
// tests of this package train it, match it, host it as a UCI engine,
// export its network to ONNX and play it through the dashboard's Play
// API, through the same code as the shipped games. No program imports it,
// so the tabula binary does not offer it (TestNotShipped).
package tictactoe

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/tabula-zero/tabula/game"
)

// Name is the registered game name.
const Name = "tictactoe"

// cells is the number of points: 3 by 3, numbered from the top left
// (y*3 + x), as the network's planes are.
const cells = 9

// Position is a tic-tac-toe position: the stones of each side, by cell,
// and the moves that led here (for Unmake).
type Position struct {
	stones [2]uint16 // bit i: a stone of that colour on cell i
	moves  []game.Move
}

// New returns the empty board, X (the first player) to move.
func New() *Position { return &Position{} }

// Move codes are the cell plus one, so that game.NoMove is none.
func cellMove(c int) game.Move { return game.Move(c + 1) }
func moveCell(m game.Move) int { return int(m) - 1 }

func (p *Position) Game() string { return Name }

func (p *Position) SideToMove() game.Color { return game.Color(len(p.moves) & 1) }

func (p *Position) Ply() int { return len(p.moves) }

// zobrist keys each stone and the side to move (splitmix64 of a counter,
// fixed so that keys are the same in every process).
var zobrist = func() (z [2][cells]uint64) {
	x := uint64(0x7107ac70e)
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		v := x
		v = (v ^ v>>30) * 0xbf58476d1ce4e5b9
		v = (v ^ v>>27) * 0x94d049bb133111eb
		return v ^ v>>31
	}
	for c := range z {
		for i := range z[c] {
			z[c][i] = next()
		}
	}
	return z
}()

const sideKey = 0x5bd1e9955bd1e995

func (p *Position) Key() uint64 {
	var k uint64
	for c := range p.stones {
		for i := range cells {
			if p.stones[c]&(1<<i) != 0 {
				k ^= zobrist[c][i]
			}
		}
	}
	if p.SideToMove() == game.Second {
		k ^= sideKey
	}
	return k
}

// lines are the eight rows, columns and diagonals as cell masks.
var lines = [8]uint16{0007, 0070, 0700, 0111, 0222, 0444, 0421, 0124}

// won reports whether colour c has three in a row.
func (p *Position) won(c game.Color) bool {
	for _, l := range lines {
		if p.stones[c]&l == l {
			return true
		}
	}
	return false
}

func (p *Position) full() bool { return p.stones[0]|p.stones[1] == 1<<cells-1 }

// Status: the side that just moved may have three in a row (the side to
// move has lost), or the board is full (a draw).
func (p *Position) Status() game.Status {
	switch {
	case p.won(p.SideToMove().Other()):
		return game.Status{Result: game.Loss, Reason: "three in a row"}
	case p.full():
		return game.Status{Result: game.Draw, Reason: "full board"}
	}
	return game.Status{}
}

// GenerateMoves lists the empty cells, none once the game is decided.
func (p *Position) GenerateMoves(dst []game.Move) []game.Move {
	dst = dst[:0]
	if p.Status().Over() {
		return dst
	}
	occupied := p.stones[0] | p.stones[1]
	for i := range cells {
		if occupied&(1<<i) == 0 {
			dst = append(dst, cellMove(i))
		}
	}
	return dst
}

func (p *Position) Make(m game.Move) {
	p.stones[p.SideToMove()] |= 1 << moveCell(m)
	p.moves = append(p.moves, m)
}

func (p *Position) Unmake() {
	m := p.moves[len(p.moves)-1]
	p.moves = p.moves[:len(p.moves)-1]
	p.stones[p.SideToMove()] &^= 1 << moveCell(m)
}

// FormatMove writes a cell as file a-c and rank 1-3 from the bottom.
func (p *Position) FormatMove(m game.Move) string {
	c := moveCell(m)
	if c < 0 || c >= cells {
		return "0000"
	}
	return fmt.Sprintf("%c%d", 'a'+c%3, 3-c/3)
}

func (p *Position) ParseMove(s string) (game.Move, error) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'c' || s[1] < '1' || s[1] > '3' {
		return game.NoMove, fmt.Errorf("tictactoe: move %q: want a cell a1-c3", s)
	}
	m := cellMove(int('3'-s[1])*3 + int(s[0]-'a'))
	if !game.IsLegal(p, m) {
		return game.NoMove, fmt.Errorf("tictactoe: move %q is not legal here", s)
	}
	return m, nil
}

// String writes the board as three ranks from the top ('/' between them,
// X and O for stones, a digit for a run of empty cells), then the side to
// move: "3/1X1/3 o".
func (p *Position) String() string {
	var b strings.Builder
	for y := range 3 {
		if y > 0 {
			b.WriteByte('/')
		}
		empty := 0
		for x := range 3 {
			s := p.stone(y*3 + x)
			if s == "" {
				empty++
				continue
			}
			if empty > 0 {
				fmt.Fprint(&b, empty)
				empty = 0
			}
			b.WriteString(s)
		}
		if empty > 0 {
			fmt.Fprint(&b, empty)
		}
	}
	return b.String() + " " + map[game.Color]string{game.First: "x", game.Second: "o"}[p.SideToMove()]
}

// stone is the letter on cell i, "" for none.
func (p *Position) stone(i int) string {
	switch {
	case p.stones[0]&(1<<i) != 0:
		return "X"
	case p.stones[1]&(1<<i) != 0:
		return "O"
	}
	return ""
}

// Parse reads String's format. The text has no history: the stones are
// replayed in cell order, alternately, so that Unmake can take them back.
func Parse(text string) (*Position, error) {
	board, side, ok := strings.Cut(strings.TrimSpace(text), " ")
	if !ok || (side != "x" && side != "o") {
		return nil, fmt.Errorf("tictactoe: position %q: want the board, a space and the side to move (x or o)", text)
	}
	cs, err := game.GridCells(board, 3)
	if err != nil || len(cs) != cells {
		return nil, fmt.Errorf("tictactoe: position %q: want three ranks of three cells: %v", text, err)
	}
	var by [2][]int
	for i, c := range cs {
		switch c {
		case "X":
			by[0] = append(by[0], i)
		case "O":
			by[1] = append(by[1], i)
		case "":
		default:
			return nil, fmt.Errorf("tictactoe: position %q: %q is not X or O", text, c)
		}
	}
	toMove := 0
	if side == "o" {
		toMove = 1
	}
	if len(by[0])-len(by[1]) != toMove {
		return nil, fmt.Errorf("tictactoe: position %q: %d X and %d O with %s to move cannot come from play", text, len(by[0]), len(by[1]), side)
	}
	p := New()
	for i := range by[0] {
		p.Make(cellMove(by[0][i]))
		if i < len(by[1]) {
			p.Make(cellMove(by[1][i]))
		}
	}
	if p.won(game.First) && p.won(game.Second) {
		return nil, fmt.Errorf("tictactoe: position %q: both sides have three in a row", text)
	}
	return p, nil
}

func (p *Position) Clone() game.Position {
	q := *p
	q.moves = append([]game.Move(nil), p.moves...)
	return &q
}

// Board draws the cells as squares (the dashboard's Play page).
func (p *Position) Board() game.Board {
	b := game.Board{Files: 3, Ranks: 3, Style: "squares", Side: p.SideToMove()}
	for i := range cells {
		b.Cells = append(b.Cells, p.stone(i))
	}
	return b
}

// Diagram draws the board for people (the engine's d).
func (p *Position) Diagram() string {
	var b strings.Builder
	for y := range 3 {
		fmt.Fprintf(&b, "%d ", 3-y)
		for x := range 3 {
			s := p.stone(y*3 + x)
			if s == "" {
				s = "."
			}
			b.WriteString(s + " ")
		}
		b.WriteByte('\n')
	}
	b.WriteString("  a b c\n")
	return b.String()
}

// The alpha-beta hooks (alphabeta.Position): no captures, no check, no
// rules beyond the board. Evaluate counts the lines still open to each
// side, which is enough to prefer the centre.
func (p *Position) Evaluate() int {
	me, them := p.SideToMove(), p.SideToMove().Other()
	score := 0
	for _, l := range lines {
		switch {
		case p.stones[them]&l == 0:
			score++
		case p.stones[me]&l == 0:
			score--
		}
	}
	return score
}

func (p *Position) InCheck() bool { return false }

func (p *Position) GenerateCaptures(dst []game.Move) []game.Move { return dst[:0] }

func (p *Position) MoveValues(game.Move) (captured, mover int) { return 0, 0 }

func (p *Position) RuleStatus() game.Status { return game.Status{} }

// Encoder gives the network two planes, the side to move's stones and
// the opponent's, and one action per cell.
type Encoder struct{}

func (Encoder) Version() int                                 { return 1 }
func (Encoder) Shape() (c, h, w int)                         { return 2, 3, 3 }
func (Encoder) ActionSize() int                              { return cells }
func (Encoder) ActionIndex(_ game.Position, m game.Move) int { return moveCell(m) }

func (Encoder) Encode(gp game.Position, dst []float32) {
	p := gp.(*Position)
	clear(dst)
	me := p.SideToMove()
	for i := range cells {
		if p.stones[me]&(1<<i) != 0 {
			dst[i] = 1
		}
		if p.stones[me.Other()]&(1<<i) != 0 {
			dst[cells+i] = 1
		}
	}
}

// Symmetries: the left-right mirror (the board has eight symmetries;
// one is enough to exercise the training's augmentation).
func (Encoder) Symmetries() []game.Symmetry {
	s := game.Symmetry{Name: "mirror", Cells: make([]int, cells), Actions: make([]int, cells)}
	for i := range cells {
		m := i/3*3 + 2 - i%3
		s.Cells[i], s.Actions[i] = m, m
	}
	return []game.Symmetry{s}
}

//go:embed preset.yaml
var preset []byte

// capabilities are the optional things generic packages ask of the game
// (game.Capability): a preset for train and selfplay, and a place on the
// Play page.
type capabilities struct{}

func (capabilities) Presets() map[string][]byte { return map[string][]byte{Name: preset} }
func (capabilities) PlayMaxDepth() int          { return cells }

func init() {
	g := game.Game{Name: Name}
	g.New = func(opts game.Options) (game.Position, error) {
		if _, err := g.Resolve(opts); err != nil {
			return nil, err
		}
		return New(), nil
	}
	g.Parse = func(text string, opts game.Options) (game.Position, error) {
		if _, err := g.Resolve(opts); err != nil {
			return nil, err
		}
		p, err := Parse(text)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	g.Encoder = Encoder{}
	g.OpeningPlies = 1
	g.Capabilities = []any{capabilities{}}
	game.Register(g)
}
