package tablebase

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
)

// subTables are the materials CI builds: lions alone, and lions with one
// to three other pieces, two of a kind included.
var subTables = []Material{{0, 0, 0}, {1, 0, 0}, {0, 1, 1}, {2, 0, 0}, {1, 1, 0}}

func build(t testing.TB, mat Material) *Table {
	t.Helper()
	var log bytes.Buffer
	tb, err := Build(context.Background(), mat, Options{Workers: 2, Progress: &log})
	if err != nil {
		t.Fatalf("%v: %v\n%s", mat, err, log.String())
	}
	return tb
}

// fullTable opens the table named by TABULA_LION_TB or skips.
func fullTable(t *testing.T) *Table {
	t.Helper()
	path := os.Getenv(EnvFile)
	if path == "" {
		t.Skipf("%s is not set: the full table is needed; %s", EnvFile, BuildHint)
	}
	tb, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	if tb.Material() != Full {
		t.Fatalf("%s holds material %v, not the full game", path, tb.Material())
	}
	return tb
}

// checkConsistent checks one position's code against its children's:
// a win in d has a move to a loss in d-1 and none to a quicker loss; a
// loss in d has only moves to wins, the slowest in d-1; a draw has no move
// to a loss and one to a draw.
func checkConsistent(tb *Table, p *pos, kids *[maxChildren]pos) error {
	res, d := decodeCode(tb.code(p))
	n, takes := p.children(kids)
	_, theirs := p.lions()
	if takes || p.attacked(0, theirs) {
		if res != game.Win || d != 1 {
			return fmt.Errorf("can take the lion, table says %v %d", res, d)
		}
		return nil
	}
	minLoss, maxWin, draws, wins := 1000, -1, 0, 0
	for _, c := range kids[:n] {
		cr, cd := decodeCode(tb.code(&c))
		switch cr {
		case game.Loss:
			minLoss = min(minLoss, cd)
		case game.Win:
			wins++
			maxWin = max(maxWin, cd)
		default:
			draws++
		}
	}
	switch {
	case res == game.Win && d == 0:
		return fmt.Errorf("stored win in 0")
	case res == game.Win:
		if minLoss != d-1 {
			return fmt.Errorf("win in %d, quickest move to a loss %d", d, minLoss)
		}
	case res == game.Loss:
		if wins != n || n > 0 && maxWin != d-1 || n == 0 && d != 0 {
			return fmt.Errorf("loss in %d: %d of %d moves to wins, slowest %d", d, wins, n, maxWin)
		}
	default:
		if minLoss != 1000 || draws == 0 {
			return fmt.Errorf("draw with a move to a loss in %d or no move to a draw (%d)", minLoss, draws)
		}
	}
	return nil
}

// TestSubTablesConsistent checks every entry of the sub-tables.
func TestSubTablesConsistent(t *testing.T) {
	var kids [maxChildren]pos
	for _, mat := range subTables {
		tb := build(t, mat)
		for i := range tb.ix.size {
			p, _, _ := tb.ix.position(i)
			if err := checkConsistent(tb, &p, &kids); err != nil {
				t.Fatalf("%v: %s: %v", mat, p.text(), err)
			}
		}
		s := tb.Stats()
		if s.Positions != tb.ix.allPositions() {
			t.Errorf("%v: stats count %d positions, want %d", mat, s.Positions, tb.ix.allPositions())
		}
		t.Logf("%v: %d entries, %d positions: %d wins, %d losses, %d draws; longest win %d, loss %d",
			mat, s.Entries, s.Positions, s.Wins, s.Losses, s.Draws, s.LongestWin, s.LongestLoss)
	}
}

// lionKey is a position's text without the ply number.
func lionKey(lp *lion.Position) string {
	f := strings.Fields(lp.String())
	return f[0] + " " + f[1] + " " + f[2]
}

func parseKey(t testing.TB, key string) *lion.Position {
	ply := " 1"
	if strings.Fields(key)[1] == "b" {
		ply = " 2"
	}
	lp, err := lion.Parse(key+ply, safe)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return lp
}

// solveWithLion solves a material with package lion's rules alone: the
// game graph from every position with the first player to move, by
// forward passes (a position is a win in d if a move reaches a loss in
// d-1, a loss in d if every move reaches a win, the slowest in d-1), the
// rest drawn. It shares no code with the builder.
func solveWithLion(t *testing.T, mat Material) (keys []string, res []Result) {
	ids := map[string]int32{}
	var edges [][]int32
	var status []game.Status
	var queue []string
	add := func(k string) int32 {
		if id, ok := ids[k]; ok {
			return id
		}
		id := int32(len(keys))
		ids[k] = id
		keys = append(keys, k)
		queue = append(queue, k)
		return id
	}
	for p := range enumerate(mat) {
		lp, err := lion.Parse(p.text(), safe)
		if err != nil {
			t.Fatalf("%s: %v", p.text(), err)
		}
		add(lionKey(lp))
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		lp := parseKey(t, k)
		st := lp.Status()
		var out []int32
		if !st.Over() {
			for _, m := range lp.GenerateMoves(nil) {
				lp.Make(m)
				out = append(out, add(lionKey(lp)))
				lp.Unmake()
			}
		}
		edges = append(edges, out)
		status = append(status, st)
	}
	res = make([]Result, len(keys))
	known := make([]bool, len(keys))
	for i, st := range status {
		switch {
		case st.Over():
			res[i], known[i] = Result{Outcome: st.Result}, true
		case len(edges[i]) == 0:
			res[i], known[i] = Result{Outcome: game.Loss, Plies: 0}, true
		}
	}
	for d := 1; ; d++ {
		var found []int
		for i := range keys {
			if known[i] {
				continue
			}
			all := true
			for _, j := range edges[i] {
				if known[j] && res[j].Outcome == game.Loss && res[j].Plies == d-1 {
					res[i] = Result{Outcome: game.Win, Plies: d}
					found = append(found, i)
					all = false
					break
				}
				if !known[j] || res[j].Outcome != game.Win {
					all = false
				}
			}
			if all {
				res[i] = Result{Outcome: game.Loss, Plies: d}
				found = append(found, i)
			}
		}
		for _, i := range found {
			known[i] = true
		}
		if len(found) == 0 && d > 2 {
			break
		}
	}
	for i := range keys {
		if !known[i] {
			res[i] = Result{Outcome: game.Draw}
		}
	}
	return keys, res
}

// TestSubTablesMatchIndependentSolve compares every position of two
// sub-games, either side to move, with solveWithLion.
func TestSubTablesMatchIndependentSolve(t *testing.T) {
	for _, mat := range []Material{{2, 0, 0}, {1, 1, 0}} {
		tb := build(t, mat)
		keys, want := solveWithLion(t, mat)
		classes := map[game.Result]int{}
		for i, k := range keys {
			got, err := tb.Probe(parseKey(t, k))
			if err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			if got != want[i] {
				t.Fatalf("%v: %s: table %v, solved with lion %v", mat, k, got, want[i])
			}
			classes[got.Outcome]++
		}
		t.Logf("%v: %d positions agree (%d wins, %d losses, %d draws)", mat, len(keys),
			classes[game.Win], classes[game.Loss], classes[game.Draw])
	}
}

// searchLion is a plain alpha-beta over package lion's rules: scores are
// mate - plies for a win found within depth, the negation for a loss, 0
// when neither side forces the end within depth.
func searchLion(p *lion.Position, depth, ply, alpha, beta int) int {
	const mate = 1000
	if st := p.Status(); st.Over() {
		switch st.Result {
		case game.Win:
			return mate - ply
		case game.Loss:
			return -(mate - ply)
		}
		return 0
	}
	var buf [maxChildren]game.Move
	moves := p.GenerateMoves(buf[:0])
	if len(moves) == 0 {
		return -(mate - ply)
	}
	if depth == 0 {
		return 0
	}
	best := -mate
	for _, m := range moves {
		p.Make(m)
		v := -searchLion(p, depth-1, ply+1, -beta, -max(alpha, best))
		p.Unmake()
		if v > best {
			best = v
			if best >= beta {
				break
			}
		}
	}
	return best
}

// searchResult turns a search score at the root into a Result; ok is false
// when the search found no forced end.
func searchResult(score int) (Result, bool) {
	const mate = 1000
	switch {
	case score > 0:
		return Result{Outcome: game.Win, Plies: mate - score}, true
	case score < 0:
		return Result{Outcome: game.Loss, Plies: mate + score}, true
	}
	return Result{}, false
}

// checkAgainstSearch: a table result within depth plies is the search's;
// anything longer (or a draw) is no forced end within depth to the search.
func checkAgainstSearch(t *testing.T, tb *Table, lp *lion.Position, depth int) bool {
	t.Helper()
	got, err := tb.Probe(lp)
	if err != nil {
		t.Fatal(err)
	}
	sr, ok := searchResult(searchLion(lp, depth, 0, -1001, 1001))
	short := got.Outcome != game.Draw && got.Plies <= depth
	if short != ok || ok && sr != got {
		t.Fatalf("%s: table %v, search to %d plies %v (found %v)", lp, got, depth, sr, ok)
	}
	return short
}

// TestSubTablesAgreeWithSearch samples positions of a sub-table.
func TestSubTablesAgreeWithSearch(t *testing.T) {
	mat := Material{1, 1, 0}
	tb := build(t, mat)
	rng := rand.New(rand.NewPCG(7, 8))
	short := 0
	for range 2000 {
		p, _, _ := tb.ix.position(rng.Uint64N(tb.ix.size))
		lp, err := lion.Parse(p.text(), safe)
		if err != nil {
			t.Fatal(err)
		}
		if checkAgainstSearch(t, tb, lp, 5) {
			short++
		}
	}
	t.Logf("%v: 2000 positions agree with a 5-ply search, %d of them decided within it", mat, short)
}

// TestWriteOpen: a written table opens, verifies and answers as built; a
// damaged one fails Verify.
func TestWriteOpen(t *testing.T) {
	tb := build(t, Material{1, 1, 0})
	path := filepath.Join(t.TempDir(), "sub.tb")
	if err := tb.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if err := got.Verify(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.data, tb.data) || got.Stats().Wins != tb.Stats().Wins {
		t.Fatal("the opened table differs from the built one")
	}
	got.Close()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-1] ^= 1
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	bad, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if bad.Verify() == nil {
		t.Fatal("Verify accepts a damaged table")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.tb")); err == nil || !strings.Contains(err.Error(), "liontb") {
		t.Fatalf("opening a missing table: %v, want the build hint", err)
	}
}

// TestBestMovesKeepTheValue: on a sub-table, the optimal moves reach the
// value one ply on, and playing them from a won position wins in exactly
// the promised plies.
func TestBestMovesKeepTheValue(t *testing.T) {
	tb := build(t, Material{1, 1, 0})
	rng := rand.New(rand.NewPCG(9, 10))
	for range 300 {
		p, _, _ := tb.ix.position(rng.Uint64N(tb.ix.size))
		lp, err := lion.Parse(p.text(), safe)
		if err != nil {
			t.Fatal(err)
		}
		root, _ := tb.Probe(lp)
		if root.Outcome != game.Win {
			continue
		}
		for ply := 0; ; ply++ {
			if st := lp.Status(); st.Over() {
				want := game.Win
				if ply%2 == 1 {
					want = game.Loss
				}
				if st.Result != want || ply != root.Plies {
					t.Fatalf("%s: %v, game ended after %d plies with %v for the side to move", p.text(), root, ply, st.Result)
				}
				break
			}
			moves, r, err := tb.BestMoves(lp, nil)
			if err != nil || len(moves) == 0 {
				t.Fatalf("%s after %d plies: %v moves, %v, %v", p.text(), ply, len(moves), r, err)
			}
			lp.Make(moves[rng.IntN(len(moves))])
		}
	}
}

// TestInnerLoopsDoNotAllocate: decoding an entry, listing its successors
// and predecessors and indexing them allocate nothing.
func TestInnerLoopsDoNotAllocate(t *testing.T) {
	ix, err := newIndexer(Full)
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{ix: ix}
	ws := newWorkspace()
	i := uint64(123456789)
	allocs := testing.AllocsPerRun(100, func() {
		p, _, _ := ix.position(i)
		b.successors(ws, &p, ix.weight(i) == 2)
		b.predecessors(ws, &p, ix.weight(i) == 2)
		i += 7919
	})
	if allocs != 0 {
		t.Errorf("%v allocations per entry", allocs)
	}
}

// TestBuildIsDeterministic: the table does not depend on how many workers
// share the levels.
func TestBuildIsDeterministic(t *testing.T) {
	mat := Material{1, 1, 1}
	one, err := Build(context.Background(), mat, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	three, err := Build(context.Background(), mat, Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(one.data, three.data) || one.hdr.counts != three.hdr.counts {
		t.Fatal("one and three workers build different tables")
	}
}

// TestProbeEdges: a captured lion is a loss in 0, a try a win or loss in
// 0 (or a win in 1 when the lion can be taken), positions of another material or the immediate rule are refused, and
// Moves classes every move.
func TestProbeEdges(t *testing.T) {
	tb := build(t, Material{1, 0, 0})
	for text, want := range map[string]Result{
		"1L1/3/2l/C2 b - 2":  {Outcome: game.Loss, Plies: 0}, // their lion on its far rank, unattacked
		"1L1/3/2l/C2 w - 1":  {Outcome: game.Win, Plies: 0},  // ours survived a reply there
		"1Ll/3/3/C2 b - 2":   {Outcome: game.Win, Plies: 1},  // attacked: take it
		"3/1l1/1L1/C2 w - 1": {Outcome: game.Win, Plies: 1},  // lions side by side
	} {
		lp, err := lion.Parse(text, safe)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		got, err := tb.Probe(lp)
		if err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", text, got, err, want)
		}
	}
	lp, err := lion.Parse("2l/3/3/C2 w - 1", safe) // our lion has just been taken
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tb.Probe(lp); err != nil || got != (Result{Outcome: game.Loss, Plies: 0}) {
		t.Errorf("%s: %v %v, want a loss in 0", lp, got, err)
	}
	start, _ := lion.New(safe)
	if _, err := tb.Probe(start); err != ErrMaterial {
		t.Errorf("start position on a one-chick table: %v, want ErrMaterial", err)
	}
	imm, _ := lion.Parse("2l/3/1L1/C2 w - 1", game.Options{"TryRule": "immediate"})
	if _, err := tb.Probe(imm); err == nil {
		t.Error("a TryRule=immediate position is answered")
	}
	p, _ := lion.Parse("2l/3/1L1/C2 w - 1", safe)
	moves, root, err := tb.Moves(p, nil)
	if err != nil || len(moves) != len(p.GenerateMoves(nil)) {
		t.Fatalf("Moves: %d moves, %v", len(moves), err)
	}
	best, _, _ := tb.BestMoves(p, nil)
	n := 0
	for _, m := range moves {
		if m.Optimal(root) {
			n++
			if !m.Keeps(root) {
				t.Errorf("%v optimal but not keeping %v", m, root)
			}
		}
	}
	if n != len(best) || n == 0 {
		t.Errorf("%d optimal moves, BestMoves gives %d", n, len(best))
	}
}
