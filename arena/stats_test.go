package arena

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSeedTables checks Elo and LOS against the Xiangqi seed's tables
// (Moesus 2026): Table 4.1 (PPA vs PPAP), Table A.1 and Table C.1, all
// from the stronger side's view, rounded as printed.
func TestSeedTables(t *testing.T) {
	for _, c := range []struct {
		name     string
		s        Score
		elo      int
		los      float64 // percent, 2 decimals; < 0: not printed
		losDecim int
	}{
		{"4.1 p=1 (PPAP 36-19, 5 draws)", Score{36, 5, 19}, 101, 98.91, 2},
		{"4.1 p=0.5", Score{32, 6, 22}, 58, 91.32, 2},
		{"4.1 p=2", Score{34, 5, 21}, 76, 96.02, 2},
		{"A.1 p=0.5", Score{33, 0, 27}, 35, 78.07, 2},
		{"A.1 p=1", Score{32, 0, 28}, 23, 69.72, 2},
		{"C.1 k=1", Score{15, 36, 9}, 35, 89, 0},
		{"C.1 k=16 (MAST)", Score{29, 22, 9}, 120, 99.94, 2},
	} {
		if got := int(math.Round(c.s.Elo())); got != c.elo {
			t.Errorf("%s: Elo %.2f rounds to %d, table says %d", c.name, c.s.Elo(), got, c.elo)
		}
		p := math.Pow(10, float64(c.losDecim))
		if got := math.Round(100*c.s.LOS()*p) / p; got != c.los {
			t.Errorf("%s: LOS %.4f%%, table says %v%%", c.name, 100*c.s.LOS(), c.los)
		}
	}
	// The weaker side's view: PPA's LOS is 1.09%.
	if got := math.Round(10000*Score{19, 5, 36}.LOS()) / 100; got != 1.09 {
		t.Errorf("PPA LOS %v%%, table says 1.09%%", got)
	}
}

func TestEloInterval(t *testing.T) {
	s := Score{36, 5, 19}
	lo, hi := s.EloInterval()
	// By hand: mu = 0.641667, per-game variance 0.209097, standard error
	// 0.059034; Elo(mu -+ 1.96 se).
	if math.Abs(lo-18.057) > 0.01 || math.Abs(hi-197.746) > 0.01 || math.Abs(s.EloMargin()-89.844) > 0.01 {
		t.Fatalf("interval [%.3f, %.3f] +- %.3f, want [18.057, 197.746] +- 89.844", lo, hi, s.EloMargin())
	}
	// Symmetry: B's view mirrors A's.
	r := Score{19, 5, 36}
	rlo, rhi := r.EloInterval()
	if math.Abs(rlo+hi) > 1e-9 || math.Abs(rhi+lo) > 1e-9 {
		t.Fatalf("mirrored interval [%v, %v]", rlo, rhi)
	}
	if (Score{}).LOS() != 0.5 || (Score{Draws: 4}).LOS() != 0.5 || (Score{Draws: 4}).Elo() != 0 {
		t.Fatal("no decisive games: LOS 0.5, Elo 0")
	}
}

// A match won or lost outright has a finite Elo (half a game's prior:
// one draw added) and a one-sided interval whose finite bound is the exact
// binomial one; the text names that bound, and the JSON holds numbers
// where they exist and null for the open side and the half-width (no
// +- margin describes an interval open on one side).
func TestEloSweep(t *testing.T) {
	for _, n := range []int{1, 10, 100} {
		won, lost := Score{Wins: n}, Score{Losses: n}
		// By hand: (n + 1/2) / (n + 1) and its logistic Elo; the bound's
		// score p has p^n = 0.025.
		est := -400 * math.Log10(1/((float64(n)+0.5)/float64(n+1))-1)
		p := math.Pow(0.025, 1/float64(n))
		bound := -400 * math.Log10(1/p-1)
		if e := won.Elo(); math.Abs(e-est) > 1e-9 || math.Abs(lost.Elo()+est) > 1e-9 {
			t.Errorf("%d-0-0 Elo %v, 0-0-%d Elo %v, want +-%v", n, e, n, lost.Elo(), est)
		}
		lo, hi := won.EloInterval()
		if math.Abs(lo-bound) > 1e-9 || !math.IsInf(hi, 1) || lo >= won.Elo() {
			t.Errorf("%d-0-0 interval [%v, %v], want [%v, +Inf) below the estimate", n, lo, hi, bound)
		}
		llo, lhi := lost.EloInterval()
		if math.Abs(lhi+bound) > 1e-9 || !math.IsInf(llo, -1) {
			t.Errorf("0-0-%d interval [%v, %v], want (-Inf, %v]", n, llo, lhi, -bound)
		}
		// No +- half-width holds an interval open on one side.
		if m, lm := won.EloMargin(), lost.EloMargin(); !math.IsInf(m, 1) || !math.IsInf(lm, 1) {
			t.Errorf("%d-game sweeps' margins %v, %v, want +Inf", n, m, lm)
		}
		for _, sc := range []Score{won, lost} {
			b, err := json.Marshal(sc.Summary())
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("sweep JSON %s: %v", b, err)
			}
			if _, ok := m["elo"].(float64); !ok {
				t.Errorf("%s: elo is %v, want a number", b, m["elo"])
			}
			if v, ok := m["elo_ci95"]; !ok || v != nil {
				t.Errorf("%s: elo_ci95 is %v, want null", b, v)
			}
			open, closed := "elo_high", "elo_low"
			if sc.Losses > 0 {
				open, closed = closed, open
			}
			if v, has := m[open]; !has || v != nil {
				t.Errorf("%s: %s is %v, want null", b, open, v)
			}
			if _, ok := m[closed].(float64); !ok {
				t.Errorf("%s: %s is %v, want a number", b, closed, m[closed])
			}
		}
	}
	if got, want := (Score{Wins: 10}).String(), "W-D-L 10-0-0, score 1.000, Elo +528.9 (95%: above +140.2), LOS 99.92%"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := (Score{Losses: 10}).String(), "W-D-L 0-0-10, score 0.000, Elo -528.9 (95%: below -140.2), LOS 0.08%"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// One game lost, and the normal interval still leaves (0, 1) above:
	// the same one bound and no half-width.
	if s := (Score{Wins: 9, Losses: 1}); !math.IsInf(s.EloMargin(), 1) || !strings.Contains(s.String(), "Elo +381.7 (95%: above +159.0)") {
		t.Errorf("9-0-1: %s, margin %v", s, s.EloMargin())
	}
	// Every game drawn: no Elo difference, and no spread to give a margin.
	if d := (Score{Draws: 4}); d.Elo() != 0 || !math.IsNaN(d.EloMargin()) || !strings.Contains(d.String(), "Elo +0.0 +- n/a") {
		t.Errorf("all draws: %s", d)
	}
}

// EloText says what the games tell for every kind of result: String's
// figures where there is an interval or one bound of it, and in words
// where there is none, never a +- that no interval backs.
func TestEloText(t *testing.T) {
	for _, c := range []struct {
		s    Score
		want string
	}{
		{Score{36, 5, 19}, "Elo " + fmtElo(Score{36, 5, 19}.Elo()) + " +- 89.8"},
		{Score{Wins: 10}, "Elo +528.9 (95%: above +140.2)"},
		{Score{Losses: 10}, "Elo -528.9 (95%: below -140.2)"},
		{Score{Wins: 9, Losses: 1}, "Elo +381.7 (95%: above +159.0)"},
		{Score{}, "Elo not measured (no games)"},
		{Score{Draws: 4}, "Elo +0.0 (every game drawn)"},
		{Score{Wins: 1, Losses: 1}, "Elo +0.0 (too few games to bound it)"},
	} {
		if got := c.s.EloText(); got != c.want {
			t.Errorf("%d-%d-%d: %q, want %q", c.s.Wins, c.s.Draws, c.s.Losses, got, c.want)
		}
		// The figures are String's wherever it has some.
		if !strings.HasPrefix(c.want, "Elo not") && !strings.Contains(c.want, "(every") && !strings.Contains(c.want, "(too few") &&
			!strings.Contains(c.s.String(), strings.TrimPrefix(c.want, "Elo ")) {
			t.Errorf("%d-%d-%d: String %q lacks %q", c.s.Wins, c.s.Draws, c.s.Losses, c.s.String(), c.want)
		}
	}
}

func TestSPRTBounds(t *testing.T) {
	lo, hi := SPRT{0, 10, 0.05, 0.05}.Bounds()
	if math.Abs(lo+2.944438979) > 1e-6 || math.Abs(hi-2.944438979) > 1e-6 {
		t.Fatalf("bounds %v %v, want -+ln(19)", lo, hi)
	}
	for _, bad := range []SPRT{{10, 0, 0.05, 0.05}, {0, 0, 0.05, 0.05}, {0, 10, 0, 0.05}, {0, 10, 0.05, 0.6}, {0, 5000, 0.05, 0.05}} {
		if bad.Check() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestLLRMatchesNormalApproximation: for many games the exact trinomial
// GSPRT agrees with fishtest's normal approximation N (s1-s0)(2 mu - s0 -
// s1) / (2 var).
func TestLLRMatchesNormalApproximation(t *testing.T) {
	for _, s := range []Score{{400, 300, 300}, {1000, 3000, 900}, {250, 0, 260}} {
		sp := SPRT{-5, 15, 0.05, 0.05}
		n := float64(s.Games())
		mu := s.Score()
		v := (float64(s.Wins)*(1-mu)*(1-mu) + float64(s.Draws)*(0.5-mu)*(0.5-mu) + float64(s.Losses)*mu*mu) / n
		s0, s1 := ScoreFromElo(sp.Elo0), ScoreFromElo(sp.Elo1)
		approx := n * (s1 - s0) * (2*mu - s0 - s1) / (2 * v)
		got := sp.LLR(s)
		if math.Abs(got-approx) > 0.02*math.Abs(approx)+0.01 {
			t.Errorf("%+v: LLR %.4f, normal approximation %.4f", s, got, approx)
		}
	}
	// Symmetric hypotheses and a symmetric score: LLR 0.
	if llr := (SPRT{-10, 10, 0.05, 0.05}).LLR(Score{7, 3, 7}); math.Abs(llr) > 1e-9 {
		t.Errorf("symmetric LLR %v", llr)
	}
}

// TestSPRTSmallSamples: a few wins are not enough to accept H1 against a
// small Elo gap (the normal approximation would accept after two wins).
func TestSPRTSmallSamples(t *testing.T) {
	sp := SPRT{0, 10, 0.05, 0.05}
	if st := sp.State(Score{Wins: 2}); st.Decision != "" {
		t.Fatalf("two wins decide %s (LLR %v)", st.Decision, st.LLR)
	}
	// Against elo1 = 200, a clean run of wins decides after a handful.
	sp = SPRT{0, 200, 0.05, 0.05}
	n := 0
	for n = 1; n < 100 && sp.State(Score{Wins: n}).Decision == ""; n++ {
	}
	if n > 10 || sp.State(Score{Wins: n}).Decision != AcceptH1 {
		t.Fatalf("%d straight wins to accept H1 at elo1 = 200", n)
	}
	t.Logf("H1 (0 vs 200 Elo) accepted after %d straight wins", n)
}

// simulate plays a sequential test on players elo apart (draw rate 0.2)
// and returns the decision and the number of games.
func simulate(rng *rand.Rand, sp SPRT, elo float64, maxGames int) (string, int) {
	s := ScoreFromElo(elo)
	const draw = 0.2
	pw := s - draw/2
	var sc Score
	for sc.Games() < maxGames {
		switch x := rng.Float64(); {
		case x < pw:
			sc.Wins++
		case x < pw+draw:
			sc.Draws++
		default:
			sc.Losses++
		}
		if d := sp.State(sc).Decision; d != "" {
			return d, sc.Games()
		}
	}
	return "", sc.Games()
}

// TestSPRTErrorRates: over simulated matches the test accepts H1 for
// equal players about alpha of the time at most, and for players elo1
// apart about 1 - beta of the time.
func TestSPRTErrorRates(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	sp := SPRT{0, 60, 0.05, 0.05}
	const runs = 300
	falseH1, trueH1, games := 0, 0, 0
	for range runs {
		if d, _ := simulate(rng, sp, 0, 5000); d == AcceptH1 {
			falseH1++
		}
		d, n := simulate(rng, sp, 60, 5000)
		if d == AcceptH1 {
			trueH1++
		}
		games += n
	}
	t.Logf("equal players: H1 in %d/%d runs; 60 Elo apart: H1 in %d/%d runs, mean %d games", falseH1, runs, trueH1, runs, games/runs)
	if falseH1 > runs*9/100 {
		t.Errorf("false H1 rate %d/%d, alpha is 5%%", falseH1, runs)
	}
	if trueH1 < runs*85/100 {
		t.Errorf("H1 accepted in %d/%d runs at elo1, beta is 5%%", trueH1, runs)
	}
}
