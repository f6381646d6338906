package abzero

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/mcts"
)

// hashEval is a deterministic stand-in for a network: priors and value
// drawn from the position key, so that MCTS visit shares are uneven and
// differ from alpha-beta's preferences.
type hashEval struct{}

func mix(x uint64) uint64 {
	x ^= x >> 31
	x *= 0x7fb5d329728ea185
	x ^= x >> 27
	x *= 0x81dadef4bc2dd44d
	return x ^ x>>33
}

func (hashEval) Evaluate(p game.Position, moves []game.Move, priors []float32) (float32, error) {
	sum := float32(0)
	for i, m := range moves {
		priors[i] = 0.05 + float32(mix(p.Key()^uint64(m)*0x9e3779b97f4a7c15)%1000)/1000
		priors[i] *= priors[i] * priors[i]
		sum += priors[i]
	}
	for i := range moves {
		priors[i] /= sum
	}
	return float32(int(mix(p.Key())%601)-300) / 1000, nil
}

func positions(t *testing.T) []game.Position {
	t.Helper()
	var ps []game.Position
	for _, s := range []string{"4453", "44444", "3455432", "112233"} {
		p, err := connect4.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	x := xiangqi.New(xiangqi.DefaultRules)
	if err := game.Play(x, "h3e3", "h10g8", "h1g3", "i10h10"); err != nil {
		t.Fatal(err)
	}
	ps = append(ps, x)
	// A Xiangqi position with a capture to weigh against the policy.
	y := xiangqi.New(xiangqi.DefaultRules)
	if err := game.Play(y, "b3e3", "b8e8"); err != nil {
		t.Fatal(err)
	}
	return append(ps, y)
}

const testDepth, testSims = 3, 120

func config(m float64) Config {
	c := DefaultConfig(m, testDepth, testSims)
	c.AlphaBeta.HashMiB = 4
	return c
}

// independent runs the two searches on their own, as the mover should.
func independent(t *testing.T, p game.Position) (mcts.Result, alphabeta.Result) {
	t.Helper()
	c := config(0)
	tr := mcts.NewTree(c.MCTS, hashEval{}, p, rand.New(rand.NewPCG(1, 2)))
	mres, err := tr.Search(context.Background(), testSims, false)
	if err != nil {
		t.Fatal(err)
	}
	s, err := alphabeta.New(c.AlphaBeta)
	if err != nil {
		t.Fatal(err)
	}
	abres := s.Search(context.Background(), p.Clone().(alphabeta.Position), alphabeta.Limits{Depth: testDepth, MultiPV: true}, nil)
	return mres, abres
}

func decide(t *testing.T, p game.Position, m float64) Decision {
	t.Helper()
	return decideWith(t, p, m, Limits{})
}

func decideWith(t *testing.T, p game.Position, m float64, lim Limits) Decision {
	t.Helper()
	mv, err := New(config(m), hashEval{}, 7)
	if err != nil {
		t.Fatal(err)
	}
	before := p.String()
	d, err := mv.Move(context.Background(), p, lim)
	if err != nil {
		t.Fatal(err)
	}
	if p.String() != before {
		t.Fatalf("Move changed the position: %s -> %s", before, p)
	}
	return d
}

func TestMZeroPlaysAlphaBeta(t *testing.T) {
	for _, p := range positions(t) {
		_, ab := independent(t, p)
		d := decide(t, p, 0)
		if d.Move != ab.Move {
			t.Errorf("%s: m=0 plays %s, alpha-beta plays %s", p, p.FormatMove(d.Move), p.FormatMove(ab.Move))
		}
	}
}

func TestHugeMPlaysMCTS(t *testing.T) {
	for _, p := range positions(t) {
		mr, _ := independent(t, p)
		// InSearch too: a weight beyond alphabeta.MaxRootBonus takes
		// multi-PV.
		for _, lim := range []Limits{{}, {InSearch: true}} {
			if d := decideWith(t, p, 1e9, lim); d.Move != mr.Best {
				t.Errorf("%s: m=1e9 (%+v) plays %s, MCTS plays %s", p, lim, p.FormatMove(d.Move), p.FormatMove(mr.Best))
			}
		}
	}
}

// TestFormulaInBetween: for a range of m the mover's move is the argmax of
// pi*m + beta computed here from separately run searches, and somewhere
// the choice moves from alpha-beta's move to the MCTS move.
// The mover plays argmax pi_a * m + beta_a with pi the visit shares
// of the MCTS or, with Limits.Prior, the prior (either known before
// alpha-beta, which then bounds each move at its own bar),
// against the formula on independent searches with every score exact.
func TestFormulaInBetween(t *testing.T) {
	for _, prior := range []bool{false, true} {
		t.Run(map[bool]string{false: "visits", true: "prior"}[prior], func(t *testing.T) { testFormula(t, prior) })
	}
}

func testFormula(t *testing.T, prior bool) {
	ms := []float64{0, 0.05, 0.1, 0.2, 0.5, 1, 2, 3, 5, 8, 13, 20, 50, 100, 1000, 1e4, 1e6}
	switched := 0
	for _, p := range positions(t) {
		mr, ab := independent(t, p)
		pi := map[game.Move]float64{}
		total := 0
		for i, m := range mr.Moves {
			pi[m] = float64(mr.Visits[i])
			total += mr.Visits[i]
		}
		if total == 0 {
			// Proven at the root before any simulation (a win in one):
			// pi is the search's policy over the proven moves.
			for i, m := range mr.Moves {
				pi[m] = float64(mr.Policy[i])
			}
			total = 1
		}
		if prior {
			priors := make([]float32, len(mr.Moves))
			if _, err := (hashEval{}).Evaluate(p, mr.Moves, priors); err != nil {
				t.Fatal(err)
			}
			for i, m := range mr.Moves {
				pi[m] = float64(priors[i])
			}
			total, mr.Best = 1, mr.Moves[0]
			for _, m := range mr.Moves {
				if pi[m] > pi[mr.Best] {
					mr.Best = m
				}
			}
		}
		beta := map[game.Move]float64{}
		for _, rs := range ab.RootScores {
			b := float64(rs.Score) / 100
			if alphabeta.IsMate(rs.Score) {
				b = math.Copysign(DefaultMateValue-float64(alphabeta.Mate-abs(rs.Score))/100, float64(rs.Score))
			}
			beta[rs.Move] = b
		}
		if len(beta) != len(mr.Moves) {
			t.Fatalf("%s: %d root scores for %d moves", p, len(beta), len(mr.Moves))
		}
		seen := map[game.Move]bool{}
		for _, m := range ms {
			var want game.Move
			bestV := math.Inf(-1)
			for _, mv := range mr.Moves { // generation order; ties below
				v := pi[mv]/float64(total)*m + beta[mv]
				if v > bestV || (v == bestV && (mv == ab.Move || (mv == mr.Best && want != ab.Move))) {
					want, bestV = mv, v
				}
			}
			d := decideWith(t, p, m, Limits{Prior: prior})
			if d.Move != want {
				t.Errorf("%s m=%v: plays %s, formula says %s", p, m, p.FormatMove(d.Move), p.FormatMove(want))
			}
			// Moves that cannot win are only bounded (the multi-PV
			// margin, or each move's own bar with the prior): a bound at
			// least the score, below the best value with the move's pi.
			for _, c := range d.Candidates {
				betaOK := math.Abs(c.Beta-beta[c.Move]) <= 1e-9
				if c.Upper {
					betaOK = c.Beta >= beta[c.Move]-1e-9 && c.Pi*m+c.Beta < bestV
				}
				if math.Abs(c.V-(c.Pi*m+c.Beta)) > 1e-9 || !betaOK || math.Abs(c.Pi-pi[c.Move]/float64(total)) > 1e-9 {
					t.Errorf("%s m=%v: candidate %+v, want pi %v beta %v", p, m, c, pi[c.Move]/float64(total), beta[c.Move])
				}
			}
			seen[d.Move] = true
		}
		if ab.Move != mr.Best {
			if !seen[ab.Move] || !seen[mr.Best] {
				t.Errorf("%s: over m in %v the mover never played both alpha-beta's %s and MCTS's %s", p, ms, p.FormatMove(ab.Move), p.FormatMove(mr.Best))
			}
			switched++
		}
	}
	if switched == 0 {
		t.Fatal("no test position where alpha-beta and MCTS disagree: the test proves nothing")
	}
	t.Logf("%d positions where the two searches disagree", switched)
}

// With InSearch alpha-beta's own search maximises beta_a + pi_a * m: the
// move's blended value, from independent exact searches, is the best
// (to the rounding of the bonus to the searcher's centi-units), and over
// the weights the move leaves alpha-beta's somewhere.
func TestInSearchBlend(t *testing.T) {
	ms := []float64{0, 0.1, 0.5, 1, 2, 5, 10, 20}
	left := 0
	for _, p := range positions(t) {
		mr, ab := independent(t, p)
		pi := VisitShares(mr)
		beta := map[game.Move]float64{}
		for _, rs := range ab.RootScores {
			beta[rs.Move] = Beta(rs.Score, DefaultMateValue)
		}
		for _, m := range ms {
			bestV := math.Inf(-1)
			v := map[game.Move]float64{}
			for i, mv := range mr.Moves {
				v[mv] = pi[i]*m + beta[mv]
				bestV = max(bestV, v[mv])
			}
			d := decideWith(t, p, m, Limits{InSearch: true})
			if len(d.Candidates) != 0 || d.AlphaBeta.Depth < 1 {
				t.Fatalf("%s m=%v: %d candidates, depth %d", p, m, len(d.Candidates), d.AlphaBeta.Depth)
			}
			if v[d.Move] < bestV-0.01 {
				t.Errorf("%s m=%v: plays %s at %.3f, the blend's best is %.3f", p, m, p.FormatMove(d.Move), v[d.Move], bestV)
			}
			if d.Move != ab.Move {
				left++
			}
		}
	}
	if left == 0 {
		t.Fatal("the blend never left alpha-beta's move: the test proves nothing")
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestCombineByHand(t *testing.T) {
	r := mcts.Result{Moves: []game.Move{1, 2, 3}, Visits: []int{10, 60, 30}, Best: 2}
	ab := alphabeta.Result{Move: 3, RootScores: []alphabeta.RootScore{{Move: 3, Score: 150}, {Move: 1, Score: 100}, {Move: 2, Score: -50}}}
	// V(1) = 0.1m + 1, V(2) = 0.6m - 0.5, V(3) = 0.3m + 1.5.
	for _, c := range []struct {
		m    float64
		want game.Move
	}{{0, 3}, {5, 3}, {6.5, 3}, {7.5, 2}, {100, 2}} {
		got, cands := Combine(r, ab, c.m, DefaultMateValue)
		if got != c.want {
			t.Errorf("m=%v: %d, want %d (%+v)", c.m, got, c.want, cands)
		}
	}
	// m = 6.666...: V(2) = V(3) = 3.5 exactly is not representable; use a
	// constructed tie instead: equal V goes to the alpha-beta move.
	r2 := mcts.Result{Moves: []game.Move{1, 2}, Visits: []int{50, 50}, Best: 1}
	ab2 := alphabeta.Result{Move: 2, RootScores: []alphabeta.RootScore{{Move: 1, Score: 0}, {Move: 2, Score: 0}}}
	if got, _ := Combine(r2, ab2, 1, DefaultMateValue); got != 2 {
		t.Errorf("tie: %d, want the alpha-beta move 2", got)
	}
	// Raw policy: no visits, the policy is pi.
	r3 := mcts.Result{Moves: []game.Move{1, 2}, Visits: []int{0, 0}, Policy: []float32{0.25, 0.75}, Best: 2}
	_, cands := Combine(r3, ab2, 1, DefaultMateValue)
	if cands[0].Pi != 0.25 || cands[1].Pi != 0.75 {
		t.Errorf("raw policy shares %+v", cands)
	}
}

func TestBeta(t *testing.T) {
	for _, c := range []struct {
		score int
		want  float64
	}{
		{0, 0}, {100, 1}, {-450, -4.5}, {alphabeta.Mate - 3, 999.97}, {-alphabeta.Mate + 4, -999.96},
	} {
		if got := Beta(c.score, 1000); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Beta(%d) = %v, want %v", c.score, got, c.want)
		}
	}
	if !(Beta(alphabeta.Mate-1, 1000) > Beta(alphabeta.Mate-5, 1000)) || !(Beta(-alphabeta.Mate+5, 1000) > Beta(-alphabeta.Mate+1, 1000)) {
		t.Error("sooner mates must score higher, later losses higher than sooner ones")
	}
}

func TestMateDominates(t *testing.T) {
	// Connect Four: the first player (to move) has columns 1-3 on the
	// bottom row, the second three stones in column 7. Column 4 wins at
	// once, whatever the policy says (m = 50).
	p, err := connect4.Parse("172737")
	if err != nil {
		t.Fatal(err)
	}
	d := decide(t, p, 50)
	if got := p.FormatMove(d.Move); got != "4" {
		t.Fatalf("plays %s, want the winning column 4", got)
	}
	if d.AlphaBeta.Score < alphabeta.Mate-2 {
		t.Fatalf("alpha-beta score %d, want a mate in one", d.AlphaBeta.Score)
	}
}

func TestCancel(t *testing.T) {
	c := DefaultConfig(1, 40, 1<<30)
	mv, err := New(c, hashEval{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = mv.Move(ctx, connect4.New(), Limits{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the deadline", err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		config(-1), config(math.NaN()), config(math.Inf(1)),
		func() Config { c := config(1); c.Depth = 0; return c }(),
		func() Config { c := config(1); c.Sims = -1; return c }(),
		func() Config { c := config(1); c.AlphaBeta.Algorithm = "nope"; return c }(),
	} {
		if _, err := New(c, hashEval{}, 1); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
	if _, err := New(config(1), nil, 1); err == nil {
		t.Error("nil evaluator accepted")
	}
}

// Self-play's blend of its own MCTS result plays what the mover plays.
func TestBlendMatchesMover(t *testing.T) {
	for _, p := range positions(t) {
		mr, _ := independent(t, p)
		for _, m := range []float64{0, 1, 5, 1e9} {
			b, err := NewBlender(config(m))
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.Blend(context.Background(), p, mr)
			if err != nil {
				t.Fatal(err)
			}
			if want := decide(t, p, m); got.Move != want.Move {
				t.Errorf("%s m=%v: Blend plays %s, the mover %s", p, m, p.FormatMove(got.Move), p.FormatMove(want.Move))
			}
		}
	}
}

// A restricted root: the mover plays the allowed move with the highest
// blended value, never a banned one.
func TestAllowedMoves(t *testing.T) {
	for _, p := range positions(t) {
		free := decide(t, p, 1)
		var allowed []game.Move
		for _, m := range p.GenerateMoves(nil) {
			if m != free.Move {
				allowed = append(allowed, m)
			}
		}
		mv, err := New(config(1), hashEval{}, 7)
		if err != nil {
			t.Fatal(err)
		}
		d, err := mv.Move(context.Background(), p, Limits{Allowed: allowed})
		if err != nil {
			t.Fatal(err)
		}
		if d.Move == free.Move {
			t.Fatalf("%s: played the banned move %s", p, p.FormatMove(d.Move))
		}
		for _, c := range d.Candidates {
			if c.Move != free.Move && c.V > valueOf(t, d, d.Move) {
				t.Errorf("%s: plays %s (v %v) but allowed %s has v %v", p, p.FormatMove(d.Move), valueOf(t, d, d.Move), p.FormatMove(c.Move), c.V)
			}
		}
	}
}

func valueOf(t *testing.T, d Decision, m game.Move) float64 {
	t.Helper()
	for _, c := range d.Candidates {
		if c.Move == m {
			return c.V
		}
	}
	t.Fatalf("no candidate for move %d", m)
	return 0
}

// A move on a clock, or until stop, answers with a legal allowed move
// when its time is up or its context ends, and not with an error.
func TestInterruptibleMoves(t *testing.T) {
	p := positions(t)[4] // Xiangqi
	allowed := p.GenerateMoves(nil)[3:5]
	watchdog, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	mv, err := New(config(1), hashEval{}, 7)
	if err != nil {
		t.Fatal(err)
	}
	d, err := mv.Move(watchdog, p, Limits{Time: 100 * time.Millisecond, Allowed: allowed})
	if err != nil || watchdog.Err() != nil {
		t.Fatalf("timed move: %v (watchdog %v)", err, watchdog.Err())
	}
	if !slices.Contains(allowed, d.Move) || len(d.Candidates) == 0 || d.MCTS.Simulations == 0 {
		t.Fatalf("timed move %s: %d candidates, %d simulations", p.FormatMove(d.Move), len(d.Candidates), d.MCTS.Simulations)
	}
	// Stopped before alpha-beta finishes depth 1: the MCTS move.
	ctx, cancel := context.WithCancel(watchdog)
	cancel()
	d, err = mv.Move(ctx, p, Limits{Infinite: true, Allowed: allowed})
	if err != nil || !slices.Contains(allowed, d.Move) || len(d.Candidates) != 0 {
		t.Fatalf("stopped move %s: %d candidates, %v", p.FormatMove(d.Move), len(d.Candidates), err)
	}
	// Until stop, stopped after a while: the root scores are not there
	// (they come after the deepening), so alpha-beta's move.
	ctx, cancel = context.WithTimeout(watchdog, 200*time.Millisecond)
	defer cancel()
	d, err = mv.Move(ctx, p, Limits{Infinite: true})
	if err != nil || d.AlphaBeta.Depth == 0 || d.Move != d.AlphaBeta.Move {
		t.Fatalf("infinite move %s, alpha-beta's %s at depth %d: %v", p.FormatMove(d.Move), p.FormatMove(d.AlphaBeta.Move), d.AlphaBeta.Depth, err)
	}
}

// With Prior a move on the clock runs no simulations: pi is the
// evaluator's prior, computed here on its own, and the move is the blend's
// argmax over alpha-beta's scores of a completed depth.
func TestPriorOnTheClock(t *testing.T) {
	p := positions(t)[5] // Xiangqi, a capture to weigh
	moves := p.GenerateMoves(nil)
	priors := make([]float32, len(moves))
	if _, err := (hashEval{}).Evaluate(p, moves, priors); err != nil {
		t.Fatal(err)
	}
	prior := make(map[game.Move]float64, len(moves))
	for i, m := range moves {
		prior[m] = float64(priors[i])
	}
	const m = 2
	mv, err := New(config(m), hashEval{}, 7)
	if err != nil {
		t.Fatal(err)
	}
	d, err := mv.Move(context.Background(), p, Limits{Time: 100 * time.Millisecond, Prior: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.MCTS.Simulations != 0 || d.AlphaBeta.Depth < 1 || len(d.Candidates) != len(moves) {
		t.Fatalf("%d simulations, alpha-beta depth %d, %d candidates of %d moves", d.MCTS.Simulations, d.AlphaBeta.Depth, len(d.Candidates), len(moves))
	}
	best := d.Candidates[0]
	for _, c := range d.Candidates {
		if math.Abs(c.Pi-prior[c.Move]) > 1e-6 {
			t.Errorf("%s: pi %v, prior %v", p.FormatMove(c.Move), c.Pi, prior[c.Move])
		}
		if c.Pi*m+c.Beta > best.Pi*m+best.Beta {
			best = c
		}
	}
	if d.Move != best.Move {
		t.Errorf("played %s, the blend's argmax is %s", p.FormatMove(d.Move), p.FormatMove(best.Move))
	}
	// Stopped before it starts, the move is still made: without root
	// scores, alpha-beta's move if it completed a depth, else the prior's
	// best (computed above on its own).
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d, err = mv.Move(ctx, p, Limits{Infinite: true, Prior: true})
	want := moves[0]
	for _, m := range moves {
		if prior[m] > prior[want] {
			want = m
		}
	}
	if d.AlphaBeta.Depth > 0 {
		want = d.AlphaBeta.Move
	}
	if err != nil || want == game.NoMove || d.Move != want {
		t.Fatalf("stopped move %s, want %s: %v", p.FormatMove(d.Move), p.FormatMove(want), err)
	}
}

// BenchmarkTeach measures the teacher as Xiangqi self-play runs it: depth
// 2 with the classic options, a 1 MiB table cleared per game, temperature
// 0.5 soldier, one goroutine. An op teaches up to 40 plies of a game that
// follows alpha-beta's move from a random 4-ply opening; the metrics are
// positions taught per second and nodes per position.
func BenchmarkTeach(b *testing.B) {
	cfg := DefaultConfig(0.5, 2, 0)
	cfg.AlphaBeta.HashMiB = 1
	bl, err := NewBlender(cfg)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	start := xiangqi.New(xiangqi.DefaultRules)
	taught, nodes := 0, uint64(0)
	for b.Loop() {
		opening, err := game.RandomOpening(start, 4, rng)
		if err != nil {
			b.Fatal(err)
		}
		p := start.Clone()
		for _, m := range opening {
			p.Make(m)
		}
		bl.NewGame()
		for ply := 0; ply < 40 && !p.Status().Over(); ply++ {
			res, abres, err := bl.Teach(context.Background(), p, 0.5)
			if err != nil {
				b.Fatal(err)
			}
			taught++
			nodes += abres.Nodes
			p.Make(res.Best)
		}
	}
	b.ReportMetric(float64(taught)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(float64(nodes)/float64(taught), "nodes/position")
}
