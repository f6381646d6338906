// Package game holds the contracts every game implements: positions and
// moves for search, encoders for the network, and a registry by name.
//
// A position is mutable and owns its history (for repetition rules and
// Unmake). Search code may be written once against Position; hot loops that
// cannot afford an interface call per node (perft, alpha-beta) use the
// concrete types of each game package instead.
package game

import "fmt"

// Move is a game-specific move code. NoMove (zero) is never a legal move.
type Move uint32

// NoMove is the zero Move, used for "no move".
const NoMove Move = 0

// Color is a side: First moves first (Red in Xiangqi, the upper-case side).
type Color uint8

const (
	First  Color = 0
	Second Color = 1
)

// Other returns the opponent of c.
func (c Color) Other() Color { return c ^ 1 }

func (c Color) String() string {
	if c == First {
		return "first"
	}
	return "second"
}

// Result is a game outcome seen from the side to move.
type Result int8

const (
	Ongoing Result = iota
	Win            // the side to move has won
	Draw
	Loss // the side to move has lost
)

func (r Result) String() string {
	switch r {
	case Ongoing:
		return "ongoing"
	case Win:
		return "win"
	case Draw:
		return "draw"
	case Loss:
		return "loss"
	}
	return fmt.Sprintf("Result(%d)", int8(r))
}

// Value returns the result as a number from the side to move's view:
// +1 win, 0 draw or ongoing, -1 loss.
func (r Result) Value() float32 {
	switch r {
	case Win:
		return 1
	case Loss:
		return -1
	}
	return 0
}

// Status is the terminal status of a position: Result Ongoing while the game
// goes on, otherwise the result for the side to move and the rule that ended
// the game (a constant string such as "checkmate" or "repetition").
type Status struct {
	Result Result
	Reason string
}

// Over reports whether the game has ended.
func (s Status) Over() bool { return s.Result != Ongoing }

// Position is one game state plus the history that led to it.
//
// GenerateMoves lists the legal moves. It lists none in a position that the
// board itself decides (a lion captured, four in a row, a full board, a
// Xiangqi side without moves); endings that depend on history or counters
// (repetition, the no-capture rule, ply caps) are reported by Status only, so
// that perft counts stay those of the pure move tree.
type Position interface {
	// Game returns the registered name of the game ("xiangqi", ...).
	Game() string
	SideToMove() Color
	// Ply returns the number of plies played since the game's start (0 in
	// the start position; text formats may number moves from 1).
	Ply() int
	// Key returns the 64-bit Zobrist key of pieces, hands and side to move.
	Key() uint64
	// GenerateMoves appends the legal moves to dst[:0] and returns it.
	GenerateMoves(dst []Move) []Move
	// Make plays m, which must be legal here; Unmake takes back the last
	// move made. Neither allocates in steady state.
	Make(m Move)
	Unmake()
	// Status reports whether the game has ended, and how.
	Status() Status
	// ParseMove reads a move in the game's notation and checks that it is
	// legal here.
	ParseMove(s string) (Move, error)
	// FormatMove writes m in the game's notation ("0000" for NoMove or a
	// code that is not a move).
	FormatMove(m Move) string
	// String returns the position in the game's text format (FEN for
	// Xiangqi), which the game's Parse reads back.
	String() string
	// Clone returns an independent deep copy, history included.
	Clone() Position
}

// Play parses each move, checks it is legal and makes it. On error the
// position keeps the moves before the bad one.
func Play(p Position, moves ...string) error {
	for _, s := range moves {
		m, err := p.ParseMove(s)
		if err != nil {
			return err
		}
		p.Make(m)
	}
	return nil
}

// IsLegal reports whether m is among p's legal moves.
func IsLegal(p Position, m Move) bool {
	var buf [256]Move
	for _, x := range p.GenerateMoves(buf[:0]) {
		if x == m {
			return true
		}
	}
	return false
}

// PathBelow returns the moves that lead from root to target when target
// lies at most depth plies below root (the same position at depth 0),
// matched by key and ply; ok is false otherwise. Search trees use it to
// keep the subtree of the position a game reached (the move played and
// the reply). root is not modified.
func PathBelow(root, target Position, depth int) (path []Move, ok bool) {
	plies := target.Ply() - root.Ply()
	if plies < 0 || plies > depth || root.Game() != target.Game() {
		return nil, false
	}
	q := root.Clone()
	key := target.Key()
	var walk func(d int) bool
	walk = func(d int) bool {
		if d == 0 {
			return q.Key() == key
		}
		if q.Status().Over() {
			return false
		}
		for _, m := range q.GenerateMoves(nil) {
			q.Make(m)
			path = append(path, m)
			if walk(d - 1) {
				return true
			}
			path = path[:len(path)-1]
			q.Unmake()
		}
		return false
	}
	if walk(plies) {
		return path, true
	}
	return nil, false
}
