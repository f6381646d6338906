// Package gametest is a conformance suite for game implementations: perft
// against published counts, make/unmake and Zobrist invariants, text round
// trips, encoder and symmetry checks. Each game's tests call it.
package gametest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/game"
)

// Perft checks game.Perft (the specialised path) and, up to genericDepth, the
// interface-only path against known counts; counts[i] is perft(i+1).
func Perft(t *testing.T, p game.Position, counts []uint64, genericDepth int) {
	t.Helper()
	for i, want := range counts {
		d := i + 1
		if got := game.Perft(p, d); got != want {
			t.Errorf("%s: perft(%d) = %d, want %d", p, d, got, want)
		}
		if d <= genericDepth {
			if got := game.PerftGeneric(p, d); got != want {
				t.Errorf("%s: generic perft(%d) = %d, want %d", p, d, got, want)
			}
		}
	}
}

// RandomPositions plays n seeded random games of up to maxPlies from start
// (a fresh clone each) and returns every position passed through, stopping
// a game when it ends.
func RandomPositions(start game.Position, n, maxPlies int, seed uint64) []game.Position {
	rng := rand.New(rand.NewPCG(seed, 0x7ab01a))
	var out []game.Position
	var buf []game.Move
	for g := 0; g < n; g++ {
		p := start.Clone()
		for ply := 0; ply < maxPlies; ply++ {
			if p.Status().Over() {
				break
			}
			buf = p.GenerateMoves(buf[:0])
			if len(buf) == 0 {
				break
			}
			p.Make(buf[rng.IntN(len(buf))])
			out = append(out, p.Clone())
		}
	}
	return out
}

// MakeUnmake checks on every position and every legal move: the key after
// Make equals the key of the position parsed from scratch from its text,
// the text round-trips, the move round-trips through FormatMove/ParseMove,
// and Unmake restores text and key exactly.
func MakeUnmake(t *testing.T, g game.Game, opts game.Options, positions []game.Position) {
	t.Helper()
	for _, p := range positions {
		before, key := p.String(), p.Key()
		checkScratch(t, g, opts, p)
		for _, m := range p.GenerateMoves(nil) {
			text := p.FormatMove(m)
			back, err := p.ParseMove(text)
			if err != nil || back != m {
				t.Fatalf("%s: move %q does not round-trip: got %v, %v", before, text, back, err)
			}
			p.Make(m)
			checkScratch(t, g, opts, p)
			p.Unmake()
			if p.String() != before || p.Key() != key {
				t.Fatalf("%s: Make+Unmake of %s changed the position to %s (key %x, want %x)", before, text, p.String(), p.Key(), key)
			}
		}
	}
}

func checkScratch(t *testing.T, g game.Game, opts game.Options, p game.Position) {
	t.Helper()
	text := p.String()
	q, err := g.Parse(text, opts)
	if err != nil {
		t.Fatalf("parse of own text %q: %v", text, err)
	}
	if q.String() != text {
		t.Fatalf("text round trip: %q -> %q", text, q.String())
	}
	if q.Key() != p.Key() {
		t.Fatalf("%s: incremental key %x, from scratch %x", text, p.Key(), q.Key())
	}
	if q.SideToMove() != p.SideToMove() {
		t.Fatalf("%s: side to move differs after parse", text)
	}
}

// Encoder checks that legal moves map to distinct in-range action indices,
// that planes are finite and that encoding is deterministic.
func Encoder(t *testing.T, enc game.Encoder, positions []game.Position) {
	t.Helper()
	c, h, w := enc.Shape()
	a := enc.ActionSize()
	planes := make([]float32, c*h*w)
	again := make([]float32, c*h*w)
	for _, p := range positions {
		seen := map[int]game.Move{}
		for _, m := range p.GenerateMoves(nil) {
			i := enc.ActionIndex(p, m)
			if i < 0 || i >= a {
				t.Fatalf("%s: move %s has action index %d outside [0,%d)", p, p.FormatMove(m), i, a)
			}
			if o, dup := seen[i]; dup {
				t.Fatalf("%s: moves %s and %s share action index %d", p, p.FormatMove(o), p.FormatMove(m), i)
			}
			seen[i] = m
		}
		for i := range planes {
			planes[i] = float32(math.NaN())
		}
		enc.Encode(p, planes)
		enc.Encode(p, again)
		for i, v := range planes {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%s: plane value %d not written or not finite: %v", p, i, v)
			}
			if v != again[i] {
				t.Fatalf("%s: encoding is not deterministic at %d", p, i)
			}
		}
	}
}

// Symmetry checks each of enc's symmetries against a position transform:
// mirror(p, s) must return the image of p under symmetry s. Its planes must
// equal p's planes permuted, and its legal moves' action indices must be
// exactly the permuted indices of p's legal moves.
func Symmetry(t *testing.T, enc game.Encoder, positions []game.Position, mirror func(p game.Position, s int) game.Position) {
	t.Helper()
	c, h, w := enc.Shape()
	for si, s := range enc.Symmetries() {
		if len(s.Cells) != h*w || len(s.Actions) != enc.ActionSize() {
			t.Fatalf("symmetry %s: %d cells, %d actions; want %d, %d", s.Name, len(s.Cells), len(s.Actions), h*w, enc.ActionSize())
		}
		if !isPermutation(s.Cells) || !isPermutation(s.Actions) {
			t.Fatalf("symmetry %s is not a permutation", s.Name)
		}
		src := make([]float32, c*h*w)
		want := make([]float32, c*h*w)
		got := make([]float32, c*h*w)
		for _, p := range positions {
			q := mirror(p, si)
			enc.Encode(p, src)
			s.ApplyPlanes(want, src, c)
			enc.Encode(q, got)
			if !slices.Equal(want, got) {
				t.Fatalf("symmetry %s: planes of the mirrored %s differ from the permuted planes of %s", s.Name, q, p)
			}
			var mapped, direct []int
			for _, m := range p.GenerateMoves(nil) {
				mapped = append(mapped, s.Actions[enc.ActionIndex(p, m)])
			}
			for _, m := range q.GenerateMoves(nil) {
				direct = append(direct, enc.ActionIndex(q, m))
			}
			slices.Sort(mapped)
			slices.Sort(direct)
			if !slices.Equal(mapped, direct) {
				t.Fatalf("symmetry %s: legal moves of %s do not map onto those of %s", s.Name, p, q)
			}
		}
	}
}

func isPermutation(p []int) bool {
	seen := make([]bool, len(p))
	for _, v := range p {
		if v < 0 || v >= len(p) || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// WinsWithin is a brute-force solver for short wins, from the rules alone:
// can the side to move force a win within n of its own moves?
func WinsWithin(p game.Position, n int) bool {
	if n == 0 {
		return false
	}
	for _, m := range p.GenerateMoves(nil) {
		p.Make(m)
		ok := LostWithin(p, n)
		p.Unmake()
		if ok {
			return true
		}
	}
	return false
}

// LostWithin reports whether the side to move has lost, or every reply
// leaves the opponent a forced win within n-1 more of its moves (so the
// opponent wins within n moves counting the one that led here).
func LostWithin(p game.Position, n int) bool {
	if st := p.Status(); st.Over() {
		return st.Result == game.Loss
	}
	for _, r := range p.GenerateMoves(nil) {
		p.Make(r)
		st := p.Status()
		w := st.Result == game.Win || (!st.Over() && WinsWithin(p, n-1))
		p.Unmake()
		if !w {
			return false
		}
	}
	return true
}

// RejectsUnknownOptions checks the registry contract that New and Parse
// fail on an option the game does not declare, for games with options and
// without, so that a misspelt rule is never silently ignored.
func RejectsUnknownOptions(t *testing.T, g game.Game) {
	t.Helper()
	start, err := g.New(nil)
	if err != nil {
		t.Fatalf("%s: New(nil): %v", g.Name, err)
	}
	bad := game.Options{"NoSuchRule": "1"}
	if p, err := g.New(bad); err == nil || p != nil {
		t.Errorf("%s: New accepted the unknown option NoSuchRule (position %v)", g.Name, p)
	}
	if p, err := g.Parse(start.String(), bad); err == nil || p != nil {
		t.Errorf("%s: Parse accepted the unknown option NoSuchRule (position %v)", g.Name, p)
	}
}
