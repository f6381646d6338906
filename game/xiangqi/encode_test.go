package xiangqi

import (
	"math"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/game"
)

// attackedSquares reads an attack plane back into square names, from the
// board's view (the plane is from the side to move's).
func attackedSquares(p *Position, planes []float32, plane int, occupiedBy func(sq int) bool) map[string]bool {
	out := map[string]bool{}
	for sq := 0; sq < NumSquares; sq++ {
		if planes[plane*NumSquares+p.cell(sq)] == 1 && occupiedBy(sq) {
			out[squareName(sq, false)] = true
		}
	}
	return out
}

// The start position by hand (and after a1a2, from Black's view): the
// only pieces attacked are the horses, by the cannons across the river
// over the enemy cannons as screens (h3 over h8 onto h10); no piece is
// attacked twice, while the empty a3 (a8) is, by chariot and horse.
func TestAttackPlanesStart(t *testing.T) {
	for _, moves := range [][]string{nil, {"a1a2"}} {
		p := New(DefaultRules)
		if err := game.Play(p, moves...); err != nil {
			t.Fatal(err)
		}
		planes := make([]float32, numPlanes*NumSquares)
		Encoder{}.Encode(p, planes)
		us, them := p.side, p.side.Other()
		ours := func(sq int) bool { return p.board[sq] != 0 && game.Color(valColor[p.board[sq]]) == us }
		theirs := func(sq int) bool { return p.board[sq] != 0 && game.Color(valColor[p.board[sq]]) == them }
		wantUs, wantThem := map[string]bool{"b10": true, "h10": true}, map[string]bool{"b1": true, "h1": true}
		if us == game.Second {
			wantUs, wantThem = wantThem, wantUs
		}
		if got := attackedSquares(p, planes, attackPlane, theirs); !equalSets(got, wantUs) {
			t.Errorf("after %v: enemy pieces the side to move attacks: %v, want %v", moves, got, wantUs)
		}
		if got := attackedSquares(p, planes, attackPlane+2, ours); !equalSets(got, wantThem) {
			t.Errorf("after %v: own pieces the opponent attacks: %v, want %v", moves, got, wantThem)
		}
		if got := attackedSquares(p, planes, attackPlane+1, theirs); len(got) != 0 {
			t.Errorf("after %v: enemy pieces attacked twice: %v, want none", moves, got)
		}
		// Each side attacks its own a3 (Black: a8) twice, with the chariot
		// on a1 (or a2) and the horse on b1.
		own, opp := "a3", "a8"
		if us == game.Second {
			own, opp = opp, own
		}
		for plane, name := range map[int]string{attackPlane + 1: own, attackPlane + 3: opp} {
			at := func(sq int) bool { return squareName(sq, false) == name }
			if got := attackedSquares(p, planes, plane, at); !got[name] {
				t.Errorf("after %v: plane %d leaves out %s, attacked twice", moves, plane, name)
			}
		}
	}
}

func equalSets(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// On positions of random games, the attack planes agree with the
// attackers counted square by square (attackersTo, the chase rule's
// count), and every capture among the legal moves lands on a square the
// side to move attacks.
func TestAttackPlanesCount(t *testing.T) {
	planes := make([]float32, numPlanes*NumSquares)
	for _, gp := range randomPositions(5, 12) {
		p := gp.(*Position)
		Encoder{}.Encode(p, planes)
		occ := p.occupied()
		for i, c := range [2]game.Color{p.side, p.side.Other()} {
			for sq := 0; sq < NumSquares; sq++ {
				n := p.attackersTo(sq, occ, uint8(c)).count()
				once := planes[(attackPlane+2*i)*NumSquares+p.cell(sq)]
				twice := planes[(attackPlane+2*i+1)*NumSquares+p.cell(sq)]
				if (once == 1) != (n >= 1) || (twice == 1) != (n >= 2) {
					t.Fatalf("%s: %s attacked by %d pieces of side %d, planes say %v (once) and %v (twice)",
						p, squareName(sq, false), n, c, once, twice)
				}
			}
		}
		for _, m := range p.GenerateMoves(nil) {
			if to := To(m); p.board[to] != 0 && planes[attackPlane*NumSquares+p.cell(to)] != 1 {
				t.Fatalf("%s: the capture %s lands on a square the attack plane leaves out", p, p.FormatMove(m))
			}
		}
	}
}

// Encoding runs for every position the network sees: it must not
// allocate.
func TestEncodeAllocates(t *testing.T) {
	p := randomPositions(6, 1)[0]
	planes := make([]float32, (numPlanes+2)*NumSquares)
	for _, enc := range []Encoder{{}, ThreatEncoder, FromToEncoder} {
		if n := testing.AllocsPerRun(100, func() { enc.Encode(p, planes) }); n != 0 {
			t.Errorf("encoder %d: Encode allocates %v times a call", enc.Version(), n)
		}
	}
}

// threatAt reads a threat plane's value on sq back into SEE units.
func threatAt(p *Position, planes []float32, plane, sq int) int {
	return int(math.Round(float64(planes[(threatPlane+plane)*NumSquares+p.cell(sq)]) * threatScale))
}

// Worked out by hand: a chariot facing an undefended soldier marks 100 on
// the soldier for the side that can take it, from either side's view; a
// horse defending the soldier makes the exchange lose (100 - 900).
func TestThreatPlanesPositions(t *testing.T) {
	const e7 = 6*Files + 4 // rank 7 (row 6 from Red's side), file e
	for _, tc := range []struct {
		fen         string
		ours, their int // the soldier on e7 in the side to move's plane or the other
	}{
		{"4k4/9/9/4p4/9/9/4R4/9/9/4K4 w - - 0 1", 0, 100},
		{"4k4/9/9/4p4/9/9/4R4/9/9/4K4 b - - 0 1", 100, 0},
		{"4k4/9/9/4p4/9/3n5/4R4/9/9/4K4 w - - 0 1", 0, 0},
	} {
		p := mustParse(t, tc.fen)
		planes := make([]float32, (numPlanes+2)*NumSquares)
		ThreatEncoder.Encode(p, planes)
		if got := [2]int{threatAt(p, planes, 0, e7), threatAt(p, planes, 1, e7)}; got != [2]int{tc.ours, tc.their} {
			t.Errorf("%s: soldier's threat (side to move's plane, other's) %v, want %v", tc.fen, got, [2]int{tc.ours, tc.their})
		}
		nonzero := 0
		for _, v := range planes[threatPlane*NumSquares:] {
			if v != 0 {
				nonzero++
			}
		}
		if want := min(1, tc.ours+tc.their); nonzero != want {
			t.Errorf("%s: %d marked cells, want %d", tc.fen, nonzero, want)
		}
	}
}

// On many positions each piece's threat value is one of the gains the
// brute-force exchange over the move generator finds (exchangeValues,
// SEE's own check) for the other side starting on its square, capped at
// a chariot; version 3 keeps version 2's planes as they are.
func TestThreatPlanesExchange(t *testing.T) {
	c, _, _ := ThreatEncoder.Shape()
	planes, old := make([]float32, c*NumSquares), make([]float32, numPlanes*NumSquares)
	marked := 0
	for _, p := range randomMovePositions(t) {
		ThreatEncoder.Encode(p, planes)
		Encoder{}.Encode(p, old)
		if !slices.Equal(planes[:len(old)], old) {
			t.Fatalf("%s: version 3 changes version 2's planes", p)
		}
		for sq := 0; sq < NumSquares; sq++ {
			v := p.board[sq]
			if v == 0 {
				continue
			}
			owner := game.Color(valColor[v])
			plane := 0
			if owner != p.side {
				plane = 1
			}
			side := p.side
			p.side = owner.Other() // the exchange is the other side's to start
			want := exchangeValues(p, sq)
			p.side = side
			got := threatAt(p, planes, plane, sq)
			if !slices.ContainsFunc(want, func(w int) bool { return min(w, threatScale) == got }) {
				t.Fatalf("%s: threat on %s is %d, brute force %v", p, squareName(sq, false), got, want)
			}
			if got > 0 {
				marked++
			}
		}
	}
	if marked < 20 {
		t.Fatalf("only %d pieces en prise in the sample", marked)
	}
}
