package arena

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Score counts a match's games from player A's view.
type Score struct {
	Wins, Draws, Losses int
}

func (s *Score) add(scoreA float64) {
	switch scoreA {
	case 1:
		s.Wins++
	case 0:
		s.Losses++
	default:
		s.Draws++
	}
}

// Games returns the number of games.
func (s Score) Games() int { return s.Wins + s.Draws + s.Losses }

// Score returns the mean score (wins + draws/2) / games; 0.5 without
// games.
func (s Score) Score() float64 {
	n := s.Games()
	if n == 0 {
		return 0.5
	}
	return (float64(s.Wins) + 0.5*float64(s.Draws)) / float64(n)
}

// EloFromScore is the logistic Elo difference of a mean score:
// -400 log10(1/score - 1); +-Inf at 1 and 0.
func EloFromScore(score float64) float64 {
	switch {
	case score >= 1:
		return math.Inf(1)
	case score <= 0:
		return math.Inf(-1)
	}
	return -400 * math.Log10(1/score-1)
}

// ScoreFromElo is the expected score at an Elo difference.
func ScoreFromElo(elo float64) float64 { return 1 / (1 + math.Pow(10, -elo/400)) }

// Elo returns the Elo difference A - B: the logistic Elo of the score, 0
// without games. A sweep (every game won, or every game lost), whose score
// of 1 or 0 has an infinite Elo, is given half a game's prior instead: one
// draw added to its games, (W + 1/2) / (N + 1), which is finite and
// grows with N towards the sweep's infinity (docs/arena.md has figures).
func (s Score) Elo() float64 {
	if s.sweep() != 0 {
		return EloFromScore((float64(s.Wins) + 0.5) / float64(s.Games()+1))
	}
	return EloFromScore(s.Score())
}

// sweep is +1 when A won every game, -1 when A lost every game, else 0
// (no games included).
func (s Score) sweep() int {
	switch n := s.Games(); {
	case n > 0 && s.Wins == n:
		return 1
	case n > 0 && s.Losses == n:
		return -1
	}
	return 0
}

// z95 is the two-sided 95% normal quantile.
const z95 = 1.959963984540054

// stdErr is the standard error of the mean score, from the per-game
// (trinomial) score variance.
func (s Score) stdErr() float64 {
	n := float64(s.Games())
	if n == 0 {
		return math.Inf(1)
	}
	mu := s.Score()
	v := (float64(s.Wins)*(1-mu)*(1-mu) + float64(s.Draws)*(0.5-mu)*(0.5-mu) + float64(s.Losses)*mu*mu) / n
	return math.Sqrt(v / n)
}

// EloInterval returns the 95% confidence interval of the Elo difference:
// the Elo of score -+ 1.96 standard errors (bounds past 0 or 1 are -Inf
// or +Inf). A sweep has no spread to take a standard error from; its one
// finite bound is the exact (Clopper-Pearson) one: N games all won are
// below a 2.5% chance when A's expected score s has s^N < 0.025 (a
// player who wins every game scores at least its win rate), so the
// interval is [Elo(0.025^(1/N)), +Inf), mirrored for N losses.
func (s Score) EloInterval() (lo, hi float64) {
	if s.Games() == 0 {
		return math.Inf(-1), math.Inf(1)
	}
	switch s.sweep() {
	case 1:
		return EloFromScore(math.Pow(0.025, 1/float64(s.Games()))), math.Inf(1)
	case -1:
		return math.Inf(-1), EloFromScore(1 - math.Pow(0.025, 1/float64(s.Games())))
	}
	mu, se := s.Score(), s.stdErr()
	return EloFromScore(mu - z95*se), EloFromScore(mu + z95*se)
}

// EloMargin is the +- half-width of the 95% interval, (hi - lo) / 2, as
// cutechess-cli reports it: +Inf when the interval is open on one side (a
// sweep, or a score within 1.96 standard errors of 0 or 1), which no
// half-width describes (EloInterval gives its one bound); NaN without
// games or when the result has no spread (every game drawn).
func (s Score) EloMargin() float64 {
	if s.Games() == 0 || s.sweep() == 0 && s.stdErr() == 0 {
		return math.NaN()
	}
	lo, hi := s.EloInterval()
	return (hi - lo) / 2
}

// LOS is the likelihood of superiority of A over B, draws ignored:
// 0.5 + 0.5 erf((W - L) / sqrt(2 (W + L))); 0.5 when W + L = 0.
func (s Score) LOS() float64 {
	if s.Wins+s.Losses == 0 {
		return 0.5
	}
	return 0.5 + 0.5*math.Erf(float64(s.Wins-s.Losses)/math.Sqrt(2*float64(s.Wins+s.Losses)))
}

// String is a one-line summary: "W-D-L 36-5-19, score 0.642, Elo +101.2
// +- 91.0, LOS 98.91%"; with an interval open on one side (a sweep), its
// bound instead of the margin: "W-D-L 10-0-0, score 1.000, Elo +528.9
// (95%: above +140.2), LOS 99.92%".
func (s Score) String() string {
	elo := s.eloFigures()
	if elo == "" {
		elo = fmtElo(s.Elo()) + " +- " + fmtMargin(s.EloMargin())
	}
	return fmt.Sprintf("W-D-L %d-%d-%d, score %.3f, Elo %s, LOS %.2f%%",
		s.Wins, s.Draws, s.Losses, s.Score(), elo, 100*s.LOS())
}

// EloText is the Elo difference with what the games tell of it, for a
// reader who does not know the statistics' edge cases: "Elo +101.2 +-
// 91.0"; an interval open on one side gives its one bound, "Elo +528.9
// (95%: above +140.2)"; without games "Elo not measured (no games)";
// with every game drawn (no spread to take an interval from) "Elo +0.0
// (every game drawn)"; with too few games to bound it on either side,
// the figure alone and that.
func (s Score) EloText() string {
	switch {
	case s.Games() == 0:
		return "Elo not measured (no games)"
	case s.Draws == s.Games():
		return "Elo +0.0 (every game drawn)"
	}
	if elo := s.eloFigures(); elo != "" {
		return "Elo " + elo
	}
	// Both bounds open: too few games for the interval to exclude either
	// end.
	return "Elo " + fmtElo(s.Elo()) + " (too few games to bound it)"
}

// eloFigures is the Elo with its 95% interval, as a half-width or its one
// finite bound; "" where neither says anything (no games, no spread).
func (s Score) eloFigures() string {
	if s.Games() == 0 {
		return ""
	}
	switch lo, hi := s.EloInterval(); {
	case math.IsInf(hi, 1) && !math.IsInf(lo, 0):
		return fmt.Sprintf("%s (95%%: above %s)", fmtElo(s.Elo()), fmtElo(lo))
	case math.IsInf(lo, -1) && !math.IsInf(hi, 0):
		return fmt.Sprintf("%s (95%%: below %s)", fmtElo(s.Elo()), fmtElo(hi))
	}
	if m := s.EloMargin(); !math.IsNaN(m) && !math.IsInf(m, 0) {
		return fmtElo(s.Elo()) + " +- " + fmtMargin(m)
	}
	return ""
}

func fmtElo(e float64) string {
	if math.IsInf(e, 0) {
		if e > 0 {
			return "+inf"
		}
		return "-inf"
	}
	return fmt.Sprintf("%+.1f", e+0) // no "-0.0"
}

func fmtMargin(m float64) string {
	if math.IsInf(m, 0) || math.IsNaN(m) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", m)
}

// Number is a float64 that encodes as JSON null when it is not finite.
type Number float64

// MarshalJSON implements json.Marshaler.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'f', -1, 64), nil
}

// Summary is a match result for JSON, from A's view. Elo values are null
// when infinite or undefined: an interval's open bound and its elo_ci95
// (a sweep's, EloMargin), elo_ci95 when every game was drawn.
type Summary struct {
	A        string     `json:"a,omitempty"`
	B        string     `json:"b,omitempty"`
	Variant  string     `json:"variant,omitempty"`
	Games    int        `json:"games"`
	Wins     int        `json:"wins"`
	Draws    int        `json:"draws"`
	Losses   int        `json:"losses"`
	Score    Number     `json:"score"`
	Elo      Number     `json:"elo"`
	EloCI95  Number     `json:"elo_ci95"` // +- half-width
	EloLow   Number     `json:"elo_low"`
	EloHigh  Number     `json:"elo_high"`
	LOS      Number     `json:"los"`
	SPRT     *SPRTState `json:"sprt,omitempty"`
	Stopped  string     `json:"stopped,omitempty"`
	Openings string     `json:"openings,omitempty"`
	// EffortA and EffortB are MeanEffort's (omitted when not counted).
	EffortA Number `json:"effort_a,omitempty"`
	EffortB Number `json:"effort_b,omitempty"`
}

// Summary returns the score's figures for JSON.
func (s Score) Summary() Summary {
	lo, hi := s.EloInterval()
	return Summary{Games: s.Games(), Wins: s.Wins, Draws: s.Draws, Losses: s.Losses,
		Score: Number(round(s.Score(), 6)), Elo: Number(round(s.Elo(), 2)), EloCI95: Number(round(s.EloMargin(), 2)),
		EloLow: Number(round(lo, 2)), EloHigh: Number(round(hi, 2)), LOS: Number(round(s.LOS(), 6))}
}

// round returns the float nearest to x written with digits decimals.
func round(x float64, digits int) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	return r
}

// SPRT decisions.
const (
	AcceptH1 = "H1" // A is stronger by elo1
	AcceptH0 = "H0" // A is not stronger than by elo0
)

// SPRT is a sequential probability ratio test of H0: elo = Elo0 against
// H1: elo = Elo1 (logistic Elo of A over B) with error rates Alpha (false
// H1) and Beta (false H0).
//
// The log-likelihood ratio is the generalised SPRT of the trinomial
// (win/draw/loss) model, as fishtest computes it without the normal
// approximation: for each hypothesis the outcome probabilities are the
// maximum-likelihood ones under the constraint that the expected score is
// s = 1/(1+10^(-elo/400)), p_i = q_i / (1 + lambda (a_i - s)) with q the
// observed frequencies, a = (0, 1/2, 1) the outcome scores and lambda
// solving sum p_i = 1; then LLR = sum_i n_i log(p1_i / p0_i). Outcomes
// never seen count as 0.001 games (fishtest's regularisation). The test
// accepts H1 at LLR >= log((1-Beta)/Alpha) and H0 at LLR <= log(Beta /
// (1-Alpha)).
type SPRT struct {
	Elo0, Elo1  float64
	Alpha, Beta float64
}

// Check reports parameters the test cannot use.
func (t SPRT) Check() error {
	if !(t.Elo0 < t.Elo1) {
		return fmt.Errorf("arena: SPRT needs elo0 < elo1, got %v, %v", t.Elo0, t.Elo1)
	}
	if !(t.Alpha > 0 && t.Alpha < 0.5 && t.Beta > 0 && t.Beta < 0.5) {
		return fmt.Errorf("arena: SPRT needs alpha and beta in (0, 0.5), got %v, %v", t.Alpha, t.Beta)
	}
	if math.Abs(t.Elo0) > 2000 || math.Abs(t.Elo1) > 2000 {
		return errors.New("arena: SPRT Elo bounds beyond +-2000")
	}
	return nil
}

// Bounds returns the LLR thresholds (lower accepts H0, upper accepts H1).
func (t SPRT) Bounds() (lower, upper float64) {
	return math.Log(t.Beta / (1 - t.Alpha)), math.Log((1 - t.Beta) / t.Alpha)
}

// SPRTState is the test after some games.
type SPRTState struct {
	Elo0     float64 `json:"elo0"`
	Elo1     float64 `json:"elo1"`
	Alpha    float64 `json:"alpha"`
	Beta     float64 `json:"beta"`
	LLR      float64 `json:"llr"`
	Lower    float64 `json:"lower"`
	Upper    float64 `json:"upper"`
	Decision string  `json:"decision,omitempty"` // AcceptH1, AcceptH0 or "" (continue)
}

// State evaluates the test on a score.
func (t SPRT) State(s Score) SPRTState {
	lo, hi := t.Bounds()
	st := SPRTState{Elo0: t.Elo0, Elo1: t.Elo1, Alpha: t.Alpha, Beta: t.Beta, Lower: lo, Upper: hi, LLR: t.LLR(s)}
	switch {
	case st.LLR >= hi:
		st.Decision = AcceptH1
	case st.LLR <= lo:
		st.Decision = AcceptH0
	}
	return st
}

// LLR returns the log-likelihood ratio of H1 against H0 (0 without games).
func (t SPRT) LLR(s Score) float64 {
	if s.Games() == 0 {
		return 0
	}
	n := [3]float64{float64(s.Losses), float64(s.Draws), float64(s.Wins)}
	const eps = 1e-3
	total := 0.0
	for i := range n {
		if n[i] == 0 {
			n[i] = eps
		}
		total += n[i]
	}
	var q [3]float64
	for i := range q {
		q[i] = n[i] / total
	}
	p0 := constrainedMLE(q, ScoreFromElo(t.Elo0))
	p1 := constrainedMLE(q, ScoreFromElo(t.Elo1))
	llr := 0.0
	for i := range n {
		llr += n[i] * math.Log(p1[i]/p0[i])
	}
	return llr
}

var outcomeScore = [3]float64{0, 0.5, 1}

// constrainedMLE returns the distribution over (loss, draw, win) closest
// to q in the likelihood sense with expected score s (all q_i > 0).
func constrainedMLE(q [3]float64, s float64) [3]float64 {
	f := func(lambda float64) float64 {
		v := 0.0
		for i := range q {
			d := outcomeScore[i] - s
			v += q[i] * d / (1 + lambda*d)
		}
		return v
	}
	// f decreases on (-1/(1-s), 1/s), from +Inf to -Inf.
	lo, hi := -1/(1-s), 1/s
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	lambda := lo + (hi-lo)/2
	var p [3]float64
	sum := 0.0
	for i := range q {
		p[i] = q[i] / (1 + lambda*(outcomeScore[i]-s))
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// ParseSPRT reads an SPRT written "elo0,elo1[,alpha,beta]" (alpha and
// beta 0.05 by default), checked.
func ParseSPRT(s string) (*SPRT, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 && len(parts) != 4 {
		return nil, fmt.Errorf("arena: sprt %q: want elo0,elo1 or elo0,elo1,alpha,beta", s)
	}
	v := []float64{0, 0, 0.05, 0.05}
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("arena: sprt %q: %q is not a number", s, p)
		}
		v[i] = f
	}
	t := &SPRT{Elo0: v[0], Elo1: v[1], Alpha: v[2], Beta: v[3]}
	if err := t.Check(); err != nil {
		return nil, err
	}
	return t, nil
}
