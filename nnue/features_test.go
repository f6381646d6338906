package nnue

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// randomPositions returns every position of n seeded random games.
func randomPositions(t testing.TB, n int, seed uint64) []*xiangqi.Position {
	t.Helper()
	var out []*xiangqi.Position
	for _, p := range gametest.RandomPositions(xiangqi.New(xiangqi.DefaultRules), n, 200, seed) {
		out = append(out, p.(*xiangqi.Position))
	}
	return out
}

// boardFEN writes p's pieces with each square's piece taken from
// p.PieceAt(at(sq)), colours swapped when swap: mirrored and flipped
// boards for the symmetry tests.
func boardFEN(p *xiangqi.Position, at func(sq int) int, swap bool, side game.Color) string {
	var b strings.Builder
	for r := xiangqi.Ranks - 1; r >= 0; r-- {
		empty := 0
		for f := range xiangqi.Files {
			c, ty := p.PieceAt(at(r*xiangqi.Files + f))
			if ty == xiangqi.NoType {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			if swap {
				c ^= 1
			}
			l := "?kabnrcp"[ty]
			if c == game.First {
				l -= 'a' - 'A'
			}
			b.WriteByte(l)
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	return fmt.Sprintf("%s %s - - 0 1", b.String(), map[game.Color]string{game.First: "w", game.Second: "b"}[side])
}

func sorted(fs []uint16) []uint16 {
	fs = slices.Clone(fs)
	slices.Sort(fs)
	return fs
}

func features(p *xiangqi.Position, c game.Color) []uint16 {
	return AppendFeatures(nil, p, c)
}

// Hand-worked features of the start position.
func TestStartFeatures(t *testing.T) {
	p := xiangqi.New(xiangqi.DefaultRules)
	red, black := features(p, game.First), features(p, game.Second)
	if len(red) != 32 || len(black) != 32 {
		t.Fatalf("%d and %d features, want 32 each", len(red), len(black))
	}
	// Red's general on e1: oriented rank 0, file 4, bucket 1, no mirror.
	// Its chariot on a1 is own piece 4 (chariot) on square 0; Black's on
	// a10 is their piece 11 on square 81.
	for _, want := range []int{(1*14+4)*90 + 0, (1*14+11)*90 + 81, (1*14+0)*90 + 4, (1*14+7)*90 + 85} {
		if !slices.Contains(red, uint16(want)) {
			t.Errorf("Red's features lack %d", want)
		}
	}
	// The start position is symmetric: Black sees what Red sees.
	if !slices.Equal(sorted(red), sorted(black)) {
		t.Errorf("the start position's perspectives differ:\n%v\n%v", sorted(red), sorted(black))
	}
	if f, ok := Feature(game.First, 4, game.First, xiangqi.Rook, 0); !ok || f != (1*14+4)*90 {
		t.Errorf("Feature(Red, e1, Red chariot, a1) = %d, %v", f, ok)
	}
	if _, ok := Feature(game.First, 40, game.First, xiangqi.Rook, 0); ok {
		t.Errorf("Feature accepted a general outside the palace")
	}
	if _, ok := Feature(game.First, 4, game.First, 9, 0); ok {
		t.Errorf("Feature accepted piece type 9")
	}
}

// On random positions: features lie in range, one a piece, none twice;
// swapping colours and flipping ranks swaps the perspectives; mirroring
// files leaves a perspective whose general is off the centre file as it
// was, and (with the general on the centre file) mirrors its squares.
func TestFeatureSymmetries(t *testing.T) {
	for i, p := range randomPositions(t, 20, 1) {
		if i%3 != 0 {
			continue
		}
		sqs := p.PieceSquares()
		pieces := 0
		for _, s := range sqs {
			if s >= 0 {
				pieces++
			}
		}
		flip, err := xiangqi.Parse(boardFEN(p, func(sq int) int {
			return (xiangqi.Ranks-1-sq/xiangqi.Files)*xiangqi.Files + sq%xiangqi.Files
		}, true, p.SideToMove()^1), xiangqi.DefaultRules)
		if err != nil {
			t.Fatal(err)
		}
		mirror, err := xiangqi.Parse(boardFEN(p, func(sq int) int {
			return sq - sq%xiangqi.Files + xiangqi.Files - 1 - sq%xiangqi.Files
		}, false, p.SideToMove()), xiangqi.DefaultRules)
		if err != nil {
			t.Fatal(err)
		}
		for c := game.First; c <= game.Second; c++ {
			fs := features(p, c)
			if len(fs) != pieces {
				t.Fatalf("%s: %d features for %d pieces", p, len(fs), pieces)
			}
			s := sorted(fs)
			for j, f := range s {
				if int(f) >= NumFeatures || (j > 0 && s[j-1] == f) {
					t.Fatalf("%s: feature %d out of range or repeated", p, f)
				}
			}
			if got := sorted(features(flip, c^1)); !slices.Equal(got, s) {
				t.Errorf("%s: the colour-flipped position's perspective %d differs", p, c^1)
			}
			got := sorted(features(mirror, c))
			if p.GeneralSquare(c)%xiangqi.Files != 4 {
				if !slices.Equal(got, s) {
					t.Errorf("%s: mirroring changed perspective %d (general off centre)", p, c)
				}
				continue
			}
			var want []uint16
			for _, f := range fs {
				sq := int(f) % xiangqi.NumSquares
				want = append(want, f-uint16(sq)+uint16(sq-sq%xiangqi.Files+xiangqi.Files-1-sq%xiangqi.Files))
			}
			if !slices.Equal(got, sorted(want)) {
				t.Errorf("%s: mirroring with the general on the centre file did not mirror the squares", p)
			}
		}
	}
}

// ChangedFeatures tells exactly what Make changes: the features before,
// less removed, plus added, are the features after; refresh exactly when
// the perspective's own general moves.
func TestChangedFeatures(t *testing.T) {
	var moves []game.Move
	for i, p := range randomPositions(t, 10, 2) {
		if i%4 != 0 {
			continue
		}
		moves = p.GenerateMoves(moves[:0])
		for _, m := range moves {
			mc, mt := p.PieceAt(xiangqi.From(m))
			for c := game.First; c <= game.Second; c++ {
				before := features(p, c)
				added, removed, refresh := ChangedFeatures(p, m, c, nil, nil)
				p.Make(m)
				after := features(p, c)
				p.Unmake()
				if want := mt == xiangqi.King && mc == c; refresh != want {
					t.Fatalf("%s %s: refresh %v for perspective %d", p, p.FormatMove(m), refresh, c)
				}
				if refresh {
					continue
				}
				got := slices.Clone(before)
				for _, f := range removed {
					k := slices.Index(got, f)
					if k < 0 {
						t.Fatalf("%s %s: removed feature %d was not active", p, p.FormatMove(m), f)
					}
					got = slices.Delete(got, k, k+1)
				}
				got = append(got, added...)
				if !slices.Equal(sorted(got), sorted(after)) {
					t.Fatalf("%s %s: perspective %d's changes do not lead to its features after the move", p, p.FormatMove(m), c)
				}
			}
		}
	}
}
