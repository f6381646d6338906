package connect4

import (
	"bufio"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/internal/ponsdata"
)

func registered(t testing.TB) game.Game {
	t.Helper()
	g, err := game.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustParse(t testing.TB, s string) *Position {
	t.Helper()
	p, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return p
}

// Published perft counts of Connect Four from the empty board: 7^d up to
// depth 6, then full columns (from depth 7) and fours cut the tree.
var perftCounts = []uint64{7, 49, 343, 2401, 16807, 117649, 823536, 5673234, 39394572}

func TestPerft(t *testing.T) {
	start := time.Now()
	gametest.Perft(t, New(), perftCounts, 6)
	t.Logf("perft 1-9 in %v", time.Since(start))
}

func TestPerftFromRegistry(t *testing.T) {
	p, err := registered(t).New(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The generic path must agree with the bitboard one where fours occur.
	if got, want := game.PerftGeneric(p, 8), perftCounts[7]; got != want {
		t.Fatalf("generic perft(8) = %d, want %d", got, want)
	}
}

// Perft from decided positions: a finished game has no moves.
func TestPerftTerminal(t *testing.T) {
	for _, s := range []string{"1212121", drawSeq} {
		p := mustParse(t, s)
		if got := p.Perft(1); got != 0 {
			t.Errorf("%s: Perft(1) = %d, want 0", s, got)
		}
		if got := game.PerftGeneric(p, 2); got != 0 {
			t.Errorf("%s: PerftGeneric(2) = %d, want 0", s, got)
		}
		if got := p.Perft(0); got != 1 {
			t.Errorf("%s: Perft(0) = %d, want 1", s, got)
		}
	}
}

func randomPositions() []game.Position {
	return gametest.RandomPositions(New(), 60, Cells, 20240601)
}

func TestMakeUnmake(t *testing.T) {
	gametest.MakeUnmake(t, registered(t), nil, randomPositions())
	gametest.RejectsUnknownOptions(t, registered(t))
}

func TestEncoder(t *testing.T) {
	gametest.Encoder(t, Encoder{}, randomPositions())
}

// mirrorPos replays the move sequence with every column d mirrored to 8-d.
func mirrorPos(t *testing.T) func(game.Position, int) game.Position {
	return func(p game.Position, _ int) game.Position {
		s := []byte(p.String())
		for i, c := range s {
			s[i] = '1' + '7' - c
		}
		return mustParse(t, string(s))
	}
}

func TestSymmetry(t *testing.T) {
	gametest.Symmetry(t, Encoder{}, randomPositions(), mirrorPos(t))
}

func TestEncodeLayout(t *testing.T) {
	// First plays column 1 (bottom-left), second column 7, first column 1.
	p := mustParse(t, "171")
	dst := make([]float32, 2*Cells)
	Encoder{}.Encode(p, dst)
	// Second to move: its stone is plane 0, bottom row y=5, x=6.
	want := map[int]float32{5*7 + 6: 1, Cells + 5*7 + 0: 1, Cells + 4*7 + 0: 1}
	for i, v := range dst {
		if v != want[i] {
			t.Errorf("plane value %d = %v, want %v", i, v, want[i])
		}
	}
}

// hasFourNaive is an independent four-in-a-row check on a column/row grid.
func hasFourNaive(stones uint64) bool {
	at := func(c, r int) bool {
		return c >= 0 && c < Width && r >= 0 && r < Height && stones&(1<<(7*c+r)) != 0
	}
	for c := 0; c < Width; c++ {
		for r := 0; r < Height; r++ {
			for _, d := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
				k := 0
				for k < 4 && at(c+k*d[0], r+k*d[1]) {
					k++
				}
				if k == 4 {
					return true
				}
			}
		}
	}
	return false
}

func TestHasFourMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		stones := rng.Uint64() & rng.Uint64() & BoardMask
		if got, want := HasFour(stones), hasFourNaive(stones); got != want {
			t.Fatalf("HasFour(%#x) = %v, naive %v", stones, got, want)
		}
	}
}

// Solver helpers against brute force by Make/Unmake.
func TestSolverHelpers(t *testing.T) {
	for _, gp := range randomPositions() {
		p := gp.(*Position)
		if p.Status().Over() {
			continue
		}
		if p.PackedKey() != p.Current()+p.Mask() || p.Moves() != p.Ply() {
			t.Fatalf("%s: accessor mismatch", p)
		}
		oppWinsNow := func() bool {
			for c := 0; c < Width; c++ {
				if p.CanPlay(c) && p.IsWinningMove(c) {
					return true
				}
			}
			return false
		}
		canWin := false
		var wins uint64
		for c := 0; c < Width; c++ {
			if !p.CanPlay(c) {
				continue
			}
			mv := Possible(p.Mask()) & ColumnMask(c)
			p.Make(ColumnMove(c))
			won := p.Status().Result == game.Loss
			p.Unmake()
			if won != p.IsWinningMove(c) {
				t.Fatalf("%s: IsWinningMove(%d) = %v, Make says %v", p, c, !won, won)
			}
			if won {
				canWin = true
				wins |= mv
			}
		}
		if got := WinningCells(p.Current(), p.Mask()) & Possible(p.Mask()); got != wins {
			t.Fatalf("%s: playable winning cells %#x, want %#x", p, got, wins)
		}
		if canWin {
			continue // NonLosingMoves assumes no immediate win
		}
		nl := p.NonLosingMoves()
		for c := 0; c < Width; c++ {
			if !p.CanPlay(c) {
				continue
			}
			p.Make(ColumnMove(c))
			loses := oppWinsNow()
			p.Unmake()
			in := nl&ColumnMask(c) != 0
			if in == loses {
				t.Fatalf("%s: column %d in NonLosingMoves = %v, but opponent wins next = %v", p, c+1, in, loses)
			}
		}
	}
}

// Wins: the four is detected after the winning move, not before, and the
// side to move then (the loser) sees a Loss with no moves.
func TestWins(t *testing.T) {
	for _, tc := range []struct{ name, seq string }{
		{"vertical", "1212121"},
		{"horizontal", "1122334"},
		{"diagonal /", "12234334544"},  // first at (1,1),(2,2),(3,3),(4,4)
		{"diagonal \\", "76654554344"}, // the mirror: (7,1),(6,2),(5,3),(4,4)
		{"horizontal right edge", "4455667"},
		{"second wins", "71212121"}, // second stacks four in column 1
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, tc.seq[:len(tc.seq)-1])
			if st := p.Status(); st.Over() {
				t.Fatalf("%s: game over before the last move: %+v", p, st)
			}
			winner := p.SideToMove()
			if err := game.Play(p, tc.seq[len(tc.seq)-1:]); err != nil {
				t.Fatal(err)
			}
			st := p.Status()
			if st.Result != game.Loss || st.Reason != "four in a row" {
				t.Fatalf("%s: status %+v, want loss by four in a row", p, st)
			}
			if p.SideToMove() != winner.Other() {
				t.Fatalf("%s: loser to move should be %v", p, winner.Other())
			}
			if ms := p.GenerateMoves(nil); len(ms) != 0 {
				t.Fatalf("%s: %d moves after the game ended", p, len(ms))
			}
			if !hasFourNaive(p.Current() ^ p.Mask()) {
				t.Fatalf("%s: naive check finds no four for the winner", p)
			}
		})
	}
}

// A full board without a four, found by an independent search and checked
// here with the naive detector after every move.
const drawSeq = "643426421252361677317153414534371522655677"

func TestDraw(t *testing.T) {
	p := New()
	for i := 0; i < len(drawSeq); i++ {
		if st := p.Status(); st.Over() {
			t.Fatalf("game over at ply %d: %+v", i, st)
		}
		if err := game.Play(p, drawSeq[i:i+1]); err != nil {
			t.Fatalf("ply %d: %v", i, err)
		}
		if hasFourNaive(p.Current()) || hasFourNaive(p.Current()^p.Mask()) {
			t.Fatalf("ply %d: naive check finds a four", i)
		}
	}
	if p.Mask() != BoardMask || p.Ply() != Cells {
		t.Fatalf("board not full: mask %#x, ply %d", p.Mask(), p.Ply())
	}
	if st := p.Status(); st.Result != game.Draw || st.Reason != "board full" {
		t.Fatalf("status %+v, want draw by full board", st)
	}
	if ms := p.GenerateMoves(nil); len(ms) != 0 {
		t.Fatalf("%d moves on a full board", len(ms))
	}
	if p.String() != drawSeq {
		t.Fatalf("String() = %q", p.String())
	}
}

func TestParseMoveErrors(t *testing.T) {
	p := mustParse(t, "111111")
	for _, s := range []string{"0", "8", "x", "", "11", " 1", "-1", "1\n"} {
		if m, err := p.ParseMove(s); err == nil {
			t.Errorf("ParseMove(%q) = %v, want an error", s, m)
		} else if !strings.HasPrefix(err.Error(), "connect4: ") {
			t.Errorf("error %q lacks the package prefix", err)
		}
	}
	if _, err := p.ParseMove("1"); err == nil || !strings.Contains(err.Error(), "full") {
		t.Errorf("ParseMove into a full column: %v", err)
	}
	if m, err := p.ParseMove("2"); err != nil || m != ColumnMove(1) {
		t.Errorf("ParseMove(2) = %v, %v", m, err)
	}
	over := mustParse(t, "1212121")
	if _, err := over.ParseMove("3"); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("ParseMove after the end: %v", err)
	}
	if game.IsLegal(p, game.NoMove) {
		t.Error("NoMove is legal")
	}
	if p.FormatMove(game.NoMove) != "?" || p.FormatMove(ColumnMove(6)) != "7" {
		t.Error("FormatMove")
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"40", "index 1"},
		{"447x", "index 3"},
		{"  8", "index 2"},
		{"1111111", "index 6"},
		{"12121212", "index 7"},
		{drawSeq + "1", "index 42"},
		{"4 4", "index 1"},
	} {
		p, err := Parse(tc.text)
		if err == nil {
			t.Errorf("Parse(%q) = %s, want an error", tc.text, p)
			continue
		}
		if !strings.HasPrefix(err.Error(), "connect4: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): error %q should start with connect4: and name %s", tc.text, err, tc.want)
		}
	}
	if _, err := Parse("12121212"); err == nil || !strings.Contains(err.Error(), "four in a row") {
		t.Errorf("move after a four: %v", err)
	}
	if _, err := Parse("1111111"); err == nil || !strings.Contains(err.Error(), "full column 1") {
		t.Errorf("full column: %v", err)
	}
	p := mustParse(t, " 4453\n")
	if p.String() != "4453" || p.SideToMove() != game.First || p.Ply() != 4 {
		t.Errorf("Parse with white space: %q, %v", p, p.SideToMove())
	}
	if s := New().String(); s != "" {
		t.Errorf("start position String() = %q", s)
	}
	if p := mustParse(t, ""); p.Key() != New().Key() || p.Ply() != 0 {
		t.Error("empty text is not the start position")
	}
}

// Keys: transpositions share a key, different positions (even with the
// same stones and another side to move) do not.
func TestKeys(t *testing.T) {
	a, b := mustParse(t, "4453"), mustParse(t, "5344")
	if a.Key() != b.Key() || a.PackedKey() != b.PackedKey() {
		t.Error("transposition 4453 / 5344 has different keys")
	}
	c := mustParse(t, "4435")
	if a.Key() == c.Key() {
		t.Error("4453 and 4435 share a key")
	}
	seen := map[uint64]string{}
	for _, p := range randomPositions() {
		q := p.(*Position)
		if s, dup := seen[q.Key()]; dup && mustParse(t, s).PackedKey() != q.PackedKey() {
			t.Fatalf("key collision between %s and %s", s, q)
		}
		seen[q.Key()] = q.String()
	}
}

func TestClone(t *testing.T) {
	p := mustParse(t, "4453")
	q := p.Clone()
	q.Make(ColumnMove(0))
	if p.String() != "4453" || q.String() != "44531" {
		t.Fatalf("clone shares state: %s / %s", p, q)
	}
	q.Unmake()
	q.Unmake()
	if p.String() != "4453" || q.String() != "445" {
		t.Fatalf("unmake on the clone: %s / %s", p, q)
	}
}

func TestMakeAllocs(t *testing.T) {
	p := mustParse(t, "4453")
	allocs := testing.AllocsPerRun(100, func() {
		p.Make(ColumnMove(3))
		p.Unmake()
		_ = p.Perft(3)
	})
	if allocs != 0 {
		t.Fatalf("Make/Unmake/Perft allocate %v times", allocs)
	}
}

func TestPonsData(t *testing.T) {
	f, err := ponsdata.Open("Test_L1_R1")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 0; n < 50 && sc.Scan(); n++ {
		moves, _, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("line %d: no score: %q", n+1, sc.Text())
		}
		p := mustParse(t, moves)
		if p.String() != moves || p.Status().Over() {
			t.Fatalf("line %d: %q parsed as %q, status %+v", n+1, moves, p, p.Status())
		}
		if want := game.Color(len(moves) & 1); p.SideToMove() != want {
			t.Fatalf("line %d: side to move %v, want %v", n+1, p.SideToMove(), want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
