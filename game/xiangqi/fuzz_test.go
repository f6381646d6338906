package xiangqi

import "testing"

func FuzzParse(f *testing.F) {
	for _, s := range []string{StartFEN, "4k4/9/9/9/9/9/9/9/4A4/4K4 w", "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 3 9", "9/9/9 w", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, fen string) {
		p, err := Parse(fen, DefaultRules)
		if err != nil {
			return
		}
		text := p.String()
		q, err := Parse(text, DefaultRules)
		if err != nil {
			t.Fatalf("own FEN %q of %q rejected: %v", text, fen, err)
		}
		if q.String() != text || q.Key() != p.Key() {
			t.Fatalf("round trip %q -> %q", text, q.String())
		}
		_ = p.Status()
	})
}

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"h3e3", "b3b10", "H2-E2", "a0a1", "e1e2", "i10i9", "h3-e3", "", "zz"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, iccs bool) {
		p := New(Rules{PlyCap: 400, ICCS: iccs})
		m, err := p.ParseMove(s)
		if err != nil {
			return
		}
		back, err := p.ParseMove(p.FormatMove(m))
		if err != nil || back != m {
			t.Fatalf("%q -> %q does not round-trip: %v", s, p.FormatMove(m), err)
		}
	})
}
