package lion

import (
	"github.com/tabula-zero/tabula/game"
)

// Encoder is the network encoding of Catch the Lion (version 1); see the
// package documentation for planes and action indices.
type Encoder struct{}

var _ game.Encoder = Encoder{}

const (
	encVersion  = 1
	encPlanes   = 2*numTypes + 2*numHand // 16
	encCells    = squares
	numDirs     = 8
	boardActs   = encCells * numDirs // 96
	actionSpace = boardActs + numHand*encCells
)

// Directions in the side to move's view (up = towards the opponent), as
// (rank step, file step); the index is the action's direction.
var dirSteps = [numDirs][2]int{
	{1, 0},   // N
	{1, 1},   // NE
	{0, 1},   // E
	{-1, 1},  // SE
	{-1, 0},  // S
	{-1, -1}, // SW
	{0, -1},  // W
	{1, -1},  // NW
}

// dirIndex[dr+1][df+1] is the direction index of a step.
var dirIndex [3][3]int

// mirrorDir maps a direction to its mirror image (files a <-> c).
var mirrorDir = [numDirs]int{0, 7, 6, 5, 4, 3, 2, 1}

func init() {
	for i, d := range dirSteps {
		dirIndex[d[0]+1][d[1]+1] = i
	}
}

// view turns square s into the side to move's view: the board turned by
// 180 degrees for the second player.
func view(s int, c game.Color) int {
	if c == game.Second {
		return squares - 1 - s
	}
	return s
}

// cell is the tensor cell (y*3+x, y=0 the top row) of a view square.
func cell(v int) int { return (ranks-1-v/files)*files + v%files }

// Version is 1.
func (Encoder) Version() int { return encVersion }

// Shape is 16 planes of 4 rows by 3 columns.
func (Encoder) Shape() (c, h, w int) { return encPlanes, ranks, files }

// ActionSize is 132: 96 board moves, 36 drops.
func (Encoder) ActionSize() int { return actionSpace }

func asLion(p game.Position) *Position {
	lp, ok := p.(*Position)
	if !ok {
		panic("lion: encoder given a " + p.Game() + " position")
	}
	return lp
}

// Encode writes the planes of p into dst (length 16*4*3).
func (Encoder) Encode(gp game.Position, dst []float32) {
	p := asLion(gp)
	dst = dst[:encPlanes*encCells]
	clear(dst)
	us := p.stm
	for s := range squares {
		pc := p.sq[s]
		if pc == 0 {
			continue
		}
		plane := typeOf(pc)
		if colorOf(pc) != us {
			plane += numTypes
		}
		dst[plane*encCells+cell(view(s, us))] = 1
	}
	for side, c := range [2]game.Color{us, us.Other()} {
		for t := range numHand {
			v := float32(p.hand[c][t]) / 2
			plane := dst[(2*numTypes+side*numHand+t)*encCells:][:encCells]
			for i := range plane {
				plane[i] = v
			}
		}
	}
}

// ActionIndex maps a move of p to its action index: from-cell*8+direction
// for board moves, 96 + type*12 + cell for drops, all in p's side to move's
// view.
func (Encoder) ActionIndex(p game.Position, m game.Move) int {
	return actionIndex(p.SideToMove(), m)
}

func actionIndex(us game.Color, m game.Move) int {
	to := view(moveTo(m), us)
	if t := moveDrop(m); t >= 0 {
		return boardActs + t*encCells + cell(to)
	}
	from := view(moveFrom(m), us)
	dr, df := to/files-from/files, to%files-from%files
	return cell(from)*numDirs + dirIndex[dr+1][df+1]
}

// Symmetries returns the mirror (files a <-> c).
func (Encoder) Symmetries() []game.Symmetry { return []game.Symmetry{mirror()} }

func mirrorCell(i int) int { return i/files*files + files - 1 - i%files }

func mirror() game.Symmetry {
	s := game.Symmetry{Name: "mirror", Cells: make([]int, encCells), Actions: make([]int, actionSpace)}
	for i := range encCells {
		s.Cells[i] = mirrorCell(i)
	}
	for a := range boardActs {
		s.Actions[a] = mirrorCell(a/numDirs)*numDirs + mirrorDir[a%numDirs]
	}
	for a := boardActs; a < actionSpace; a++ {
		t, c := (a-boardActs)/encCells, (a-boardActs)%encCells
		s.Actions[a] = boardActs + t*encCells + mirrorCell(c)
	}
	return s
}
