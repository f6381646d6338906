package connect4

import (
	"strings"
	"testing"
)

// FuzzParse: Parse and ParseMove never panic, and whatever they accept
// round-trips through String / FormatMove.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "4453", "1212121", "12121212", "1111111", " 44\n", "0", "8", "x", drawSeq, drawSeq + "1", "32164625"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "connect4: ") {
				t.Fatalf("Parse(%q): error without prefix: %v", s, err)
			}
			p = New()
		} else {
			text := p.String()
			if text != strings.Trim(s, " \t\r\n") {
				t.Fatalf("Parse(%q).String() = %q", s, text)
			}
			q, err := Parse(text)
			if err != nil || q.String() != text || q.Key() != p.Key() || q.PackedKey() != p.PackedKey() {
				t.Fatalf("%q does not round-trip: %v", text, err)
			}
		}
		for _, pos := range []*Position{New(), p} {
			m, err := pos.ParseMove(s)
			if err != nil {
				continue
			}
			if pos.FormatMove(m) != s {
				t.Fatalf("ParseMove(%q) = %v formats as %q", s, m, pos.FormatMove(m))
			}
			before, key := pos.String(), pos.Key()
			pos.Make(m)
			q, err := Parse(pos.String())
			if err != nil || q.Key() != pos.Key() {
				t.Fatalf("after %q: %q does not parse back: %v", s, pos, err)
			}
			pos.Unmake()
			if pos.String() != before || pos.Key() != key {
				t.Fatalf("Make/Unmake of %q changed %q", s, before)
			}
		}
	})
}
