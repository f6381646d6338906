package xiangqi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
)

// TestMatchTerms measures evaluation terms and search features by self-play
// matches between two configurations at a fixed node budget per move (so
// results do not depend on machine load). It is an experiment, not a
// check: it runs only with TABULA_MATCH set, for example
//
//	TABULA_MATCH=pst,nullmove,lmr,quiescence TABULA_MATCH_GAMES=100 go test -run MatchTerms -v ./game/xiangqi/
//
// Each term is measured against the default options with the term
// switched the other way ("with" has it on).
func TestMatchTerms(t *testing.T) {
	terms := os.Getenv("TABULA_MATCH")
	if terms == "" {
		t.Skip("set TABULA_MATCH=pst,nullmove,lmr,pruning,quiescence,checkext to run the measurement matches")
	}
	games, _ := strconv.Atoi(os.Getenv("TABULA_MATCH_GAMES"))
	if games <= 0 {
		games = 100
	}
	nodes, _ := strconv.Atoi(os.Getenv("TABULA_MATCH_NODES"))
	if nodes <= 0 {
		nodes = 20000
	}
	for _, term := range strings.Split(terms, ",") {
		with, without := alphabeta.DefaultOptions(), alphabeta.DefaultOptions()
		noPST := false
		switch term {
		case "pst":
			noPST = true
		case "nullmove":
			with.NullMove = true
		case "lmr":
			with.LMR = true
		case "pruning": // null move and LMR together
			with.NullMove, with.LMR = true, true
		case "quiescence":
			without.Quiescence = false
		case "checkext":
			without.CheckExtension = false
		default:
			t.Fatalf("unknown term %q", term)
		}
		w, d, l := match(t, with, without, noPST, games, uint64(nodes))
		t.Logf("%s: with vs without, %d nodes/move: +%d =%d -%d, %s", term, nodes, w, d, l, eloText(w, d, l))
	}
}

// match plays games in colour-swapped pairs from random openings of 4-8
// plies and returns wins, draws and losses of configuration a.
func match(t *testing.T, a, b alphabeta.Options, bNoPST bool, games int, nodes uint64) (w, d, l int) {
	rng := rand.New(rand.NewPCG(42, 7))
	sa, _ := alphabeta.New(a)
	sb, _ := alphabeta.New(b)
	for g := 0; g < games; g += 2 {
		open := New(Rules{PlyCap: 300})
		for i := 4 + rng.IntN(5); i > 0; i-- {
			ms := open.GenerateMoves(nil)
			open.Make(ms[rng.IntN(len(ms))])
		}
		for swap := 0; swap < 2; swap++ {
			p := open.Copy()
			p.hist = p.hist[:0] // the opening is not part of the repetition history
			aSide := game.Color(swap)
			sa.Clear()
			sb.Clear()
			for !p.Status().Over() {
				s, noPST := sa, false
				if p.side != aSide {
					s, noPST = sb, bNoPST
				}
				p.noPST = noPST
				r := s.Search(context.Background(), p, alphabeta.Limits{Nodes: nodes}, nil)
				p.noPST = false
				p.Make(r.Move)
			}
			switch st := p.Status(); {
			case st.Result == game.Draw:
				d++
			case (st.Result == game.Win) == (p.side == aSide):
				w++
			default:
				l++
			}
		}
	}
	return w, d, l
}

// eloText gives the Elo difference with a 95% interval and LOS.
func eloText(w, d, l int) string {
	n := float64(w + d + l)
	score := (float64(w) + float64(d)/2) / n
	elo := func(s float64) float64 {
		s = math.Min(math.Max(s, 1e-6), 1-1e-6)
		return -400 * math.Log10(1/s-1)
	}
	// Per-game variance of the score.
	v := (float64(w)*math.Pow(1-score, 2) + float64(d)*math.Pow(0.5-score, 2) + float64(l)*math.Pow(score, 2)) / n
	se := math.Sqrt(v / n)
	los := 0.5 + 0.5*math.Erf(float64(w-l)/math.Sqrt(2*float64(w+l)))
	return fmt.Sprintf("score %.3f, Elo %+.0f [%+.0f, %+.0f], LOS %.1f%%", score, elo(score), elo(score-1.96*se), elo(score+1.96*se), 100*los)
}
