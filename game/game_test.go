package game_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all" // registers every game
)

func TestRegistry(t *testing.T) {
	if got, want := game.Names(), []string{"connect4", "lion", "xiangqi"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	if _, err := game.Lookup("chess"); err == nil || !strings.Contains(err.Error(), "unknown game \"chess\"") {
		t.Fatalf("Lookup(chess): %v", err)
	}
	g, err := game.Lookup("Xiangqi")
	if err != nil || g.Name != "xiangqi" {
		t.Fatalf("Lookup is not case-insensitive: %v", err)
	}
}

// Xiangqi has encoders 2 (its default), 3 and 4; WithEncoder picks one by
// version and names the versions it has when asked for another.
func TestWithEncoder(t *testing.T) {
	g, err := game.Lookup("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	def := g.Encoder.Version()
	for _, v := range []int{0, 2, 3, 4} {
		h, err := g.WithEncoder(v)
		if err != nil {
			t.Fatalf("WithEncoder(%d): %v", v, err)
		}
		want := v
		if v == 0 {
			want = def
		}
		if got := h.Encoder.Version(); got != want {
			t.Errorf("WithEncoder(%d) has version %d", v, got)
		}
	}
	if g.Encoder.Version() != def {
		t.Errorf("WithEncoder changed the game it was called on")
	}
	c2, _, _ := g.Encoder.Shape()
	g3, _ := g.WithEncoder(3)
	if c3, _, _ := g3.Encoder.Shape(); c3 != c2+2 {
		t.Errorf("encoder 3 has %d planes, encoder 2 %d", c3, c2)
	}
	if _, err := g.WithEncoder(7); err == nil || !strings.Contains(err.Error(), "xiangqi has no encoder version 7 (it has 2, 3, 4)") {
		t.Errorf("WithEncoder(7): %v", err)
	}
	c4, _ := game.Lookup("connect4")
	if _, err := c4.WithEncoder(3); err == nil || !strings.Contains(err.Error(), "connect4 has no encoder version 3") {
		t.Errorf("connect4.WithEncoder(3): %v", err)
	}
}

func TestResolve(t *testing.T) {
	g, err := game.Lookup("lion")
	if err != nil {
		t.Fatal(err)
	}
	opts, err := g.Resolve(game.Options{"tryrule": "immediate"})
	if err != nil {
		t.Fatal(err)
	}
	if opts["TryRule"] != "immediate" || opts["PlyCap"] == "" {
		t.Errorf("Resolve did not fill defaults or canonical names: %v", opts)
	}
	for _, c := range []struct {
		opts game.Options
		want string
	}{
		{game.Options{"TryRule": "sometimes"}, `value "sometimes" is not one of safe, immediate`},
		{game.Options{"PlyCap": "0"}, "outside"},
		{game.Options{"PlyCap": "ten"}, "not an integer"},
		{game.Options{"Colour": "red"}, `unknown option "Colour"`},
	} {
		if _, err := g.Resolve(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Resolve(%v) = %v, want error containing %q", c.opts, err, c.want)
		}
	}
}

func TestPlayAndDivide(t *testing.T) {
	g, _ := game.Lookup("connect4")
	p, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := game.Play(p, "4", "4", "9"); err == nil {
		t.Fatal("bad move accepted")
	}
	if p.Ply() != 2 || p.String() != "44" {
		t.Fatalf("Play kept %q (ply %d), want the moves before the bad one", p.String(), p.Ply())
	}
	// Divide sums to perft and lists every legal move once.
	div := game.Divide(p, 3)
	var sum uint64
	for _, e := range div {
		sum += e.Count
	}
	if len(div) != 7 || sum != game.Perft(p, 3) || sum != game.PerftGeneric(p, 3) {
		t.Fatalf("divide %v sums to %d, perft %d", div, sum, game.Perft(p, 3))
	}
}

func TestApplyPlanes(t *testing.T) {
	s := game.Symmetry{Cells: []int{2, 1, 0}}
	src := []float32{1, 2, 3, 4, 5, 6}
	dst := make([]float32, 6)
	s.ApplyPlanes(dst, src, 2)
	if want := []float32{3, 2, 1, 6, 5, 4}; !slices.Equal(dst, want) {
		t.Fatalf("ApplyPlanes = %v, want %v", dst, want)
	}
}

func TestParseOptions(t *testing.T) {
	o, err := game.ParseOptions(" TryRule = immediate,PlyCap=10 ")
	if err != nil || o["TryRule"] != "immediate" || o["PlyCap"] != "10" || len(o) != 2 {
		t.Fatalf("%v %v", o, err)
	}
	for _, bad := range []string{"TryRule", "=3", "a=1,,b=2"} {
		if _, err := game.ParseOptions(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if o, err := game.ParseOptions(""); err != nil || len(o) != 0 {
		t.Fatalf("empty: %v %v", o, err)
	}
}

func TestPathBelow(t *testing.T) {
	g, _ := game.Lookup("xiangqi")
	root, _ := g.New(nil)
	target := root.Clone()
	if err := game.Play(target, "h3e3", "h10g8"); err != nil {
		t.Fatal(err)
	}
	path, ok := game.PathBelow(root, target, 2)
	if !ok || len(path) != 2 {
		t.Fatalf("PathBelow two plies: %v %v", path, ok)
	}
	q := root.Clone()
	for _, m := range path {
		q.Make(m)
	}
	if q.Key() != target.Key() || root.Ply() != 0 {
		t.Fatalf("path %v leads to %s, want %s (root ply %d)", path, q, target, root.Ply())
	}
	if path, ok := game.PathBelow(root, root, 2); !ok || len(path) != 0 {
		t.Fatalf("PathBelow of the root itself: %v %v", path, ok)
	}
	if _, ok := game.PathBelow(root, target, 1); ok {
		t.Fatal("found a position two plies down within one ply")
	}
	if _, ok := game.PathBelow(target, root, 2); ok {
		t.Fatal("found a position above the root")
	}
	c4, _ := game.Lookup("connect4")
	other, _ := c4.New(nil)
	if _, ok := game.PathBelow(root, other, 2); ok {
		t.Fatal("found a position of another game")
	}
}

// Start gives the game's start position for an empty text and the parsed
// position otherwise.
func TestStart(t *testing.T) {
	g, err := game.Lookup("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	const fen = "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1"
	for _, c := range []struct{ text, want string }{
		{"", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"},
		{fen, fen},
	} {
		p, err := g.Start(c.text, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.String(); got != c.want {
			t.Errorf("Start(%q) = %s, want %s", c.text, got, c.want)
		}
	}
	if _, err := g.Start("4k4/9", nil); err == nil {
		t.Error("Start of a bad text: no error")
	}
}
