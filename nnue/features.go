package nnue

import (
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// The feature set: its name and version go into every network file, and a
// file of another set is refused, since its rows would mean other things.
const (
	FeatureSet        = "xq-palace-v1"
	FeatureSetVersion = 1
)

// Feature set geometry.
const (
	// NumBuckets: the perspective's general on one of 3 ranks x 2 files of
	// its palace once mirrored.
	NumBuckets = 6
	// NumPieces: own and their 7 piece types.
	NumPieces = 14
	// NumFeatures = NumBuckets * NumPieces * xiangqi.NumSquares.
	NumFeatures = NumBuckets * NumPieces * xiangqi.NumSquares
	// MaxActive bounds the active features of one perspective (32 pieces).
	MaxActive = 32
)

// orientation of one perspective's general square: the bucket's first
// feature and whether files are mirrored.
type kingInfo struct {
	base   uint16 // bucket * NumPieces * NumSquares
	mirror bool
	ok     bool // the square is in that side's palace
}

var (
	// kingTab[c][sq]: perspective c with its general on sq.
	kingTab [2][xiangqi.NumSquares]kingInfo
	// sqTab[c][mirror][sq]: sq oriented for perspective c.
	sqTab [2][2][xiangqi.NumSquares]uint8
)

func init() {
	for c := range 2 {
		for sq := range xiangqi.NumSquares {
			r, f := orientRank(game.Color(c), sq/xiangqi.Files), sq%xiangqi.Files
			sqTab[c][0][sq] = uint8(r*xiangqi.Files + f)
			sqTab[c][1][sq] = uint8(r*xiangqi.Files + xiangqi.Files - 1 - f)
			if r <= 2 && f >= 3 && f <= 5 {
				mirror := f > 4
				if mirror {
					f = xiangqi.Files - 1 - f
				}
				b := r*2 + f - 3
				kingTab[c][sq] = kingInfo{base: uint16(b * NumPieces * xiangqi.NumSquares), mirror: mirror, ok: true}
			}
		}
	}
}

// orientRank puts c's side at the bottom: Black's ranks are flipped.
func orientRank(c game.Color, r int) int {
	if c == game.Second {
		return xiangqi.Ranks - 1 - r
	}
	return r
}

// featureOf is the feature of a piece of colour pc and type t (King ...
// Pawn) on sq for perspective c whose general's orientation is k.
func featureOf(k kingInfo, c, pc game.Color, t, sq int) uint16 {
	piece := t - xiangqi.King
	if pc != c {
		piece += 7
	}
	m := 0
	if k.mirror {
		m = 1
	}
	return k.base + uint16(piece*xiangqi.NumSquares) + uint16(sqTab[c][m][sq])
}

// Feature returns the feature index, for perspective persp whose general
// stands on general, of a piece of colour pc and type t (xiangqi.King ...
// xiangqi.Pawn) on sq; ok is false when general is not in persp's palace
// or t or sq is out of range.
func Feature(persp game.Color, general int, pc game.Color, t, sq int) (f int, ok bool) {
	if persp > 1 || pc > 1 || general < 0 || general >= xiangqi.NumSquares || sq < 0 || sq >= xiangqi.NumSquares ||
		t < xiangqi.King || t > xiangqi.Pawn {
		return 0, false
	}
	k := kingTab[persp][general]
	if !k.ok {
		return 0, false
	}
	return int(featureOf(k, persp, pc, t, sq)), true
}

// AppendFeatures appends the active features of perspective persp in p to
// dst (at most MaxActive, in piece-id order: Red's pieces, then Black's)
// and returns it. This is the definition the trainer and the play-time
// accumulators share. It appends nothing for a position without persp's
// general in its palace, which a legal position never is.
func AppendFeatures(dst []uint16, p *xiangqi.Position, persp game.Color) []uint16 {
	k := kingTab[persp&1][p.GeneralSquare(persp&1)]
	if !k.ok {
		return dst
	}
	sqs := p.PieceSquares()
	for id, sq := range sqs {
		if sq >= 0 {
			dst = append(dst, featureOf(k, persp&1, game.Color(id>>4), xiangqi.PieceIDType(id), int(sq)))
		}
	}
	return dst
}

// ChangedFeatures tells what move m, legal in p and not yet made, changes
// in perspective persp's active features: it appends the features that
// become active to added and those that stop being active to removed. When
// m moves persp's own general every feature changes (the bucket or the
// mirroring does): refresh is then true, nothing is appended, and the
// features after the move are AppendFeatures' of the position after it.
func ChangedFeatures(p *xiangqi.Position, m game.Move, persp game.Color, added, removed []uint16) (a, r []uint16, refresh bool) {
	from, to := xiangqi.From(m), xiangqi.To(m)
	mc, mt := p.PieceAt(from)
	if mt == xiangqi.NoType {
		return added, removed, false
	}
	persp &= 1
	if mt == xiangqi.King && mc == persp {
		return added, removed, true
	}
	k := kingTab[persp][p.GeneralSquare(persp)]
	if !k.ok {
		return added, removed, true
	}
	removed = append(removed, featureOf(k, persp, mc, mt, from))
	added = append(added, featureOf(k, persp, mc, mt, to))
	if cc, ct := p.PieceAt(to); ct != xiangqi.NoType {
		removed = append(removed, featureOf(k, persp, cc, ct, to))
	}
	return added, removed, false
}
