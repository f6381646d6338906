package alphabeta

import (
	"testing"
	"time"
)

// softStop: the later an iteration may start, the less settled the best
// move; never past the budget, never before a quarter of it.
func TestSoftStop(t *testing.T) {
	soft := time.Second
	prev := soft
	for stable := range 6 {
		got := softStop(soft, stable)
		if got > prev || got > soft || got < soft/4 {
			t.Errorf("stable %d: %v (previous %v)", stable, got, prev)
		}
		prev = got
	}
	if softStop(soft, 0) <= softStop(soft, 5) {
		t.Error("a changing best move gets no more time than a settled one")
	}
}
