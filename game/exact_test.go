package game

import "testing"

// TestExact: Before turns the outcome and adds the move's ply, twice gives
// the same outcome two plies on, and Rank orders as a player prefers.
func TestExact(t *testing.T) {
	for _, e := range []Exact{{Win, 3}, {Loss, 0}, {Draw, 0}} {
		b := e.Before()
		if e.Outcome != Draw && (b.Outcome == e.Outcome || b.Plies != e.Plies+1) {
			t.Errorf("%v before: %v", e, b)
		}
		if bb := b.Before(); bb.Outcome != e.Outcome || (e.Outcome != Draw && bb.Plies != e.Plies+2) {
			t.Errorf("%v twice before: %v", e, bb)
		}
	}
	order := []Exact{{Win, 1}, {Win, 9}, {Draw, 0}, {Loss, 30}, {Loss, 2}, {Loss, 0}}
	for i := 1; i < len(order); i++ {
		if order[i-1].Rank() <= order[i].Rank() {
			t.Errorf("%v ranks at most %v", order[i-1], order[i])
		}
	}
	if s := (Exact{Loss, 12}).String(); s != "loss in 12" {
		t.Errorf("String: %q", s)
	}
}
