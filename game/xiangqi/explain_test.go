package xiangqi

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
)

// TestWhyIllegalAgreesWithGenerator: in the perft positions and in
// positions along random games (checks, captures and pins among them),
// WhyIllegal says "" for every move the generator lists and gives a
// reason for every other pair of points.
func TestWhyIllegalAgreesWithGenerator(t *testing.T) {
	var positions []*Position
	for _, c := range readEPD(t) {
		positions = append(positions, mustParse(t, c.fen))
	}
	games := 60
	if testing.Short() {
		games = 12
	}
	rng := rand.New(rand.NewPCG(86, 1))
	for range games {
		p := New(DefaultRules)
		for ply := 0; ply < 160; ply++ {
			ms := p.GenerateMoves(nil)
			if len(ms) == 0 {
				break
			}
			if ply%4 == 0 || p.InCheck() {
				q := New(DefaultRules)
				*q = *p
				q.hist = nil
				positions = append(positions, q)
			}
			p.Make(ms[rng.IntN(len(ms))])
		}
	}
	checks, explained := 0, 0
	for _, p := range positions {
		legal := map[game.Move]bool{}
		for _, m := range p.GenerateMoves(nil) {
			legal[m] = true
		}
		if p.InCheck() {
			checks++
		}
		for from := range NumSquares {
			for to := range NumSquares {
				m := newMove(from, to)
				why := p.WhyIllegal(m)
				if (why == "") != legal[m] {
					t.Fatalf("%s: %s: generator legal=%v, WhyIllegal %q", p, p.FormatMove(m), legal[m], why)
				}
				if why != "" {
					explained++
				}
			}
		}
	}
	if checks < 20 {
		t.Errorf("only %d positions in check among %d: the comparison misses check evasions", checks, len(positions))
	}
	t.Logf("%d positions (%d in check), %d illegal pairs explained", len(positions), checks, explained)
}

// TestWhyIllegalReasons: each rule's refusal, in positions set up for it,
// through ParseMove as a player meets it.
func TestWhyIllegalReasons(t *testing.T) {
	const start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"
	for _, c := range []struct{ fen, move, want string }{
		{start, "a1a5", "the chariot is blocked at a4"},
		{start, "a1b2", "a chariot moves along a rank or a file"},
		{start, "h1f2", "the horse is blocked at g1"},
		{start, "h1h4", "a horse moves one point along a rank or file"},
		{start, "h3h10", ""}, // over the cannon on h8
		{"4k4/4r4/9/9/4p4/9/4P4/4C4/9/4K4 w", "e3e9", "a cannon captures by jumping over exactly one piece, and there are 2 between"},
		{"4k4/9/9/9/9/9/9/4C3r/9/3K5 w", "e3i3", "a cannon captures by jumping over exactly one piece, and there is none between"},
		{start, "h3h9", "the cannon is blocked at h8 (it jumps only to capture)"},
		{start, "e4d4", "a soldier moves sideways only after crossing the river"},
		{start, "e4e6", "a soldier steps one point forward"},
		{start, "c1d2", "an elephant moves exactly two points diagonally"},
		{start, "c1e3", ""},
		{start, "d1d2", "an advisor steps one point diagonally"},
		{start, "e1e3", "a general steps one point along a rank or a file"},
		{start, "e1e2", ""}, // legal
		{start, "h3f4", "a cannon moves along a rank or a file"},
		{start, "e7e6", "no piece of yours on e7 (Red is to move)"},
		{start, "e5e6", "no piece of yours on e5"},
		{start, "a1a4", "a4 holds a piece of your own"},
		{start, "h3h3", "does not move"},
		// The elephant's eye, the river, the palace.
		{"4k4/9/9/9/9/9/9/9/3N5/2B2K3 w", "c1e3", "the elephant is blocked at d2"},
		{"4k4/9/9/9/9/2B6/9/9/9/3K5 w", "c5e7", "an elephant may not cross the river"},
		{"4k4/9/9/9/9/9/9/3K5/9/9 w", "d3c3", "the general may not leave its palace"},
		{"4k4/9/9/9/9/9/9/3A5/9/3K5 w", "d3c4", "the advisor may not leave its palace"},
		{"3k5/9/9/9/9/9/9/9/4A4/4K4 w", "e1d1", "the generals would face each other"},
		{"4k4/9/9/9/9/9/9/9/4A4/4K4 w", "e2d3", "the generals would face each other"},
		{"4k4/9/9/9/9/9/9/4p4/9/4K4 w", "e1e2", "the general would be in check from the soldier"},
		{"4k4/4r4/9/9/9/R8/9/9/9/4K4 w", "a5a6", "your general is in check, and that move leaves it attacked by the chariot"},
		{"4k4/9/9/9/9/9/9/2n6/2R6/3K5 w", "c2b2", "that move leaves your general in check from the horse"},
		{"4k4/9/9/9/4P4/9/9/9/9/3K5 w", "e6e5", "a soldier never moves backward"},
		{"4k4/9/9/9/4P4/9/9/9/9/3K5 w", "e6d6", ""},
	} {
		p := mustParse(t, c.fen)
		_, err := p.ParseMove(c.move)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s in %s: %v, want legal", c.move, c.fen, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s in %s: %v, want %q", c.move, c.fen, err, c.want)
		}
	}
}
