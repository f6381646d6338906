package nnuedata

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

func parseXQ(t *testing.T, fen string) *xiangqi.Position {
	t.Helper()
	p, err := xiangqi.Parse(fen, xiangqi.DefaultRules)
	if err != nil {
		t.Fatalf("%s: %v", fen, err)
	}
	return p
}

// materialByBoard is MaterialScore written another way, square by square
// with the values spelled out, for the tests to compare against.
func materialByBoard(p *xiangqi.Position) int {
	value := map[int]int{xiangqi.King: 0, xiangqi.Advisor: 200, xiangqi.Elephant: 200,
		xiangqi.Horse: 400, xiangqi.Rook: 900, xiangqi.Cannon: 450, xiangqi.Pawn: 100}
	v := 0
	for sq := range xiangqi.NumSquares {
		c, t := p.PieceAt(sq)
		if t == xiangqi.NoType {
			continue
		}
		x := value[t]
		rank := sq / xiangqi.Files
		if t == xiangqi.Pawn && (c == game.First && rank >= 5 || c == game.Second && rank <= 4) {
			x = 200
		}
		if c == p.SideToMove() {
			v += x
		} else {
			v -= x
		}
	}
	return v
}

func TestMaterialScore(t *testing.T) {
	for _, c := range []struct {
		fen  string
		want int
	}{
		{xiangqi.StartFEN, 0},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN1 w - - 0 1", -900}, // Red, to move, without a chariot
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN1 b - - 0 1", 900},
		{"1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1", -900}, // Black, to move, without one
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/7C1/9/RNBAKABNR w - - 0 1", -450},   // Red without a cannon
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/4P4/9/P1P3P1P/1C5C1/9/RNBAKABNR w - - 0 1", 100},  // Red's centre soldier across the river
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/4P4/9/P1P3P1P/1C5C1/9/RNBAKABNR b - - 0 1", -100},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/4P4/P1P3P1P/1C5C1/9/RNBAKABNR w - - 0 1", 0},    // one step, still on its own side
		{"rnbakabnr/9/1c5c1/p1p3p1p/9/4p4/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1", -100}, // Black's across
		{"3k5/9/9/9/9/9/9/9/9/3AK4 w - - 0 1", 200},
		{"3k5/4a4/4b4/9/9/9/9/9/9/4K4 w - - 0 1", -400},
		{"3k5/9/9/9/9/9/9/9/4H4/4K4 w - - 0 1", 400},
	} {
		p := parseXQ(t, c.fen)
		if got := p.MaterialScore(); got != c.want {
			t.Errorf("%s: %d, want %d", c.fen, got, c.want)
		}
		if got := (&MaterialPosition{p}).Evaluate(); got != c.want {
			t.Errorf("%s: Evaluate %d, want %d", c.fen, got, c.want)
		}
	}
}

// flipColours swaps the sides of a FEN: ranks turned, colours swapped,
// the other side to move; mirrorFiles mirrors its files.
func flipColours(fen string) string {
	f := strings.Fields(fen)
	rows := strings.Split(f[0], "/")
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	board := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return r
	}, strings.Join(rows, "/"))
	side := "b"
	if f[1] == "b" {
		side = "w"
	}
	return board + " " + side + " - - 0 1"
}

func mirrorFiles(fen string) string {
	f := strings.Fields(fen)
	rows := strings.Split(f[0], "/")
	for i, row := range rows {
		r := []rune(row)
		for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
			r[a], r[b] = r[b], r[a]
		}
		rows[i] = string(r)
	}
	return strings.Join(rows, "/") + " " + f[1] + " - - 0 1"
}

// The material of random positions: as written square by square, the
// same with colours swapped (the side to move's view is kept) and with
// files mirrored, negated with only the side to move changed.
func TestMaterialSymmetry(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	checked := 0
	for range 40 {
		p := parseXQ(t, xiangqi.StartFEN)
		for range 120 {
			if p.Status().Over() {
				break
			}
			v := p.MaterialScore()
			if w := materialByBoard(p); v != w {
				t.Fatalf("%s: %d, square by square %d", p, v, w)
			}
			fen := p.String()
			if w := parseXQ(t, flipColours(fen)).MaterialScore(); w != v {
				t.Fatalf("%s: %d, colours swapped %d", fen, v, w)
			}
			if w := parseXQ(t, mirrorFiles(fen)).MaterialScore(); w != v {
				t.Fatalf("%s: %d, mirrored %d", fen, v, w)
			}
			// The other side to move, where that is a legal position (the
			// side to move not in check).
			f := strings.Fields(fen)
			other := map[string]string{"w": "b", "b": "w"}[f[1]]
			if q, err := xiangqi.Parse(f[0]+" "+other+" - - 0 1", xiangqi.DefaultRules); err == nil && q.MaterialScore() != -v {
				t.Fatalf("%s: %d, the other side to move %d", fen, v, q.MaterialScore())
			}
			checked++
			ms := p.GenerateMoves(nil)
			p.Make(ms[rng.IntN(len(ms))])
		}
	}
	if checked < 1000 {
		t.Fatalf("%d positions checked", checked)
	}
}

// MaterialPosition keeps every search interface of *xiangqi.Position.
func TestMaterialInterfacesKept(t *testing.T) {
	var _ alphabeta.Position = (*MaterialPosition)(nil)
	for _, it := range []reflect.Type{
		reflect.TypeFor[alphabeta.Position](),
		reflect.TypeFor[alphabeta.NullMover](),
		reflect.TypeFor[alphabeta.MoveShortage](),
		reflect.TypeFor[alphabeta.QuietOrderer](),
		reflect.TypeFor[alphabeta.ExchangeEvaluator](),
		reflect.TypeFor[alphabeta.QuietChecker](),
		reflect.TypeFor[game.Perfter](),
	} {
		x := reflect.TypeFor[*xiangqi.Position]().Implements(it)
		if m := reflect.TypeFor[*MaterialPosition]().Implements(it); x && !m {
			t.Errorf("*xiangqi.Position implements %v, *MaterialPosition does not", it)
		}
	}
	p := &MaterialPosition{parseXQ(t, xiangqi.StartFEN)}
	q, ok := p.Clone().(*MaterialPosition)
	if !ok || q.Position == p.Position || q.String() != p.String() {
		t.Fatalf("Clone gave %T", p.Clone())
	}
}

// evalChecker is a MaterialPosition whose every evaluation in a search is
// checked against a from-scratch evaluation of the position's FEN: the
// evaluation follows the moves made and unmade, null moves included.
type evalChecker struct {
	*MaterialPosition
	t     *testing.T
	evals int
}

func (c *evalChecker) Evaluate() int {
	v := c.MaterialPosition.Evaluate()
	if w := materialByBoard(parseXQ(c.t, c.String())); v != w {
		c.t.Fatalf("%s: %d, from scratch %d", c, v, w)
	}
	c.evals++
	return v
}

func (c *evalChecker) Clone() game.Position {
	return &evalChecker{c.MaterialPosition.Clone().(*MaterialPosition), c.t, 0}
}

func TestMaterialInSearch(t *testing.T) {
	s, err := alphabeta.New(alphabeta.DefaultOptionsFor(xiangqi.Name))
	if err != nil {
		t.Fatal(err)
	}
	for _, fen := range []string{xiangqi.StartFEN, "r1bakab1r/9/1cn4c1/p1p1p1p1p/9/2P6/P3P1P1P/1CN4C1/9/R1BAKABNR w - - 0 1"} {
		c := &evalChecker{MaterialPosition: &MaterialPosition{parseXQ(t, fen)}, t: t}
		res := s.Search(context.Background(), c, alphabeta.Limits{Nodes: 3000}, nil)
		if res.Move == game.NoMove || c.evals < 100 {
			t.Fatalf("%s: move %v after %d evaluations", fen, res.Move, c.evals)
		}
		if c.String() != parseXQ(t, fen).String() {
			t.Fatalf("the search left %s, not %s", c, fen)
		}
	}
}

// A few games searched by material alone: records come out, the shards
// name the evaluation, and a directory of it refuses the classical one.
func TestGenerateMaterial(t *testing.T) {
	o := fastOptions()
	o.Eval = Material
	o.ShardRecords = 100
	dir := t.TempDir()
	sum, err := Generate(context.Background(), dir, 200, o, Events{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Total < 200 || sum.EvalName != "material" {
		t.Fatalf("%d positions, evaluation %q", sum.Total, sum.EvalName)
	}
	n := 0
	if err := ReadDir(dir, func(h *Header, recs []Record) error {
		if h.Eval != "material" {
			t.Errorf("shard %d names the evaluation %q", h.Seq, h.Eval)
		}
		n += len(recs)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != sum.Total {
		t.Fatalf("%d records read, %d written", n, sum.Total)
	}
	o.Eval = Classical
	if _, err := Generate(context.Background(), dir, 400, o, Events{}); err == nil || !strings.Contains(err.Error(), "material") {
		t.Fatalf("classical into material's directory: %v", err)
	}
}
