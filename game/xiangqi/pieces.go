package xiangqi

import "github.com/tabula-zero/tabula/game"

// Read-only views of the piece list for evaluations kept outside this
// package (package nnue), which must not scan the board at every node.

// GeneralSquare returns the square of c's general.
func (p *Position) GeneralSquare(c game.Color) int { return int(p.squares[kingVal(c)-1]) }

// PieceSquares returns the square of every piece by id, -1 once captured:
// ids 0-15 are Red's and 16-31 Black's, of the types PieceIDType gives.
// An id keeps its type for the whole game (no promotion, no drops).
func (p *Position) PieceSquares() [32]int8 { return p.squares }

// PieceIDType returns the piece type (King ... Pawn) of id in
// PieceSquares' order; ids outside 0-31 are taken modulo 16.
func PieceIDType(id int) int { return int(idType[id&15]) }
