package lion

import (
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		opts game.Options
		want string
	}{
		{"", nil, "has 0 fields"},
		{"gle/1c1/1C1/ELG w -", nil, "has 3 fields"},
		{"gle/1c1/1C1/ELG w - 1 x", nil, "has 5 fields"},
		{"gle/1c1/1C1 w - 1", nil, "has 3 ranks"},
		{"gle/1c1/1C1/ELG/3 w - 1", nil, "has 5 ranks"},
		{"gle/1c/1C1/ELG w - 1", nil, "rank 3 \"1c\" has 2 squares"},
		{"gle/1c1/1C1/ELG1 w - 1", nil, "rank 1 \"ELG1\" is longer"},
		{"gle/1c1/1C1/ELGC w - 1", nil, "rank 1 \"ELGC\" is longer"},
		{"gle/4/1C1/ELG w - 1", nil, "rank 3 \"4\" is longer"},
		{"gle/0c1/1C1/ELG w - 1", nil, "unknown piece letter '0'"},
		{"gxe/1c1/1C1/ELG w - 1", nil, "unknown piece letter 'x'"},
		{"gle/1c1/1C1/ELG x - 1", nil, "bad side to move \"x\""},
		{"gle/1c1/1C1/ELG W - 1", nil, "bad side to move"},
		{"1l1/3/3/1L1 w 3C 1", nil, "count 3 is impossible"},
		{"1l1/3/3/1L1 w 0C 1", nil, "count 0 is impossible"},
		{"1l1/3/3/1L1 w C2 1", nil, "count without a piece letter"},
		{"1l1/3/3/1L1 w L 1", nil, "lion never enters a hand"},
		{"1l1/3/3/1L1 w h 1", nil, "hen cannot be in hand"},
		{"1l1/3/3/1L1 w X 1", nil, "unknown piece letter 'X'"},
		{"1l1/3/3/1L1 w CC 1", nil, "C given twice"},
		{"1l1/3/3/1L1 w Cgc 1", nil, ""}, // fine: one chick each side
		{"gle/1c1/1C1/ELG w - 0", nil, "bad ply number \"0\""},
		{"gle/1c1/1C1/ELG w - -3", nil, "bad ply number"},
		{"gle/1c1/1C1/ELG w - one", nil, "bad ply number"},
		{"gle/1c1/1C1/ELG w - 99999999999999999999", nil, "bad ply number"},
		{"gle/1c1/1C1/ELG w - 2", nil, "does not fit side to move w"},
		{"gle/1c1/1C1/ELG b - 1", nil, "does not fit side to move b"},
		{"gll/1c1/1C1/ELG w - 1", nil, "second player has 2 lions"},
		{"g1e/1c1/1C1/ELG w - 1", nil, "second player has no lion"},
		{"gle/1c1/1C1/E1G w - 3", nil, ""}, // the side to move lost its lion
		{"gle/1c1/1C1/E1G b - 2", nil, "first player has no lion"},
		{"g1e/1c1/1C1/E1G w - 1", nil, "second player has no lion"},
		{"gle/1c1/1C1/ELG w C 1", nil, "3 chicks and hens"},
		{"gle/1c1/1H1/ELG w c 1", nil, "3 chicks and hens"},
		{"gle/1c1/GC1/ELG w - 1", nil, "3 giraffes"},
		{"gle/1c1/1C1/ELG w 2e 1", nil, "4 elephants"},
		// A chick on its far rank: only a drop puts it there, which the
		// immediate rule forbids.
		{"gCe/1l1/3/EL1 w - 1", safeOpts, ""},
		{"gCe/1l1/3/EL1 w - 1", immediateOpts, "first player chick on b4"},
		{"gle/3/3/cL1 w G 1", immediateOpts, "second player chick on a1"},
		// The side to move's lion on its far rank: a won safe try.
		{"1L1/3/1l1/3 w - 3", safeOpts, ""},
		{"1L1/3/1l1/3 w - 3", immediateOpts, "first player lion on b4"},
		{"gle/1c1/1C1/ELG w - 1", game.Options{"TryRule": "maybe"}, "TryRule"},
	} {
		_, err := Parse(tc.text, tc.opts)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Parse(%q): %v", tc.text, err)
		case tc.want == "":
		case err == nil:
			t.Errorf("Parse(%q) accepted, want an error mentioning %q", tc.text, tc.want)
		case !strings.HasPrefix(err.Error(), "lion: ") || !strings.Contains(err.Error(), tc.want):
			t.Errorf("Parse(%q): %v; want an error mentioning %q", tc.text, err, tc.want)
		}
	}
}

func TestParseNormalises(t *testing.T) {
	for in, out := range map[string]string{
		"3/1l1/111/1L1 w - 1":        "3/1l1/3/1L1 w - 1",
		"1l1/3/3/1L1 w eG2C 1":       "1l1/3/3/1L1 w 2CGe 1",
		"1l1/3/3/1L1 w 1C1g 1":       "1l1/3/3/1L1 w Cg 1",
		"  gle/1c1/1C1/ELG  w - 1  ": StartText,
		"gle/1c1/1C1/ELG b - 200":    "gle/1c1/1C1/ELG b - 200",
	} {
		p := mustParse(t, in, nil)
		if got := p.String(); got != out {
			t.Errorf("Parse(%q).String() = %q, want %q", in, got, out)
		}
	}
}

var fuzzPositions = []string{
	StartText,
	"g1e/1l1/1C1/EL1 w Gc 1",
	"2g/3/2l/1L1 b C 2",
	"1L1/3/1l1/3 w - 3",
	"gCe/1l1/3/EL1 b - 2",
	"1Lg/3/2l/3 b - 2", // pending safe try
	"1G1/3/3/1L1 b - 2",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzPositions {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Add("gle/1c1/1C1/ELG w 2CEg 1", false)
	f.Add("3/1l1/111/1L1 w eG2C 7", true)
	f.Add("gll/1c1/1C1/ELG b - 1", false)
	f.Fuzz(func(t *testing.T, text string, immediate bool) {
		opts := safeOpts
		if immediate {
			opts = immediateOpts
		}
		p, err := Parse(text, opts)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "lion: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		s := p.String()
		q, err := Parse(s, opts)
		if err != nil {
			t.Fatalf("%q accepted, but its text %q is not: %v", text, s, err)
		}
		if q.String() != s || q.Key() != p.Key() {
			t.Fatalf("%q: text %q re-parses as %q (key %x vs %x)", text, s, q.String(), q.Key(), p.Key())
		}
		// An accepted position is playable, and every position one move on
		// is accepted too.
		_ = p.Status()
		for _, m := range p.GenerateMoves(nil) {
			p.Make(m)
			_ = p.Status()
			if p.ply < maxPly {
				if _, err := Parse(p.String(), opts); err != nil {
					t.Fatalf("%s after %s: %v", s, FormatMove(m), err)
				}
			}
			p.Perft(1)
			p.Unmake()
		}
		if p.String() != s {
			t.Fatalf("make/unmake changed %s to %s", s, p)
		}
	})
}

func FuzzParseMove(f *testing.F) {
	for i, s := range []string{"b1b2", "C*b3", "G*b4", "b2b3", "e*a1", "b3b4+", "", "a1a1", "H*c1"} {
		f.Add(uint8(i), s, uint32(i*0x35))
	}
	f.Fuzz(func(t *testing.T, pi uint8, s string, code uint32) {
		p := mustParse(t, fuzzPositions[int(pi)%len(fuzzPositions)], safeOpts)
		m, err := p.ParseMove(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "lion: ") {
				t.Fatalf("error without prefix: %v", err)
			}
		} else {
			if !game.IsLegal(p, m) {
				t.Fatalf("ParseMove(%q) = %#x, not legal", s, m)
			}
			back, err := p.ParseMove(p.FormatMove(m))
			if err != nil || back != m {
				t.Fatalf("%q -> %#x -> %q -> %#x, %v", s, m, p.FormatMove(m), back, err)
			}
		}
		// Any code formats without panic, and what formats as a move reads
		// back as the same code.
		if txt := FormatMove(game.Move(code)); txt != "0000" {
			if back, err := parseMoveText(txt); err != nil || back != game.Move(code) {
				t.Fatalf("code %#x formats as %q, which reads as %#x, %v", code, txt, back, err)
			}
		}
	})
}
