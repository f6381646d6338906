package xiangqi

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestEvaluateIsTheDotProduct checks the fast path (tables built from the
// weights, threats and mobility in one pass) against the terms under
// random weights: Evaluate must be Σ w·term / WeightScale exactly.
func TestEvaluateIsTheDotProduct(t *testing.T) {
	saved := EvalWeights()
	defer SetEvalWeights(saved)
	rng := rand.New(rand.NewPCG(3, 4))
	w := make([]int32, NumEvalTerms)
	for i := range w {
		w[i] = int32(rng.IntN(2001) - 1000)
	}
	if err := SetEvalWeights(w); err != nil {
		t.Fatal(err)
	}
	var terms []int32
	for _, gp := range randomPositions(5, 20) {
		p := gp.(*Position)
		terms = p.EvalTerms(terms)
		var dot int64
		for i, x := range terms {
			dot += int64(w[i]) * int64(x)
		}
		if got, want := p.Evaluate(), int(dot/WeightScale); got != want {
			t.Fatalf("%s: Evaluate %d, dot product %d (terms %v)", p, got, want, terms)
		}
	}
	if err := SetEvalWeights(w[1:]); err == nil || !strings.Contains(err.Error(), "weights") {
		t.Errorf("short weight vector: err %v", err)
	}
}

// colourMirror returns p with the colours swapped: ranks turned, Red and
// Black exchanged, the other side to move.
func colourMirror(t *testing.T, p *Position) *Position {
	t.Helper()
	fields := strings.Fields(p.String())
	ranks := strings.Split(fields[0], "/")
	slices.Reverse(ranks)
	for i, r := range ranks {
		b := []byte(r)
		for j, c := range b {
			switch {
			case c >= 'a' && c <= 'z':
				b[j] = c - 'a' + 'A'
			case c >= 'A' && c <= 'Z':
				b[j] = c - 'A' + 'a'
			}
		}
		ranks[i] = string(b)
	}
	fields[0] = strings.Join(ranks, "/")
	fields[1] = map[string]string{"w": "b", "b": "w"}[fields[1]]
	q, err := Parse(strings.Join(fields, " "), DefaultRules)
	if err != nil {
		t.Fatalf("mirror of %s: %v", p, err)
	}
	return q
}

// TestEvalTermsSymmetric: a position and its colour mirror (and its file
// mirror) are the same position for the side to move, so every term
// agrees.
func TestEvalTermsSymmetric(t *testing.T) {
	for _, gp := range randomPositions(9, 20) {
		p := gp.(*Position)
		want := p.EvalTerms(nil)
		for _, q := range []*Position{colourMirror(t, p), mirrorPosition(t, p)} {
			if got := q.EvalTerms(nil); !slices.Equal(got, want) {
				t.Fatalf("%s: terms %v, mirror %s %v", p, want, q, got)
			}
		}
	}
}

// TestEvalTermsByHand checks the terms of small positions counted by hand.
func TestEvalTermsByHand(t *testing.T) {
	cases := []struct {
		fen  string
		want map[int]int32 // the terms checked
	}{
		{
			// Red: chariot c0, general e0, cannon e5 (hollow: e6-e8 empty to
			// the black general); Black: general e9, horse c7, undefended and
			// attacked by the chariot.
			fen: "4k4/9/2n6/9/4C4/9/9/9/9/2R1K4 w - - 0 1",
			want: map[int]int32{
				TermHorse: -1, TermRook: 1, TermCannon: 1, TermSoldier: 0,
				// chariot: a0 b0 d0, c1-c6, takes c7; cannon: a5-d5 f5-i5 e1-e4
				// e6-e8; horse: b9 d9 a8 e8 a6 e6 b5 d5.
				TermRookMobility: 10, TermCannonMobility: 15, TermHorseMobility: -8,
				TermHollowCannon: 1, TermPalaceAttacks: 0, TermKingAttackers: 0,
				// Red's chariot and cannon against two missing black advisors
				// and elephants, Black's horse against Red's.
				TermMissingAdvisors: 2, TermMissingElephants: 2,
				TermTempo: 1,
			},
		},
		{
			// Red soldiers c6 and d6 across the river; Black's chariot d7
			// and advisor e8.
			fen: "4k4/4a4/3r5/2PP5/9/9/9/9/9/4K4 w - - 0 1",
			want: map[int]int32{
				TermSoldier: 2, TermCrossedSoldier: 2, TermAdvisor: -1, TermRook: -1,
				// The soldier d6 reaches d7 of the black palace; the chariot's
				// file ends at d6.
				TermPalaceAttacks: 1, TermHollowCannon: 0, TermKingAttackers: 1,
			},
		},
		{
			// Red's chariot e5 sees e6, e7 and the advisor e8; Red's cannon
			// a8 jumps its soldier b8 onto e8 too; Black's general f9.
			fen: "5k3/CP2a4/9/9/4R4/9/9/9/9/4K4 w - - 0 1",
			want: map[int]int32{
				TermPalaceAttacks: 2, TermHollowCannon: 0, TermMissingAdvisors: 2,
				// two attackers of the palace (the chariot and the cannon): 2²
				TermKingAttackers: 4,
				// e6 e7, e8 (a capture), e1-e4, a5-d5, f5-i5
				TermRookMobility: 3 + 4 + 8,
			},
		},
	}
	for _, c := range cases {
		p, err := Parse(c.fen, DefaultRules)
		if err != nil {
			t.Fatal(err)
		}
		got := p.EvalTerms(nil)
		for term, want := range c.want {
			if got[term] != want {
				t.Errorf("%s: %s = %d, want %d", c.fen, evalTermNames[term], got[term], want)
			}
		}
	}
}
