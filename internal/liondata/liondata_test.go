package liondata

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
)

// committedSets are the embedded sets with the options that made them.
var committedSets = []struct {
	name string
	open func(int) ([]Line, error)
	text *string
	gen  func() GenOptions
}{
	{Name, Open, &positions, func() GenOptions { return DefaultGen }},
	{HeldOutName, OpenHeldOut, &heldOut, HeldOutGen},
}

// TestSetShape checks the committed sets without the table: each parses,
// holds no position twice and none decided at once, mixes every source,
// phase and class, and its values and move lists hang together; the
// held-out set holds none of the test set's positions.
func TestSetShape(t *testing.T) {
	for _, set := range committedSets {
		t.Run(set.name, func(t *testing.T) {
			lines, err := set.open(0)
			if err != nil {
				t.Fatal(err)
			}
			checkShape(t, lines)
		})
	}
	lines, _ := Open(0)
	held, _ := OpenHeldOut(0)
	in := map[string]bool{}
	for _, l := range lines {
		in[board(l.Text)] = true
	}
	for _, l := range held {
		if in[board(l.Text)] {
			t.Errorf("%s is in both %s and %s", l.Text, Name, HeldOutName)
		}
	}
}

func checkShape(t *testing.T, lines []Line) {
	if len(lines) < 3000 {
		t.Fatalf("%d positions, want a few thousand", len(lines))
	}
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[board(l.Text)] {
			t.Errorf("%s twice", l.Text)
		}
		seen[board(l.Text)] = true
		v := l.Value
		switch {
		case v.Outcome == game.Win && (v.Plies < 3 || v.Plies%2 == 0):
			t.Errorf("%s: %v (wins in 1 are left out; wins take an odd number of plies)", l.Text, v)
		case v.Outcome == game.Loss && (v.Plies < 2 || v.Plies%2 == 1):
			t.Errorf("%s: %v (a loss takes an even number of plies and the game is not over)", l.Text, v)
		case v.Outcome == game.Loss && (!l.AllKept || len(l.Kept) > 0):
			t.Errorf("%s: a loss lists its kept moves", l.Text)
		case v.Outcome == game.Draw && len(l.Kept) > 0:
			t.Errorf("%s: a draw's only outcome-keeping moves are its optimal ones", l.Text)
		}
		p, _ := l.Position()
		if n := len(p.GenerateMoves(nil)); len(l.Optimal)+len(l.Kept) > n {
			t.Errorf("%s: %d moves listed, %d legal", l.Text, len(l.Optimal)+len(l.Kept), n)
		}
		for _, m := range l.Kept {
			if o, k := l.Judge(m); o || !k {
				t.Errorf("%s: kept move %s judged optimal %v, kept %v", l.Text, m, o, k)
			}
		}
	}
	n := Count(lines)
	for _, src := range Sources {
		for _, ph := range Phases {
			for _, c := range Classes {
				if n[src+"/"+ph+"/"+c] < 20 {
					t.Errorf("%s/%s/%s: %d positions", src, ph, c, n[src+"/"+ph+"/"+c])
				}
			}
		}
	}
}

// TestShortValues checks the set's short wins and losses against a plain
// search over game/lion's own rules (no table code): a win in 3 has a move
// after which every reply allows a lion capture or try, a loss in 2 has
// only moves after which the opponent ends the game at once, and the
// optimal moves of a win in 3 are exactly those moves.
func TestShortValues(t *testing.T) {
	lines, err := Open(0)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, l := range lines {
		v := l.Value
		if !(v.Outcome == game.Win && v.Plies == 3) && !(v.Outcome == game.Loss && v.Plies == 2) {
			continue
		}
		p, _ := l.Position()
		if endsIn1(p) {
			t.Errorf("%s: %v, but the side to move ends the game at once", l.Text, v)
			continue
		}
		checked++
		if v.Outcome == game.Loss {
			if !lostIn2(p) {
				t.Errorf("%s: %v, but a move escapes a loss in 2", l.Text, v)
			}
			continue
		}
		var wins []string
		for _, m := range p.GenerateMoves(nil) {
			p.Make(m)
			if lostIn2(p) {
				wins = append(wins, lion.FormatMove(m))
			}
			p.Unmake()
		}
		if strings.Join(wins, " ") != strings.Join(l.Optimal, " ") {
			t.Errorf("%s: wins in 3 by search %v, the set says %v", l.Text, wins, l.Optimal)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d short values checked", checked)
	}
}

// endsIn1 reports whether the side to move has a move that wins at once:
// it takes the lion, or its lion reaches the far rank and the opponent
// cannot take it (the opponent to move has then lost).
func endsIn1(p *lion.Position) bool {
	for _, m := range p.GenerateMoves(nil) {
		p.Make(m)
		won := wonForMover(p)
		p.Unmake()
		if won {
			return true
		}
	}
	return false
}

// wonForMover reports whether the side that just moved has won, now or by
// a try no reply can stop.
func wonForMover(p *lion.Position) bool {
	if st := p.Status(); st.Over() {
		return st.Result == game.Loss
	}
	// A lion on the far rank that survives every reply wins: each reply
	// leaves its owner to move with the game won.
	for _, r := range p.GenerateMoves(nil) {
		p.Make(r)
		st := p.Status()
		p.Unmake()
		if !st.Over() || st.Result != game.Win {
			return false
		}
	}
	return true
}

// lostIn2 reports whether every move of the side to move lets the
// opponent win at once, or leaves it a game already won (and the game is
// not over).
func lostIn2(p *lion.Position) bool {
	if p.Status().Over() {
		return false
	}
	for _, m := range p.GenerateMoves(nil) {
		p.Make(m)
		st := p.Status()
		lost := st.Result == game.Win || !st.Over() && endsIn1(p)
		p.Unmake()
		if !lost {
			return false
		}
	}
	return true
}

// TestSetAgainstTable needs the full table (TABULA_LION_TB): every line is
// the table's value and moves, and Generate with the committed options
// remakes the file byte for byte.
func TestSetAgainstTable(t *testing.T) {
	path := os.Getenv(tablebase.EnvFile)
	if path == "" {
		t.Skip("needs the full Lion tablebase in $" + tablebase.EnvFile + ": " + tablebase.BuildHint)
	}
	tb, err := tablebase.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	for _, set := range committedSets {
		lines, err := set.open(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			p, _ := l.Position()
			want, ok, err := sample(tb, p, l.Source)
			if err != nil || !ok || want.String() != l.String() {
				t.Errorf("%s: set:   %s\ntable: %s (%v)", set.name, l, want, err)
			}
		}
		o := set.gen()
		again, err := Generate(context.Background(), tb, o)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Write(&b, Header(o, len(again)), again); err != nil {
			t.Fatal(err)
		}
		if b.String() != *set.text {
			t.Errorf("Generate does not remake %s (%d lines, the file %d)", set.name, len(again), len(lines))
		}
	}
}
