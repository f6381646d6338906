package xiangqi

import "github.com/tabula-zero/tabula/game"

// Board geometry.
const (
	Files      = 9
	Ranks      = 10
	NumSquares = Files * Ranks
	// MaxMoves bounds the pseudo-legal moves of any position (the true
	// maximum is well below 150).
	MaxMoves = 256
)

// Piece types.
const (
	NoType = iota
	King
	Advisor
	Elephant
	Horse
	Rook
	Cannon
	Pawn
	numTypes
)

// Piece ids: each side owns 16 ids in a fixed type order, so the piece list
// never needs compacting (Xiangqi has no promotion and no drops). The board
// stores id+1 (0 = empty); Red ids are 0-15, Black ids 16-31.
var idType = [16]uint8{King, Advisor, Advisor, Elephant, Elephant, Horse, Horse, Rook, Rook, Cannon, Cannon, Pawn, Pawn, Pawn, Pawn, Pawn}

// firstID is the first id of each type within a side's 16.
var firstID = [numTypes]uint8{0, 0, 1, 3, 5, 7, 9, 11}

// typeCount is how many pieces of each type a side starts with.
var typeCount = [numTypes]uint8{0, 1, 2, 2, 2, 2, 2, 5}

// Tables indexed by board value (id+1, 0 = empty).
var (
	valType  [33]uint8 // piece type
	valColor [33]uint8 // 0 red, 1 black; 2 for empty so that empty != any side
)

func init() {
	valColor[0] = 2
	for v := 1; v <= 32; v++ {
		id := v - 1
		valType[v] = idType[id&15]
		valColor[v] = uint8(id >> 4)
	}
}

func kingVal(c game.Color) uint8 { return uint8(c)*16 + 1 }

func rankOf(sq int) int { return sq / Files }
func fileOf(sq int) int { return sq % Files }

// Move encoding: from | to<<7. A move from square 0 to square 0 would be
// zero, which cannot occur, so game.NoMove is never a legal move.
func newMove(from, to int) game.Move { return game.Move(from | to<<7) }

// From returns the move's origin square.
func From(m game.Move) int { return int(m & 127) }

// To returns the move's target square.
func To(m game.Move) int { return int(m>>7) & 127 }
