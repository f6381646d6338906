package xiangqi

import (
	"fmt"
	"strings"

	"github.com/tabula-zero/tabula/game"
)

// squareName writes a square as file letter and rank: ranks 1-10 (UCI as
// Fairy-Stockfish writes it) or 0-9 (ICCS).
func squareName(sq int, iccs bool) string {
	r := rankOf(sq)
	if !iccs {
		r++
	}
	return fmt.Sprintf("%c%d", 'a'+fileOf(sq), r)
}

// FormatMove writes m as UCI (h3e3, b3b10), or ICCS (h2e2) when the rules
// ask for it.
func (p *Position) FormatMove(m game.Move) string {
	if m == game.NoMove {
		return "0000"
	}
	return squareName(From(m), p.rules.ICCS) + squareName(To(m), p.rules.ICCS)
}

// ParseMove reads a move and checks it is legal. Accepted: UCI with ranks
// 1-10 (h3e3, b3b10); ICCS with ranks 0-9 in its hyphenated form (H2-E2,
// either case); and the plain form h2e2 read as ICCS when the rules select
// ICCS notation.
func (p *Position) ParseMove(s string) (game.Move, error) {
	from, to, err := p.parseSquares(s)
	if err != nil {
		return game.NoMove, err
	}
	m := newMove(from, to)
	var ml [MaxMoves]game.Move
	n := p.genLegal(&ml)
	for _, x := range ml[:n] {
		if x == m {
			return m, nil
		}
	}
	if n == 0 {
		return game.NoMove, fmt.Errorf("xiangqi: illegal move %q: the game is over (no legal moves)", s)
	}
	return game.NoMove, fmt.Errorf("xiangqi: illegal move %q: %s", s, p.WhyIllegal(m))
}

func (p *Position) parseSquares(s string) (from, to int, err error) {
	iccs := p.rules.ICCS
	text := s
	if len(s) == 5 && s[2] == '-' {
		iccs = true
		text = strings.ToLower(s[:2] + s[3:])
	}
	bad := func(why string) error {
		return fmt.Errorf("xiangqi: malformed move %q: %s", s, why)
	}
	if len(text) < 4 || len(text) > 6 {
		return 0, 0, bad("want from and to squares such as h3e3")
	}
	pos := 0
	read := func() (int, error) {
		if pos >= len(text) {
			return 0, bad("square missing")
		}
		f := int(text[pos]) - 'a'
		if f < 0 || f >= Files {
			return 0, bad(fmt.Sprintf("file %q is not a-i", text[pos]))
		}
		pos++
		start := pos
		for pos < len(text) && pos-start < 2 && text[pos] >= '0' && text[pos] <= '9' {
			pos++
		}
		if pos == start {
			return 0, bad("rank missing")
		}
		r := 0
		for _, c := range text[start:pos] {
			r = r*10 + int(c-'0')
		}
		if pos-start == 2 && text[start] == '0' {
			return 0, bad("rank with a leading zero")
		}
		if !iccs {
			r--
		}
		if r < 0 || r >= Ranks {
			if iccs {
				return 0, bad("rank is not 0-9")
			}
			return 0, bad("rank is not 1-10")
		}
		return r*Files + f, nil
	}
	if from, err = read(); err != nil {
		return 0, 0, err
	}
	if to, err = read(); err != nil {
		return 0, 0, err
	}
	if pos != len(text) {
		return 0, 0, bad("trailing characters")
	}
	return from, to, nil
}
