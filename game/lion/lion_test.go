package lion

import (
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
)

var (
	safeOpts      = game.Options{"TryRule": "safe"}
	immediateOpts = game.Options{"TryRule": "immediate"}
)

// Published perft counts from the start position, depths 1-8.
var perftCounts = map[string][]uint64{
	"safe":      {4, 17, 123, 976, 8122, 71677, 635117, 5684459},
	"immediate": {4, 17, 118, 898, 7170, 59086, 500308, 4294947},
}

func registered(t testing.TB) game.Game {
	t.Helper()
	g, err := game.Lookup("lion")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func start(t testing.TB, opts game.Options) *Position {
	t.Helper()
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustParse(t testing.TB, text string, opts game.Options) *Position {
	t.Helper()
	p, err := Parse(text, opts)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	return p
}

func TestPerft(t *testing.T) {
	for rule, counts := range perftCounts {
		t.Run(rule, func(t *testing.T) {
			if testing.Short() {
				counts = counts[:6]
			}
			p, err := registered(t).New(game.Options{"TryRule": rule})
			if err != nil {
				t.Fatal(err)
			}
			gametest.Perft(t, p, counts, 6)
			if got := p.String(); got != StartText {
				t.Errorf("perft left the position at %q", got)
			}
		})
	}
}

func TestStartText(t *testing.T) {
	p := start(t, nil)
	if got := p.String(); got != StartText {
		t.Fatalf("start = %q, want %q", got, StartText)
	}
	// The rules' start: E L G on a1 b1 c1, chick b2; g l e on a4 b4 c4,
	// chick b3; first player to move.
	want := map[string]string{"a1": "E", "b1": "L", "c1": "G", "b2": "C", "a4": "g", "b4": "l", "c4": "e", "b3": "c"}
	for s := range squares {
		got := ""
		if pc := p.sq[s]; pc != 0 {
			got = string(letter(pc))
		}
		if got != want[squareName(s)] {
			t.Errorf("%s holds %q, want %q", squareName(s), got, want[squareName(s)])
		}
	}
	if p.SideToMove() != game.First || p.Ply() != 0 {
		t.Errorf("side %v ply %d, want first, 0", p.SideToMove(), p.Ply())
	}
	var got []string
	for _, m := range p.GenerateMoves(nil) {
		got = append(got, p.FormatMove(m))
	}
	if s := strings.Join(got, " "); s != "b1a2 b1c2 c1c2 b2b3" {
		t.Errorf("start moves %s", s)
	}
}

func TestRegistry(t *testing.T) {
	g := registered(t)
	if g.Name != "lion" || g.Encoder == nil || len(g.Options) != 2 {
		t.Fatalf("registered %+v", g)
	}
	if _, err := g.New(game.Options{"TryRule": "sometimes"}); err == nil || !strings.HasPrefix(err.Error(), "lion: ") {
		t.Errorf("bad TryRule: err %v", err)
	}
	if _, err := g.New(game.Options{"PlyCap": "0"}); err == nil {
		t.Errorf("PlyCap 0 accepted")
	}
	if _, err := g.New(game.Options{"Depth": "3"}); err == nil {
		t.Errorf("unknown option accepted")
	}
	p, err := g.New(game.Options{"plycap": "10", "tryrule": "immediate"})
	if err != nil {
		t.Fatal(err)
	}
	lp := p.(*Position)
	if !lp.Immediate() || lp.rules.plyCap != 10 || p.Game() != "lion" {
		t.Errorf("options not applied: %+v", lp.rules)
	}
}

func randomPositions(t testing.TB, opts game.Options, seed uint64) []game.Position {
	return gametest.RandomPositions(start(t, opts), 150, 80, seed)
}

func TestConformance(t *testing.T) {
	g := registered(t)
	gametest.RejectsUnknownOptions(t, g)
	for i, opts := range []game.Options{safeOpts, immediateOpts} {
		t.Run(opts["TryRule"], func(t *testing.T) {
			ps := randomPositions(t, opts, uint64(11+i))
			gametest.MakeUnmake(t, g, opts, ps)
			gametest.Encoder(t, g.Encoder, ps)
			gametest.Symmetry(t, g.Encoder, ps, mirrorPosition(t, g, opts))
		})
	}
}

// mirrorPosition swaps files a and c through the text format: every rank
// is a sequence of one-character tokens, so reversing it mirrors it.
func mirrorPosition(t *testing.T, g game.Game, opts game.Options) func(game.Position, int) game.Position {
	return func(p game.Position, _ int) game.Position {
		f := strings.Fields(p.String())
		rk := strings.Split(f[0], "/")
		for i, r := range rk {
			b := []byte(r)
			for l, h := 0, len(b)-1; l < h; l, h = l+1, h-1 {
				b[l], b[h] = b[h], b[l]
			}
			rk[i] = string(b)
		}
		f[0] = strings.Join(rk, "/")
		q, err := g.Parse(strings.Join(f, " "), opts)
		if err != nil {
			t.Fatalf("mirror of %s: %v", p, err)
		}
		return q
	}
}

// TestRandomGamesCoverRules makes sure the random positions the conformance
// suite runs on reach the special cases, so it checks them.
func TestRandomGamesCoverRules(t *testing.T) {
	for i, opts := range []game.Options{safeOpts, immediateOpts} {
		seen := map[string]int{}
		for _, gp := range randomPositions(t, opts, uint64(11+i)) {
			p := gp.(*Position)
			if st := p.Status(); st.Over() {
				seen[st.Reason+" "+st.Result.String()]++
			}
			if p.boardState() == stMustTake {
				seen["pending try"]++
			}
			if p.byType[Hen] != 0 {
				seen["hen"]++
			}
			if p.hand[0][Chick]+p.hand[1][Chick] > 0 && p.byType[Hen] != 0 {
				seen["hen and chick in hand"]++
			}
		}
		want := []string{"lion captured loss", "try loss", "hen", "hen and chick in hand"}
		if opts["TryRule"] == "safe" {
			want = append(want, "pending try", "try win")
		}
		for _, k := range want {
			if seen[k] == 0 {
				t.Errorf("%s: random games never reach %q (seen %v)", opts["TryRule"], k, seen)
			}
		}
	}
}

func TestNoAllocs(t *testing.T) {
	p := start(t, nil)
	if n := testing.AllocsPerRun(5, func() { p.Perft(5) }); n != 0 {
		t.Errorf("Perft(5) allocates %v times", n)
	}
	var buf [maxMoves]game.Move
	ps := randomPositions(t, safeOpts, 3)
	var gp game.Position = ps[len(ps)/2]
	moves := gp.GenerateMoves(buf[:0])
	if n := testing.AllocsPerRun(100, func() {
		for _, m := range moves {
			gp.Make(m)
			gp.Unmake()
		}
		_ = gp.Status()
		_ = gp.GenerateMoves(buf[:0])
	}); n != 0 {
		t.Errorf("Make/Unmake/Status/GenerateMoves allocate %v times", n)
	}
}

func TestEncoderPerspective(t *testing.T) {
	enc := Encoder{}
	c, h, w := enc.Shape()
	if c != 16 || h != 4 || w != 3 || enc.ActionSize() != 132 || enc.Version() != 1 {
		t.Fatalf("shape %d %d %d, actions %d", c, h, w, enc.ActionSize())
	}
	// The start board is point symmetric, so with either side to move it
	// must encode the same, and the mirror moves share action indices.
	white := start(t, nil)
	black := mustParse(t, "gle/1c1/1C1/ELG b - 2", nil)
	pw, pb := make([]float32, c*h*w), make([]float32, c*h*w)
	enc.Encode(white, pw)
	enc.Encode(black, pb)
	for i := range pw {
		if pw[i] != pb[i] {
			t.Fatalf("start encodes differently for the second player at %d", i)
		}
	}
	at := func(plane, y, x int) float32 { return pw[(plane*h+y)*w+x] }
	// Own lion bottom middle, own chick above it, opponent lion top middle.
	if at(Lion, 3, 1) != 1 || at(Chick, 2, 1) != 1 || at(numTypes+Lion, 0, 1) != 1 || at(Elephant, 3, 0) != 1 || at(numTypes+Elephant, 0, 2) != 1 {
		t.Errorf("start planes wrong: %v", pw[:60])
	}
	for _, pair := range [][2]string{{"b2b3", "b3b2"}, {"b1a2", "b4c3"}, {"c1c2", "a4a3"}} {
		mw, err1 := white.ParseMove(pair[0])
		mb, err2 := black.ParseMove(pair[1])
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if enc.ActionIndex(white, mw) != enc.ActionIndex(black, mb) {
			t.Errorf("%s and %s: action %d vs %d", pair[0], pair[1], enc.ActionIndex(white, mw), enc.ActionIndex(black, mb))
		}
	}
	// b2b3: from cell row 2 col 1 = 7, direction N = 0.
	if m, _ := white.ParseMove("b2b3"); enc.ActionIndex(white, m) != 7*8 {
		t.Errorf("b2b3 action %d, want 56", enc.ActionIndex(white, m))
	}

	// Hands: count/2 everywhere; the second player's view puts its own hand
	// first.
	p := mustParse(t, "1l1/3/3/1L1 b 2CGe 2", nil)
	enc.Encode(p, pw)
	want := map[int]float32{10: 0, 11: 0, 12: 0.5, 13: 1, 14: 0.5, 15: 0}
	for plane, v := range want {
		for i := range h * w {
			if got := pw[plane*h*w+i]; got != v {
				t.Fatalf("hand plane %d cell %d = %v, want %v", plane, i, got, v)
			}
		}
	}
	// Drop of the second player's elephant on a4 (its view: c1, row 3
	// col 2): 96 + 2*12 + 11.
	m, err := p.ParseMove("E*a4")
	if err != nil {
		t.Fatal(err)
	}
	if got := enc.ActionIndex(p, m); got != 96+24+11 {
		t.Errorf("E*a4 action %d, want %d", got, 96+24+11)
	}
}
