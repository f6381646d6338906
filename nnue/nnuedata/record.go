// Package nnuedata is the training data of Xiangqi's learned evaluation
// (docs/nnue.md): positions from the project's alpha-beta playing itself,
// each with the search's score and the game's result, stored in compact
// shards, and the generator that plays those games.
//
// A record is 40 bytes before compression: the board as the square of
// each of the 32 pieces (a fixed slot per piece, so the format can only
// hold Xiangqi's material), the search's score from the side to move's
// view, the game's result from the same view, the ply, the searched best
// move, the side to move, whether the score is a mate, and the depth the
// search completed. Records of one game follow each other, so zstd finds
// long matches between them (docs/nnue.md has the bytes a record takes
// in a shard).
//
// Shards are versioned, checksummed (CRC-32C), written atomically and read
// under hard limits (MaxRecords, MaxFile, the frame's stated size against
// the header's count) before anything is allocated from a count they
// state. ReadDir streams every record of a directory through one reused
// buffer.
package nnuedata

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// RecordSize is the bytes of one record before compression.
const RecordSize = 40

// Slots is the pieces a board has room for: 16 a side.
const Slots = 32

// NoSquare marks a slot whose piece is not on the board (captured, or
// never there in a position from a FEN).
const NoSquare = 0xFF

// slotType is the piece type of each of a side's 16 slots: the general,
// two advisors, two elephants, two horses, two chariots, two cannons and
// five soldiers (the order of xiangqi's piece ids). Slot i < 16 is Red's,
// slot i >= 16 Black's slot i-16.
var slotType = [16]uint8{xiangqi.King, xiangqi.Advisor, xiangqi.Advisor, xiangqi.Elephant, xiangqi.Elephant,
	xiangqi.Horse, xiangqi.Horse, xiangqi.Rook, xiangqi.Rook, xiangqi.Cannon, xiangqi.Cannon,
	xiangqi.Pawn, xiangqi.Pawn, xiangqi.Pawn, xiangqi.Pawn, xiangqi.Pawn}

// firstSlot is the first of a side's slots of each piece type.
var firstSlot = [8]int{xiangqi.King: 0, xiangqi.Advisor: 1, xiangqi.Elephant: 3, xiangqi.Horse: 5,
	xiangqi.Rook: 7, xiangqi.Cannon: 9, xiangqi.Pawn: 11}

// SlotPiece returns the colour and xiangqi piece type (xiangqi.King ...
// xiangqi.Pawn) of slot i (0 <= i < Slots): the piece whose square
// Record.Squares[i] holds.
func SlotPiece(i int) (game.Color, int) {
	return game.Color(i >> 4), int(slotType[i&15])
}

// Record is one position with its labels.
type Record struct {
	// Squares is the square of each slot's piece (SlotPiece), NoSquare
	// when it is off the board. A square is rank*9+file as in package
	// xiangqi: rank 0 is Red's back rank, file 0 the a-file. Within a
	// type a side's pieces are in ascending squares, missing ones last,
	// so a position has one record.
	Squares [Slots]uint8
	// Score is the search's score for the side to move in centi-units (a
	// soldier is 100). With Mate it is alphabeta's mate score, Mate minus
	// the plies to the end (negative: the side to move is mated): a
	// trainer skips or caps those.
	Score int16
	// Ply is the game ply of the position (0 at Red's first move).
	Ply uint16
	// Move is the search's best move (xiangqi's encoding, from | to<<7):
	// never a capture, since positions with a capture pending are skipped.
	Move uint16
	// Result is the game's result for the side to move: 1 win, 0 draw, -1
	// loss (adjudicated games included).
	Result int8
	// Side is the side to move: 0 Red, 1 Black.
	Side uint8
	// Depth is the deepest iteration the search completed (at most 63).
	Depth uint8
	// Mate says Score is a mate score (alphabeta.IsMate).
	Mate bool
}

// Flag bits of a stored record's last byte; the depth is in the bits
// above them.
const (
	flagBlack = 1 << 0
	flagMate  = 1 << 1
	depthBits = 2
	maxDepth  = 0xFF >> depthBits
)

// FromPosition makes the board of a record from p: Squares, Side and Ply
// (the labels are the caller's).
func FromPosition(p *xiangqi.Position) (Record, error) {
	var r Record
	for i := range r.Squares {
		r.Squares[i] = NoSquare
	}
	var next [2][8]int
	for c := range next {
		for t := xiangqi.King; t <= xiangqi.Pawn; t++ {
			next[c][t] = c*16 + firstSlot[t]
		}
	}
	for sq := range xiangqi.NumSquares {
		c, t := p.PieceAt(sq)
		if t == xiangqi.NoType {
			continue
		}
		i := next[c][t]
		if i >= int(c)*16+16 || int(slotType[i&15]) != t {
			return Record{}, fmt.Errorf("nnuedata: %s has more pieces of type %d than a side owns", p, t)
		}
		r.Squares[i] = uint8(sq)
		next[c][t]++
	}
	if p.Ply() < 0 || p.Ply() > 0xFFFF {
		return Record{}, fmt.Errorf("nnuedata: ply %d out of range", p.Ply())
	}
	r.Ply = uint16(p.Ply())
	r.Side = uint8(p.SideToMove())
	return r, nil
}

// SetScore stores a search's score and marks mates.
func (r *Record) SetScore(score int) {
	r.Score = int16(max(min(score, alphabeta.Infinity), -alphabeta.Infinity))
	r.Mate = alphabeta.IsMate(score)
}

var typeLetter = [8]byte{xiangqi.King: 'k', xiangqi.Advisor: 'a', xiangqi.Elephant: 'b', xiangqi.Horse: 'n',
	xiangqi.Rook: 'r', xiangqi.Cannon: 'c', xiangqi.Pawn: 'p'}

// FEN writes the record's position as Xiangqi FEN (the no-capture clock
// is not stored: 0). It assumes a valid record (every decoded one is).
func (r *Record) FEN() string {
	var board [xiangqi.NumSquares]byte
	for i, sq := range r.Squares {
		if sq == NoSquare || int(sq) >= len(board) {
			continue
		}
		c, t := SlotPiece(i)
		ch := typeLetter[t]
		if c == game.First {
			ch -= 'a' - 'A'
		}
		board[sq] = ch
	}
	var b strings.Builder
	b.Grow(96)
	for rank := xiangqi.Ranks - 1; rank >= 0; rank-- {
		empty := 0
		for f := range xiangqi.Files {
			ch := board[rank*xiangqi.Files+f]
			if ch == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteByte(ch)
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if rank > 0 {
			b.WriteByte('/')
		}
	}
	side := " w"
	if r.Side == 1 {
		side = " b"
	}
	b.WriteString(side)
	b.WriteString(" - - 0 ")
	b.WriteString(strconv.Itoa(int(r.Ply)/2 + 1))
	return b.String()
}

// Position returns the record's position under rules.
func (r *Record) Position(rules xiangqi.Rules) (*xiangqi.Position, error) {
	p, err := xiangqi.Parse(r.FEN(), rules)
	if err != nil {
		return nil, fmt.Errorf("nnuedata: %w", err)
	}
	return p, nil
}

// ErrRecord marks a record that fails a check (within ErrCorrupt when
// read from a shard).
var ErrRecord = errors.New("bad record")

// Check reports whether r is a record this package writes: squares on
// the board and each used once, both generals present, the ply's parity
// the side to move's, the move between two squares, the result, the mate
// flag agreeing with the score, the depth in range. A trainer indexing
// tables by square or general can rely on a checked record.
func (r *Record) Check() error {
	var used [2]uint64
	for i, sq := range r.Squares {
		if sq == NoSquare {
			if i&15 == 0 {
				return fmt.Errorf("%w: the %s general is missing", ErrRecord, [2]string{"red", "black"}[i>>4])
			}
			continue
		}
		if int(sq) >= xiangqi.NumSquares {
			return fmt.Errorf("%w: slot %d on square %d, past the board's %d", ErrRecord, i, sq, xiangqi.NumSquares)
		}
		w, bit := sq>>6, uint64(1)<<(sq&63)
		if used[w]&bit != 0 {
			return fmt.Errorf("%w: two pieces on square %d", ErrRecord, sq)
		}
		used[w] |= bit
	}
	switch {
	case r.Side > 1:
		return fmt.Errorf("%w: side %d", ErrRecord, r.Side)
	case r.Ply&1 != uint16(r.Side):
		return fmt.Errorf("%w: ply %d with side %d to move", ErrRecord, r.Ply, r.Side)
	case r.Result < -1 || r.Result > 1:
		return fmt.Errorf("%w: result %d", ErrRecord, r.Result)
	case r.Depth > maxDepth:
		return fmt.Errorf("%w: depth %d", ErrRecord, r.Depth)
	case r.Mate != alphabeta.IsMate(int(r.Score)) || int(r.Score) > alphabeta.Infinity || int(r.Score) < -alphabeta.Infinity:
		return fmt.Errorf("%w: score %d with mate %v", ErrRecord, r.Score, r.Mate)
	}
	from, to := xiangqi.From(game.Move(r.Move)), xiangqi.To(game.Move(r.Move))
	if from >= xiangqi.NumSquares || to >= xiangqi.NumSquares || from == to || r.Move>>14 != 0 {
		return fmt.Errorf("%w: move %#x", ErrRecord, r.Move)
	}
	return nil
}

// put writes r into b[:RecordSize].
func (r *Record) put(b []byte) {
	_ = b[RecordSize-1]
	copy(b, r.Squares[:])
	b[32], b[33] = byte(r.Score), byte(uint16(r.Score)>>8)
	b[34], b[35] = byte(r.Ply), byte(r.Ply>>8)
	b[36], b[37] = byte(r.Move), byte(r.Move>>8)
	b[38] = byte(r.Result)
	f := r.Side&1 | min(r.Depth, maxDepth)<<depthBits
	if r.Mate {
		f |= flagMate
	}
	b[39] = f
}

// get reads r from b[:RecordSize] (unchecked).
func (r *Record) get(b []byte) {
	_ = b[RecordSize-1]
	copy(r.Squares[:], b)
	r.Score = int16(uint16(b[32]) | uint16(b[33])<<8)
	r.Ply = uint16(b[34]) | uint16(b[35])<<8
	r.Move = uint16(b[36]) | uint16(b[37])<<8
	r.Result = int8(b[38])
	f := b[39]
	r.Side = f & flagBlack
	r.Mate = f&flagMate != 0
	r.Depth = f >> depthBits
}
