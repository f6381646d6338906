package connect4

import "github.com/tabula-zero/tabula/game"

// Encoder is the network encoding of Connect Four, version 1.
//
// Planes (2 x 6 x 7): plane 0 holds the side to move's stones, plane 1 the
// opponent's; row y = 0 is the top row (y = 5 - height index), x the column,
// cell y*7+x. Actions: the column index 0-6. The board has no direction of
// play, so ordering the planes by side to move is the whole perspective
// change.
type Encoder struct{}

// Version of the encoding; bump when planes or actions change meaning.
func (Encoder) Version() int { return 1 }

// Shape returns 2 planes of 6 rows by 7 columns.
func (Encoder) Shape() (c, h, w int) { return 2, Height, Width }

// ActionSize returns 7, one action per column.
func (Encoder) ActionSize() int { return Width }

// Encode writes p's planes into dst (length 84). p must be a *Position;
// anything else is a programming error and panics.
func (Encoder) Encode(p game.Position, dst []float32) {
	q := mustPosition(p)
	dst = dst[:2*Cells]
	own, opp := q.current, q.current^q.mask
	for x := 0; x < Width; x++ {
		for r := 0; r < Height; r++ {
			b := x*(Height+1) + r
			i := (Height-1-r)*Width + x
			dst[i] = float32(own >> b & 1)
			dst[Cells+i] = float32(opp >> b & 1)
		}
	}
}

// ActionIndex returns m's column index 0-6 (-1 for a value that is no
// column).
func (Encoder) ActionIndex(_ game.Position, m game.Move) int { return MoveColumn(m) }

// Symmetries returns the left-right mirror (column c <-> 6-c). The slices
// are shared: callers must not modify them.
func (Encoder) Symmetries() []game.Symmetry { return symmetries }

var symmetries = func() []game.Symmetry {
	cells := make([]int, Cells)
	for y := 0; y < Height; y++ {
		for x := 0; x < Width; x++ {
			cells[y*Width+x] = y*Width + Width - 1 - x
		}
	}
	actions := make([]int, Width)
	for a := range actions {
		actions[a] = Width - 1 - a
	}
	return []game.Symmetry{{Name: "mirror", Cells: cells, Actions: actions}}
}()

func mustPosition(p game.Position) *Position {
	q, ok := p.(*Position)
	if !ok {
		panic("connect4: encoder given a non-connect4 position " + p.Game())
	}
	return q
}
