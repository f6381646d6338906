package xiangqi

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/game"
)

// Positions for the random-move tests beyond random play: pins along a
// file (chariot), by the flying-general rule (advisor) and by a cannon
// screen, checks by a cannon over a screen and by a horse, the perft
// positions, stalemate and mate (no legal move).
var randomMoveFENs = []string{
	"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
	"r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
	"1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
	"5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
	"CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w - - 0 1",
	"C1nNk4/9/9/9/9/9/n1pp5/B3C4/9/3A1K3 w - - 0 1",
	"4k4/9/9/9/4r4/9/9/4R4/9/4K4 w - - 0 1",     // chariot pinned on the file
	"4k4/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1",       // advisor pinned by the generals
	"3k5/9/9/9/4c4/9/4N4/4R4/9/4K4 w - - 0 1",   // chariot and horse: a cannon pin
	"3k5/9/9/9/4c4/9/9/4N4/9/3AKA3 w - - 0 1",   // cannon check over the horse
	"3k5/9/9/9/9/9/9/5n3/9/4K4 w - - 0 1",       // horse check
	"3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1",        // stalemate: no legal move
	"R2k5/1R7/9/9/9/9/9/9/9/4K4 b - - 0 1",      // mate
	"2bak4/9/4b4/9/9/9/9/9/4p4/3K5 w - - 0 1",   // stalemate: the soldier covers both squares
	"3akab2/9/9/9/9/9/9/4C4/4A4/3AK4 b - - 0 1", // 2 legal: a piece stepping onto the file gives the cannon a screen
}

// randomMovePositions is the test set: the positions above and those of
// seeded random games (about 6,000, with checks, pins and game ends).
func randomMovePositions(t *testing.T) []*Position {
	t.Helper()
	var ps []*Position
	for _, fen := range randomMoveFENs {
		ps = append(ps, mustParse(t, fen))
	}
	for _, gp := range randomPositions(5, 40) {
		ps = append(ps, gp.(*Position))
	}
	return ps
}

func legalMoves(p *Position) []game.Move {
	var ml [MaxMoves]game.Move
	n := p.LegalMoves(&ml)
	out := slices.Clone(ml[:n])
	slices.Sort(out)
	return out
}

// TestRandomMoveSlots checks the slot draw's premise on every position:
// the non-empty slots of the side to move's pieces are exactly the
// pseudo-legal moves, each once, and every slot count matches its tables.
func TestRandomMoveSlots(t *testing.T) {
	pieceSlotsOnce.Do(initPieceSlots)
	for _, p := range randomMovePositions(t) {
		var ml [MaxMoves]game.Move
		n := p.genPseudo(&ml)
		want := slices.Clone(ml[:n])
		slices.Sort(want)
		var got []game.Move
		us := int(p.side)
		for j := range 16 {
			s := int(p.squares[us*16+j])
			if s < 0 {
				continue
			}
			for i := range int(pieceSlots[us][j][s]) {
				if to := p.slotTarget(idType[j], s, i); to >= 0 {
					got = append(got, newMove(s, to))
				}
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: slot moves %v, pseudo-legal moves %v", p, got, want)
		}
	}
}

// TestRandomMoveSupport checks that RandomMove returns only legal moves,
// every legal move of a position (over 30 draws per legal move a miss
// has probability below e^-30), and none exactly when Status reports the
// game lost for want of a legal move; and that the position is unchanged.
func TestRandomMoveSupport(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	intn := r.IntN
	checks, none := 0, 0
	for _, p := range randomMovePositions(t) {
		legal := legalMoves(p)
		before, key := p.String(), p.Key()
		if p.InCheck() {
			checks++
		}
		seen := map[game.Move]bool{}
		for range 30*len(legal) + 1 {
			m, ok := p.RandomMove(intn)
			if !ok {
				if len(legal) != 0 {
					t.Fatalf("%s: no move drawn, %d legal", p, len(legal))
				}
				break
			}
			if _, found := slices.BinarySearch(legal, m); !found {
				t.Fatalf("%s: drew %s, not legal", p, p.FormatMove(m))
			}
			seen[m] = true
		}
		if len(seen) != len(legal) {
			t.Fatalf("%s: drew %d of %d legal moves", p, len(seen), len(legal))
		}
		if len(legal) == 0 {
			none++
			if s := p.Status(); s.Result != game.Loss || s.Reason != ReasonNoMoves {
				t.Fatalf("%s: no move drawn, status %+v", p, s)
			}
		}
		if p.String() != before || p.Key() != key {
			t.Fatalf("%s: RandomMove changed the position to %s", before, p)
		}
	}
	if checks < 100 || none < 2 {
		t.Fatalf("%d positions in check, %d without legal moves: too few to test", checks, none)
	}
}

// TestRandomMoveUniform draws 400 times per legal move on positions that
// exercise each stage (slots, slots falling back to the list, the list in
// check) and bounds Pearson's chi-square statistic at its 99.99% quantile
// (Wilson-Hilferty), seeded.
func TestRandomMoveUniform(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	intn := r.IntN
	for _, fen := range []string{
		randomMoveFENs[0],  // start: slots
		randomMoveFENs[1],  // middle game
		randomMoveFENs[2],  // in check: the list
		randomMoveFENs[6],  // pinned chariot
		randomMoveFENs[7],  // pinned advisor: 2 legal moves, slots often fall back
		randomMoveFENs[8],  // cannon pin
		randomMoveFENs[9],  // cannon check
		randomMoveFENs[14], // 2 legal moves of 9 pseudo-legal
	} {
		p := mustParse(t, fen)
		legal := legalMoves(p)
		if len(legal) < 2 {
			t.Fatalf("%s: %d legal moves", fen, len(legal))
		}
		idx := map[game.Move]int{}
		for i, m := range legal {
			idx[m] = i
		}
		const per = 400
		counts := make([]int, len(legal))
		for range per * len(legal) {
			m, _ := p.RandomMove(intn)
			counts[idx[m]]++
		}
		chi := 0.0
		for _, c := range counts {
			d := float64(c - per)
			chi += d * d / per
		}
		df := float64(len(legal) - 1)
		const z = 3.719 // the normal's 99.99% quantile
		a := 2 / (9 * df)
		bound := df * math.Pow(1-a+z*math.Sqrt(a), 3)
		if chi > bound {
			t.Errorf("%s (%d legal, check %v): chi-square %.1f > %.1f; counts %v", fen, len(legal), p.InCheck(), chi, bound, counts)
		}
	}
}

func TestRandomMoveAllocs(t *testing.T) {
	ps := randomPositions(7, 4)
	r := rand.New(rand.NewPCG(5, 6))
	intn := r.IntN
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		ps[i%len(ps)].(*Position).RandomMove(intn)
		i++
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per RandomMove", allocs)
	}
}

// BenchmarkRandomMove compares RandomMove with a uniform pick from the
// legal move list on random-game positions.
func BenchmarkRandomMove(b *testing.B) {
	ps := randomPositions(3, 4)
	r := rand.New(rand.NewPCG(5, 6))
	intn := r.IntN
	b.Run("RandomMove", func(b *testing.B) {
		for b.Loop() {
			for _, p := range ps {
				p.(*Position).RandomMove(intn)
			}
		}
	})
	b.Run("LegalMoves", func(b *testing.B) {
		var ml [MaxMoves]game.Move
		for b.Loop() {
			for _, p := range ps {
				if n := p.(*Position).LegalMoves(&ml); n > 0 {
					_ = ml[intn(n)]
				}
			}
		}
	})
}

// TestGenerateCaptures checks the capture generator against the legal
// moves: the quiescence moves are exactly the legal captures, or every
// legal move when in check.
func TestGenerateCaptures(t *testing.T) {
	for _, p := range randomMovePositions(t) {
		var want []game.Move
		for _, m := range p.GenerateMoves(nil) {
			if p.InCheck() || p.board[To(m)] != 0 {
				want = append(want, m)
			}
		}
		got := p.GenerateCaptures(nil)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: quiescence moves %v, want %v", p, got, want)
		}
	}
}
