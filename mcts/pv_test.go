package mcts

import (
	"context"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/game/lion"
)

// TestPV: the principal variation starts with Best, is a legal line,
// follows the most visited child at every node below the root, and
// stops at an unvisited node or at the bound.
func TestPV(t *testing.T) {
	lp, _ := lion.New(nil)
	for _, gumbel := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Gumbel = gumbel
		for _, start := range []game.Position{connect4.New(), lp} {
			for k, p := range gametest.RandomPositions(start, 6, 20, 5) {
				if p.Status().Over() {
					continue
				}
				tr := NewTree(cfg, Uniform{}, p, rng(uint64(k)))
				res, err := tr.Search(context.Background(), 400, false)
				if err != nil {
					t.Fatal(err)
				}
				checkPV(t, tr, res, p)
				if pv := tr.PV(2); len(pv) > 2 || !slices.Equal(pv, res.PV[:len(pv)]) {
					t.Fatalf("PV(2) = %v, full %v", pv, res.PV)
				}
				if pv := tr.PV(0); pv != nil {
					t.Fatalf("PV(0) = %v", pv)
				}
			}
		}
	}
}

// checkPV checks res.PV against the tree it came from.
func checkPV(t *testing.T, tr *Tree, res Result, p game.Position) {
	t.Helper()
	if len(res.PV) == 0 || res.PV[0] != res.Best || len(res.PV) > MaxPV {
		t.Fatalf("%s: PV %v, best %v", p, res.PV, res.Best)
	}
	if !slices.Equal(res.PV, tr.PV(MaxPV)) {
		t.Fatalf("%s: Result.PV %v differs from Tree.PV %v", p, res.PV, tr.PV(MaxPV))
	}
	q := p.Clone()
	n := tr.root
	for i, m := range res.PV {
		if !game.IsLegal(q, m) {
			t.Fatalf("%s: PV move %d (%s) is illegal", p, i, q.FormatMove(m))
		}
		var c *node
		for j := range n.children {
			if n.children[j].move == m {
				c = &n.children[j]
			}
		}
		if c == nil {
			t.Fatalf("%s: PV move %d is not a child", p, i)
		}
		if i > 0 {
			for j := range n.children {
				o := &n.children[j]
				if o.visits > c.visits && o.proven != provWin && c.proven != provLoss {
					t.Fatalf("%s: PV move %d has %d visits, a sibling %d", p, i, c.visits, o.visits)
				}
			}
			if c.visits == 0 {
				t.Fatalf("%s: PV move %d was never visited", p, i)
			}
		}
		q.Make(m)
		n = c
	}
	// The line ends where the tree does, unless the bound cut it; a move
	// proven to lose does not continue it.
	if len(res.PV) < MaxPV {
		for j := range n.children {
			if n.children[j].visits > 0 && n.children[j].proven != provWin {
				t.Fatalf("%s: PV %v stops above a visited child", p, res.PV)
			}
		}
	}
}

// TestPVDeepensAndAllocatesOnce: more simulations give a longer line, and
// PV allocates only the slice it returns.
func TestPVDeepensAndAllocatesOnce(t *testing.T) {
	cfg := DefaultConfig()
	tr := NewTree(cfg, Uniform{}, connect4.New(), rng(3))
	r1, _ := tr.Search(context.Background(), 10, false)
	r2, _ := tr.Search(context.Background(), 2000, false)
	if len(r2.PV) <= len(r1.PV) || len(r2.PV) < 3 {
		t.Fatalf("PV after 10 simulations %d plies, after 2010 %d", len(r1.PV), len(r2.PV))
	}
	if a := testing.AllocsPerRun(20, func() { tr.PV(MaxPV) }); a != 1 {
		t.Fatalf("PV allocates %v times", a)
	}
}
