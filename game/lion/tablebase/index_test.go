package tablebase

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
)

var safe = game.Options{"TryRule": "safe"}

// TestTanakaCount: all placements of the full material with the side to
// move fixed number Tanaka's 1,567,925,964 (his Table 1, an upper bound
// counting positions regardless of reachability).
func TestTanakaCount(t *testing.T) {
	ix, err := newIndexer(Full)
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.allPositions(); got != 1_567_925_964 {
		t.Errorf("positions %d, want Tanaka's 1567925964", got)
	}
	t.Logf("%d lion pairs stored, %d entries per pair, %d entries", len(ix.pairs), ix.perPair, ix.size)
}

// enumerate lists every position of a material with the side to move
// fixed, independently of the indexer: each lion on any square, each other
// piece on any free square for either side (chicks promoted or not) or in
// either hand, identical pieces folded by a set.
func enumerate(mat Material) map[pos]struct{} {
	var kinds []int
	for k := range nkinds {
		for range mat.count(k) {
			kinds = append(kinds, k)
		}
	}
	out := map[pos]struct{}{}
	var place func(p pos, i int)
	place = func(p pos, i int) {
		if i == len(kinds) {
			out[p] = struct{}{}
			return
		}
		k := kinds[i]
		for o := range 2 {
			q := p
			q.hand[o][k]++
			place(q, i+1)
			for s := range nsq {
				if _, _, ok := p.at(s); ok {
					continue
				}
				q := p
				q.put(s, k, o)
				place(q, i+1)
				if k == chick {
					q = p
					q.put(s, hen, o)
					place(q, i+1)
				}
			}
		}
	}
	for a := range nsq {
		for b := range nsq {
			if a != b {
				var p pos
				p.put(a, lionT, 0)
				p.put(b, lionT, 1)
				place(p, 0)
			}
		}
	}
	return out
}

// TestIndexIsABijection: on small materials the brute-force enumeration
// counts allPositions, every position is either decided by trivial or maps
// to an entry, entries are hit exactly weight times (a position and its
// mirror image), and decoding an entry gives back a position mapping to it.
func TestIndexIsABijection(t *testing.T) {
	for _, mat := range []Material{{0, 0, 0}, {2, 0, 0}, {1, 1, 1}, {0, 2, 1}} {
		ix, err := newIndexer(mat)
		if err != nil {
			t.Fatal(err)
		}
		all := enumerate(mat)
		if uint64(len(all)) != ix.allPositions() {
			t.Errorf("%v: enumerated %d positions, indexer counts %d", mat, len(all), ix.allPositions())
		}
		hits := make([]uint8, ix.size)
		for p := range all {
			ours, theirs := p.lions()
			if _, ok := p.trivial(ours, theirs); ok {
				continue
			}
			hits[ix.index(&p, ours, theirs)]++
		}
		for i := range ix.size {
			if uint64(hits[i]) != ix.weight(i) {
				p, _, _ := ix.position(i)
				t.Fatalf("%v: entry %d (%s) hit %d times, weight %d", mat, i, p.text(), hits[i], ix.weight(i))
			}
			p, o, th := ix.position(i)
			if _, ok := all[p]; !ok {
				t.Fatalf("%v: entry %d decodes to %s, not a position", mat, i, p.text())
			}
			if j := ix.index(&p, o, th); j != i {
				t.Fatalf("%v: entry %d decodes to %s, which indexes to %d", mat, i, p.text(), j)
			}
		}
	}
}

// TestFullIndexRoundTrip samples the full material's entries.
func TestFullIndexRoundTrip(t *testing.T) {
	ix, err := newIndexer(Full)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		i := rng.Uint64N(ix.size)
		p, o, th := ix.position(i)
		if j := ix.index(&p, o, th); j != i {
			t.Fatalf("entry %d decodes to %s, which indexes to %d", i, p.text(), j)
		}
		m := p.mirror()
		if j := ix.index(&m, mirrorSq[o], mirrorSq[th]); (j == i) != (ix.weight(i) == 2 || m == p) {
			t.Fatalf("entry %d (%s, weight %d): mirror indexes to %d", i, p.text(), ix.weight(i), j)
		}
	}
}

// randomStored draws stored positions of the full material.
func randomStored(rng *rand.Rand, ix *indexer, n int) []pos {
	out := make([]pos, n)
	for i := range out {
		out[i], _, _ = ix.position(rng.Uint64N(ix.size))
	}
	return out
}

// normalisedChildren lists, through package lion, the positions after each
// move of p (normalised; a capture of the lion marks takes).
func normalisedChildren(t *testing.T, p *pos) (kids []pos, takes bool) {
	lp, err := lion.Parse(p.text(), safe)
	if err != nil {
		t.Fatalf("%s: %v", p.text(), err)
	}
	for _, m := range lp.GenerateMoves(nil) {
		lp.Make(m)
		c, ok := fromLion(lp)
		lp.Unmake()
		if !ok {
			takes = true
			continue
		}
		kids = append(kids, c)
	}
	return kids, takes
}

func less(a, b pos) int {
	for o := range 2 {
		if a.occ[o] != b.occ[o] {
			return int(a.occ[o]) - int(b.occ[o])
		}
	}
	for t := range a.kind {
		if a.kind[t] != b.kind[t] {
			return int(a.kind[t]) - int(b.kind[t])
		}
	}
	for o := range 2 {
		for k := range nkinds {
			if a.hand[o][k] != b.hand[o][k] {
				return int(a.hand[o][k]) - int(b.hand[o][k])
			}
		}
	}
	return 0
}

// TestChildrenMatchLion: the package's move generation gives the same
// positions as package lion's (read through text), and the same lion
// captures.
func TestChildrenMatchLion(t *testing.T) {
	ix, _ := newIndexer(Full)
	rng := rand.New(rand.NewPCG(3, 4))
	var buf [maxChildren]pos
	for _, p := range randomStored(rng, ix, 3000) {
		want, wantTakes := normalisedChildren(t, &p)
		n, takes := p.children(&buf)
		if takes != wantTakes {
			t.Fatalf("%s: takes the lion %v, lion says %v", p.text(), takes, wantTakes)
		}
		if takes {
			continue
		}
		got := slices.Clone(buf[:n])
		slices.SortFunc(got, less)
		slices.SortFunc(want, less)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %d children, lion gives %d", p.text(), len(got), len(want))
		}
	}
}

// TestParentsInvertChildren: every stored child of a position lists it
// among its parents, and every parent of a position has it as a child.
func TestParentsInvertChildren(t *testing.T) {
	ix, _ := newIndexer(Full)
	rng := rand.New(rand.NewPCG(5, 6))
	var kids [maxChildren]pos
	var par [maxParents]pos
	for _, p := range randomStored(rng, ix, 3000) {
		n, takes := p.children(&kids)
		if !takes {
			for _, c := range kids[:n] {
				co, ct := c.lions()
				if _, ok := c.trivial(co, ct); ok {
					continue
				}
				np := c.parents(&par)
				if !slices.Contains(par[:np], p) {
					t.Fatalf("%s: child %s does not list it as a parent", p.text(), c.text())
				}
			}
		}
		np := p.parents(&par)
		for _, q := range par[:np] {
			nk, takes := q.children(&kids)
			if takes {
				// q's move to p did not take the lion, but another
				// does: list q's moves through lion instead.
				ks, _ := normalisedChildren(t, &q)
				if !slices.Contains(ks, p) {
					t.Fatalf("%s: parent %s has no move to it", p.text(), q.text())
				}
				continue
			}
			if !slices.Contains(kids[:nk], p) {
				t.Fatalf("%s: parent %s has no move to it", p.text(), q.text())
			}
		}
	}
}
