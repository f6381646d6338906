package xiangqi_test

import (
	"context"

	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/uci"
)

const fairyStockfish = "/usr/games/fairy-stockfish"

// TestDifferentialFairyStockfish compares perft 2 and 3 divides, move by
// move, with Fairy-Stockfish on positions reached by seeded random play.
func TestDifferentialFairyStockfish(t *testing.T) {
	if _, err := os.Stat(fairyStockfish); err != nil {
		t.Skipf("fairy-stockfish not installed (%v): apt-get install fairy-stockfish to run this test", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	fs, err := uci.Start(ctx, fairyStockfish)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if err := fs.Handshake(ctx); err != nil {
		t.Fatal(err)
	}
	if err := fs.SetOption(ctx, "UCI_Variant", "xiangqi"); err != nil {
		t.Fatal(err)
	}

	games, every := 40, 6
	if testing.Short() {
		games = 10
	}
	positions := sample(games, every)
	var seen features
	for _, p := range positions {
		seen.add(p)
		for _, depth := range []int{2, 3} {
			compare(ctx, t, fs, p, depth)
		}
	}
	t.Logf("%d positions: %+v", len(positions), seen)
	// The sample must exercise the tricky rules, or agreement means little.
	if seen.check == 0 || seen.generalPin == 0 || seen.cannonScreen == 0 || seen.blockedHorse == 0 || seen.blockedElephant == 0 || seen.crossedSoldier == 0 {
		t.Errorf("sample misses a feature: %+v", seen)
	}
}

func compare(ctx context.Context, t *testing.T, fs *uci.Client, p *xiangqi.Position, depth int) {
	t.Helper()
	want, wantTotal, err := fs.Perft(ctx, "position fen "+p.String(), depth)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	var total uint64
	for _, e := range game.Divide(p, depth) {
		got[e.Move] = e.Count
		total += e.Count
	}
	for m, n := range want {
		if got[m] != n {
			t.Errorf("%s: perft %d after %s: ours %d, fairy-stockfish %d", p, depth, m, got[m], n)
		}
	}
	for m := range got {
		if _, ok := want[m]; !ok {
			t.Errorf("%s: move %s is ours only", p, m)
		}
	}
	if total != wantTotal {
		t.Errorf("%s: perft %d total ours %d, fairy-stockfish %d", p, depth, total, wantTotal)
	}
}

// sample plays seeded random games and keeps every n-th position. Captures
// and checks are preferred half the time so that games reach open,
// tactical positions and endgames rather than shuffling.
func sample(games, every int) []*xiangqi.Position {
	rng := rand.New(rand.NewPCG(2026, 11))
	var out []*xiangqi.Position
	for g := 0; g < games; g++ {
		p := xiangqi.New(xiangqi.DefaultRules)
		for ply := 0; ply < 150; ply++ {
			ms := p.GenerateMoves(nil)
			if len(ms) == 0 || p.RuleStatus().Over() {
				break
			}
			m := ms[rng.IntN(len(ms))]
			if rng.IntN(2) == 0 {
				for _, x := range ms {
					if _, t := p.PieceAt(xiangqi.To(x)); t != xiangqi.NoType {
						m = x
						break
					}
				}
			}
			p.Make(m)
			if ply%every == every-1 {
				out = append(out, p.Copy())
			}
		}
	}
	return out
}

type features struct {
	check, generalPin, cannonScreen, blockedHorse, blockedElephant, crossedSoldier int
}

func (f *features) add(p *xiangqi.Position) {
	if p.InCheck() {
		f.check++
	}
	var kings [2]int
	for sq := 0; sq < xiangqi.NumSquares; sq++ {
		c, t := p.PieceAt(sq)
		r, file := sq/xiangqi.Files, sq%xiangqi.Files
		switch t {
		case xiangqi.King:
			kings[c] = sq
		case xiangqi.Pawn:
			if (c == game.First && r >= 5) || (c == game.Second && r <= 4) {
				f.crossedSoldier++
			}
		case xiangqi.Horse:
			for _, leg := range []int{sq + 9, sq - 9, sq + 1, sq - 1} {
				if leg >= 0 && leg < xiangqi.NumSquares && (leg%9 == file || leg/9 == r) {
					if _, lt := p.PieceAt(leg); lt != xiangqi.NoType {
						f.blockedHorse++
						break
					}
				}
			}
		case xiangqi.Elephant:
			for _, d := range []int{10, 8, -10, -8} {
				eye := sq + d
				if eye >= 0 && eye < xiangqi.NumSquares && abs(eye%9-file) == 1 {
					if _, et := p.PieceAt(eye); et != xiangqi.NoType {
						f.blockedElephant++
						break
					}
				}
			}
		}
	}
	// Exactly one piece between generals on one file: a pin by the
	// facing-generals rule. A cannon lined up with the enemy general over
	// pieces: screens matter.
	if kings[0]%9 == kings[1]%9 {
		if between(p, kings[0], kings[1], 9) == 1 {
			f.generalPin++
		}
	}
	for sq := 0; sq < xiangqi.NumSquares; sq++ {
		c, t := p.PieceAt(sq)
		if t != xiangqi.Cannon {
			continue
		}
		k := kings[c^1]
		if k%9 == sq%9 && between(p, sq, k, 9) >= 1 {
			f.cannonScreen++
		}
		if k/9 == sq/9 && between(p, sq, k, 1) >= 1 {
			f.cannonScreen++
		}
	}
}

func between(p *xiangqi.Position, a, b, step int) int {
	if a > b {
		a, b = b, a
	}
	n := 0
	for s := a + step; s < b; s += step {
		if _, t := p.PieceAt(s); t != xiangqi.NoType {
			n++
		}
	}
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
