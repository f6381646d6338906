package game

// Encoder turns positions into network input and moves into action indices.
// Its methods take positions of their own game only and panic on another
// game's position (a programming error, not bad input).
//
// Everything is from the side to move's perspective: the board is turned
// for the second player, so no side-to-move plane is needed and equivalent
// moves of both colours share one action index.
type Encoder interface {
	// Version changes whenever planes or action indices change meaning.
	Version() int
	// Shape returns the input tensor shape: channels, height, width.
	Shape() (c, h, w int)
	// ActionSize is the size of the fixed action space.
	ActionSize() int
	// Encode writes p's input planes into dst, which has length c*h*w
	// (channel-major: dst[(ch*h+y)*w+x]).
	Encode(p Position, dst []float32)
	// ActionIndex maps a legal move of p to its action index.
	ActionIndex(p Position, m Move) int
	// Symmetries lists the symmetries of the game other than the identity
	// (the left-right mirror for all three games).
	Symmetries() []Symmetry
}

// Symmetry is a board symmetry as permutations: cell i of every plane moves
// to Cells[i] (cells numbered y*w+x), action index a moves to Actions[a].
type Symmetry struct {
	Name    string
	Cells   []int
	Actions []int
}

// ApplyPlanes writes the transformed planes of src (c planes of h*w cells)
// into dst.
func (s Symmetry) ApplyPlanes(dst, src []float32, c int) {
	n := len(s.Cells)
	for ch := 0; ch < c; ch++ {
		base := ch * n
		for i, j := range s.Cells {
			dst[base+j] = src[base+i]
		}
	}
}
