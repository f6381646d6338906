package xiangqi

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
)

type perftCase struct {
	fen    string
	counts []uint64
}

func readEPD(t testing.TB) []perftCase {
	f, err := os.Open("testdata/perft.epd")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []perftCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		parts := strings.Split(line, ";")
		c := perftCase{fen: strings.TrimSpace(parts[0])}
		for i, d := range parts[1:] {
			var depth int
			var n uint64
			fs := strings.Fields(d)
			if len(fs) != 2 || fs[0] != "D"+strconv.Itoa(i+1) {
				t.Fatalf("bad EPD field %q", d)
			}
			depth = i + 1
			n, err = strconv.ParseUint(fs[1], 10, 64)
			if err != nil {
				t.Fatalf("bad EPD count %q", d)
			}
			_ = depth
			c.counts = append(c.counts, n)
		}
		out = append(out, c)
	}
	return out
}

func TestPerft(t *testing.T) {
	for _, c := range readEPD(t) {
		p, err := Parse(c.fen, DefaultRules)
		if err != nil {
			t.Fatal(err)
		}
		counts := c.counts
		if testing.Short() && len(counts) > 4 {
			counts = counts[:4]
		}
		gametest.Perft(t, p, counts, 3)
		if p.String() != c.fen {
			t.Errorf("perft changed the position: %s", p)
		}
	}
}

func randomPositions(seed uint64, games int) []game.Position {
	return gametest.RandomPositions(New(DefaultRules), games, 160, seed)
}

func TestConformance(t *testing.T) {
	g, err := game.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	ps := randomPositions(1, 12)
	gametest.MakeUnmake(t, g, nil, ps)
	gametest.RejectsUnknownOptions(t, g)
	for _, enc := range []Encoder{{}, ThreatEncoder, FromToEncoder} {
		gametest.Encoder(t, enc, ps)
		gametest.Symmetry(t, enc, ps, func(gp game.Position, _ int) game.Position {
			return mirrorPosition(t, gp.(*Position))
		})
	}
}

// mirrorPosition reflects the board left-right through its FEN text.
func mirrorPosition(t *testing.T, p *Position) *Position {
	fields := strings.Fields(p.String())
	ranks := strings.Split(fields[0], "/")
	for i, r := range ranks {
		var cells []byte
		for j := 0; j < len(r); j++ {
			if r[j] >= '1' && r[j] <= '9' {
				for k := 0; k < int(r[j]-'0'); k++ {
					cells = append(cells, '1')
				}
			} else {
				cells = append(cells, r[j])
			}
		}
		slices.Reverse(cells)
		ranks[i] = strings.Join(strings.Split(string(cells), ""), "")
	}
	fields[0] = strings.Join(ranks, "/")
	q, err := Parse(strings.Join(fields, " "), p.rules)
	if err != nil {
		t.Fatalf("mirror of %s: %v", p, err)
	}
	// Ones stand for single empty squares; FEN allows that, and String
	// normalises them.
	return q
}

func TestMakeUnmakeNoAlloc(t *testing.T) {
	p := New(DefaultRules)
	ms := p.GenerateMoves(nil)
	allocs := testing.AllocsPerRun(100, func() {
		for _, m := range ms {
			p.Make(m)
			p.Unmake()
		}
		var ml [MaxMoves]game.Move
		p.LegalMoves(&ml)
	})
	if allocs != 0 {
		t.Errorf("Make/Unmake/LegalMoves allocate %v times per run", allocs)
	}
}

func TestFENRoundTrip(t *testing.T) {
	for _, c := range readEPD(t) {
		p, err := Parse(c.fen, DefaultRules)
		if err != nil {
			t.Fatal(err)
		}
		if p.String() != c.fen {
			t.Errorf("round trip %q -> %q", c.fen, p.String())
		}
	}
	// Accepted variants normalise to the standard form.
	for in, want := range map[string]string{
		"rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r":          StartFEN,
		"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 7 12": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 7 12",
	} {
		p, err := Parse(in, DefaultRules)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if p.String() != want {
			t.Errorf("%q -> %q, want %q", in, p.String(), want)
		}
	}
}

func TestFENErrors(t *testing.T) {
	for _, c := range []struct{ fen, want string }{
		{"", "empty"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", "side to move missing"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x", "side to move"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w", "9 ranks"},
		{"rnbakabnr/8/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "rank 9 has 8 files"},
		{"rnbakabnrr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "more than 9 files"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w", "unknown piece letter"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/K8/RNBA1ABNR w", "outside the palace"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/3K5/RNBAKABNR w", "more than 1 red general"},
		{"rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "0 generals"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4A4/RNB1KABNR w", ""},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/3A5/RNB1KABNR w", "palace diagonal"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/B8/P1P1P1P1P/1C5C1/9/RN1AKABNR w", "elephant point"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/P8/RNBAKABNR w", "soldier cannot reach"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/PPP1P1P1P/1C5C1/9/RNBAKABNR w", "soldier cannot reach"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/P8/2P1P1P1P/1C5C1/9/RNBAKABNR w", ""},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/2R6/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "more than 2 red chariot"},
		{"4k4/9/9/9/9/9/9/9/9/4K4 w", "generals face each other"},
		{"4k4/9/9/9/9/9/9/9/9/3RK4 b", "not to move is in check"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - x 1", "halfmove clock"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 0", "move number"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 9", "at most 6"},
	} {
		_, err := Parse(c.fen, DefaultRules)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: unexpected error %v", c.fen, err)
		case c.want != "" && err == nil:
			t.Errorf("%q: accepted, want error containing %q", c.fen, c.want)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%q: error %q does not contain %q", c.fen, err, c.want)
		}
	}
}

func moveTexts(p *Position) []string {
	var out []string
	for _, m := range p.GenerateMoves(nil) {
		out = append(out, p.FormatMove(m))
	}
	slices.Sort(out)
	return out
}

func mustParse(t *testing.T, fen string) *Position {
	t.Helper()
	p, err := Parse(fen, DefaultRules)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFlyingGeneral(t *testing.T) {
	// The general may not step onto the open d-file facing the other
	// general (e1d1 is missing); the advisor moves freely.
	p := mustParse(t, "3k5/9/9/9/9/9/9/9/4A4/4K4 w")
	if got, want := moveTexts(p), []string{"e1f1", "e2d1", "e2d3", "e2f1", "e2f3"}; !slices.Equal(got, want) {
		t.Errorf("moves %v, want %v", got, want)
	}
	// The advisor between the generals is pinned.
	p = mustParse(t, "4k4/9/9/9/9/9/9/9/4A4/4K4 w")
	if got, want := moveTexts(p), []string{"e1d1", "e1f1"}; !slices.Equal(got, want) {
		t.Errorf("pinned advisor: moves %v, want %v", got, want)
	}
	if _, err := p.ParseMove("e2d3"); err == nil || !strings.Contains(err.Error(), "illegal") {
		t.Errorf("pinned advisor move accepted: %v", err)
	}
}

func TestNoMovesLoses(t *testing.T) {
	// Stalemate: Black is not in check but has no move, and loses.
	p := mustParse(t, "3k5/R8/9/9/9/9/9/9/9/4K4 b")
	if p.InCheck() {
		t.Fatal("stalemate position reported as check")
	}
	if s := p.Status(); s.Result != game.Loss || s.Reason != ReasonNoMoves {
		t.Errorf("stalemate status %+v, want loss by no legal moves", s)
	}
	// Checkmate by two chariots.
	p = mustParse(t, "R2k5/1R7/9/9/9/9/9/9/9/4K4 b")
	if !p.InCheck() {
		t.Fatal("mate position not in check")
	}
	if s := p.Status(); s.Result != game.Loss {
		t.Errorf("mate status %+v, want loss", s)
	}
}

func playAll(t *testing.T, p *Position, moves string) {
	t.Helper()
	if err := game.Play(p, strings.Fields(moves)...); err != nil {
		t.Fatal(err)
	}
}

func TestPerpetualCheckLoses(t *testing.T) {
	// Red checks with the chariot on every move (h10, h9, ...) while Black's
	// general steps between d10 and d9 without checking.
	p := mustParse(t, "3k5/7R1/9/9/9/9/9/9/9/4K4 w")
	cycle := "h9h10 d10d9 h10h9 d9d10 "
	playAll(t, p, cycle)
	if s := p.Status(); s.Over() {
		t.Fatalf("over after the second occurrence: %+v", s)
	}
	playAll(t, p, cycle)
	s := p.Status()
	if s.Result != game.Loss || s.Reason != ReasonPerpetualCheck {
		t.Fatalf("third occurrence, Red to move after checking every move: %+v, want loss by perpetual check", s)
	}
	// One ply on, Black is to move at its own third occurrence and wins.
	playAll(t, p, "h9h10")
	if s := p.Status(); s.Result != game.Win || s.Reason != ReasonPerpetualCheck {
		t.Fatalf("Black to move after Red's perpetual check: %+v, want win", s)
	}
}

func TestRepetitionDraw(t *testing.T) {
	// Both sides shuffle without checking: a plain repetition draw.
	p := mustParse(t, "3k5/9/9/9/9/9/9/9/R8/4K4 w")
	cycle := "a2a3 d10d9 a3a2 d9d10 "
	playAll(t, p, cycle+cycle)
	if s := p.Status(); s.Result != game.Draw || s.Reason != ReasonRepetition {
		t.Fatalf("status %+v, want draw by repetition", s)
	}
	p.Unmake()
	if s := p.Status(); s.Over() {
		t.Fatalf("status %+v one ply before the third occurrence", s)
	}
}

func TestRepetitionVerdicts(t *testing.T) {
	// The verdict for every combination of checking since the first of the
	// three occurrences (as Fairy-Stockfish counts), including mutual
	// perpetual check (a draw), on a synthetic history: hist[i].checked is
	// whether move i-1 gave check.
	for _, c := range []struct {
		usChecks, themChecks bool
		want                 game.Result
	}{
		{true, false, game.Loss},
		{false, true, game.Win},
		{true, true, game.Draw},
		{false, false, game.Draw},
	} {
		p := mustParse(t, "3k5/9/9/9/9/9/9/9/R8/4K4 w")
		playAll(t, p, "a2a3 d10d9 a3a2 d9d10 a2a3 d10d9 a3a2 d9d10")
		// Moves 0..7: the even ones by the side to move now, the odd ones by
		// the other.
		for i := 0; i < 8; i++ {
			gave := c.themChecks
			if i%2 == 0 {
				gave = c.usChecks
			}
			if i == 7 {
				p.checked = gave
			} else {
				p.hist[i+1].checked = gave
			}
		}
		if got := p.Repetition(); got != c.want {
			t.Errorf("us checks %v, them checks %v: %v, want %v", c.usChecks, c.themChecks, got, c.want)
		}
	}
}

func TestNoCaptureRule(t *testing.T) {
	p := mustParse(t, "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 116 1")
	playAll(t, p, "a2a3 d10d9 a3a4")
	if s := p.Status(); s.Over() {
		t.Fatalf("over at 119 plies: %+v", s)
	}
	playAll(t, p, "d9d10")
	if s := p.Status(); s.Result != game.Draw || s.Reason != ReasonNoCapture {
		t.Fatalf("status %+v at 120 plies, want draw by the no-capture rule", s)
	}
	// A capture resets the count.
	p = mustParse(t, "3k5/9/9/9/9/9/9/r8/R8/4K4 w - - 119 1")
	playAll(t, p, "a2a3")
	if p.HalfmoveClock() != 0 || p.Status().Over() {
		t.Fatalf("capture did not reset the clock: %d", p.HalfmoveClock())
	}
}

func TestMaterialDraw(t *testing.T) {
	p := mustParse(t, "3k5/4a4/9/9/9/9/9/4B4/9/4K4 w")
	if s := p.Status(); s.Result != game.Draw || s.Reason != ReasonMaterial {
		t.Fatalf("status %+v, want draw by material", s)
	}
	p = mustParse(t, "3k5/4a4/9/9/9/9/9/4B4/p8/4K4 w")
	if s := p.Status(); s.Over() {
		t.Fatalf("a soldier is attacking material: %+v", s)
	}
}

func TestPlyCap(t *testing.T) {
	p, err := Parse("3k5/9/9/9/9/9/9/9/R8/4K4 w", Rules{PlyCap: 3})
	if err != nil {
		t.Fatal(err)
	}
	playAll(t, p, "a2a3 d10d9")
	if p.Status().Over() {
		t.Fatal("over before the cap")
	}
	playAll(t, p, "a3a4")
	if s := p.Status(); s.Result != game.Draw || s.Reason != ReasonPlyCap {
		t.Fatalf("status %+v, want draw by ply cap", s)
	}
}

func TestMoveNotation(t *testing.T) {
	p := New(DefaultRules)
	for _, c := range []struct{ in, want string }{
		{"h3e3", "h3e3"}, {"H2-E2", "h3e3"}, {"h2-e2", "h3e3"}, {"b1c3", "b1c3"}, {"a1a2", "a1a2"},
	} {
		m, err := p.ParseMove(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if got := p.FormatMove(m); got != c.want {
			t.Errorf("%q -> %q, want %q", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"", "h3", "h3e", "j3e3", "h0e3", "h11e3", "h3e3x", "h3h3", "h3e4", "e1e2x", "a01a2", "3h3e"} {
		if _, err := p.ParseMove(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// b3b10: a rank with two digits.
	q := mustParse(t, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")
	m, err := q.ParseMove("b3b10")
	if err != nil || q.FormatMove(m) != "b3b10" {
		t.Fatalf("b3b10: %v %q", err, q.FormatMove(m))
	}
	// ICCS selected: plain moves read and write with ranks 0-9.
	r, _ := RulesFrom(game.Options{OptNotation: "iccs"})
	ic := New(r)
	m, err = ic.ParseMove("h2e2")
	if err != nil || ic.FormatMove(m) != "h2e2" || p.FormatMove(m) != "h3e3" {
		t.Fatalf("iccs h2e2: %v %q", err, ic.FormatMove(m))
	}
}

func TestRegistryOptions(t *testing.T) {
	g, err := game.Lookup("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.New(game.Options{"PlyCap": "x"}); err == nil {
		t.Error("non-numeric PlyCap accepted")
	}
	if _, err := g.New(game.Options{"Bogus": "1"}); err == nil || !strings.Contains(err.Error(), "Bogus") {
		t.Errorf("unknown option: %v", err)
	}
	p, err := g.New(game.Options{"plycap": "10"})
	if err != nil || p.(*Position).Rules().PlyCap != 10 {
		t.Fatalf("PlyCap option: %v", err)
	}
}

func TestEncoding(t *testing.T) {
	enc := Encoder{}
	// Every legal move of both sides in the start position maps to the
	// same set of indices: the start position looks the same from both sides.
	p := New(DefaultRules)
	red := indices(enc, p)
	playAll(t, p, "a1a2")
	p2 := mustParse(t, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b")
	if !slices.Equal(red, indices(enc, p2)) {
		t.Error("start position: Black's action indices differ from Red's")
	}
	a := enc.ActionSize()
	if a < 2000 || a > 2100 {
		t.Errorf("action space %d, expected about 2060 from-to pairs", a)
	}
	for i := 0; i < a; i++ {
		m, ok := enc.ActionMove(p, i)
		if !ok || enc.ActionIndex(p, m) != i {
			t.Fatalf("action %d does not round-trip", i)
		}
	}
}

// Version 4 has version 3's planes and names each move by its two
// squares from the side to move's view: the same move as version 3's
// action, every pair of distinct squares once.
func TestFromToEncoding(t *testing.T) {
	c, h, w := FromToEncoder.Shape()
	if c3, _, _ := ThreatEncoder.Shape(); c != c3 || h*w != NumSquares || FromToEncoder.ActionSize() != NumSquares*NumSquares {
		t.Fatalf("shape %d %dx%d, actions %d", c, h, w, FromToEncoder.ActionSize())
	}
	for _, gp := range randomPositions(3, 20) {
		p := gp.(*Position)
		a, b := make([]float32, c*h*w), make([]float32, c*h*w)
		ThreatEncoder.Encode(p, a)
		FromToEncoder.Encode(p, b)
		if !slices.Equal(a, b) {
			t.Fatalf("%s: planes differ from version 3's", p)
		}
		for _, m := range p.GenerateMoves(nil) {
			i := FromToEncoder.ActionIndex(p, m)
			m3, _ := ThreatEncoder.ActionMove(p, ThreatEncoder.ActionIndex(p, m))
			if m4, ok := FromToEncoder.ActionMove(p, i); !ok || m4 != m || m3 != m {
				t.Fatalf("%s: move %v is action %d, back %v (version 3: %v)", p, m, i, m4, m3)
			}
			from, to := From(m), To(m)
			if p.side == game.Second {
				from, to = NumSquares-1-from, NumSquares-1-to
			}
			if i != from*NumSquares+to {
				t.Fatalf("%s: move %v is action %d, want %d", p, m, i, from*NumSquares+to)
			}
		}
	}
	p := New(DefaultRules)
	for i := range FromToEncoder.ActionSize() {
		m, ok := FromToEncoder.ActionMove(p, i)
		if ok != (i/NumSquares != i%NumSquares) || ok && FromToEncoder.ActionIndex(p, m) != i {
			t.Fatalf("action %d: %v %v", i, m, ok)
		}
	}
	if _, ok := FromToEncoder.ActionMove(p, NumSquares*NumSquares); ok {
		t.Error("an action beyond the space maps to a move")
	}
}

func indices(enc Encoder, p *Position) []int {
	var out []int
	for _, m := range p.GenerateMoves(nil) {
		out = append(out, enc.ActionIndex(p, m))
	}
	slices.Sort(out)
	return out
}
