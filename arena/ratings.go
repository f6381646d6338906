package arena

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Outcome is one game for the ratings: the first colour's player, the
// other, and the first's score (1, 0.5 or 0).
type Outcome struct {
	First, Second string
	Score         float64
}

// Outcomes turns records into outcomes.
func Outcomes(recs []Record) []Outcome {
	out := make([]Outcome, len(recs))
	for i, r := range recs {
		out[i] = Outcome{First: r.First, Second: r.Second, Score: r.FirstScore()}
	}
	return out
}

// Rating is one player's line of a ratings table.
type Rating struct {
	Name string
	// Elo is the Bradley-Terry rating, the anchor at AnchorElo; Err95 is
	// its approximate 95% half-width (1.96 / sqrt(Fisher information),
	// the other ratings held fixed).
	Elo, Err95          float64
	Games               int
	Wins, Draws, Losses int
	Score               float64 // mean score
	// Connected is false for players with no chain of games to the
	// anchor: their ratings are only comparable among themselves (each
	// such group is centred on 0).
	Connected bool
}

// RatingOptions tune Ratings.
type RatingOptions struct {
	Anchor    string  // the player held at AnchorElo ("": the first by name)
	AnchorElo float64 // default 0
	// PriorDraws adds this many virtual draws to every pair of players
	// that met (default 1; negative: none), which keeps a player that won
	// or lost every game at a finite rating.
	PriorDraws float64
}

// Ratings fits a Bradley-Terry model by maximum likelihood to the games
// (a draw counts as half a win for each side): P(i beats j) = 1 / (1 +
// 10^((R_j - R_i)/400)). It uses the minorisation-maximisation iteration
// of Hunter (2004) and returns the players sorted by rating, best first.
func Ratings(games []Outcome, o RatingOptions) ([]Rating, error) {
	idx := map[string]int{}
	var names []string
	for _, g := range games {
		for _, n := range []string{g.First, g.Second} {
			if _, ok := idx[n]; !ok {
				idx[n] = len(names)
				names = append(names, n)
			}
		}
		if g.First == g.Second {
			return nil, fmt.Errorf("arena: ratings: %q plays itself", g.First)
		}
		if g.Score != 0 && g.Score != 0.5 && g.Score != 1 {
			return nil, fmt.Errorf("arena: ratings: score %v", g.Score)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("arena: ratings: no games")
	}
	sort.Strings(names)
	for i, n := range names {
		idx[n] = i
	}
	anchor := o.Anchor
	if anchor == "" {
		anchor = names[0]
	}
	ai, ok := idx[anchor]
	if !ok {
		return nil, fmt.Errorf("arena: ratings: anchor %q played no game (players: %s)", anchor, strings.Join(names, ", "))
	}
	prior := o.PriorDraws
	if prior == 0 {
		prior = 1
	}
	prior = max(prior, 0)

	np := len(names)
	rows := make([]Rating, np)
	n := make([][]float64, np) // games between i and j, prior included
	w := make([]float64, np)   // score of i, prior included
	for i := range n {
		n[i] = make([]float64, np)
		rows[i].Name = names[i]
	}
	for _, g := range games {
		i, j := idx[g.First], idx[g.Second]
		n[i][j]++
		n[j][i]++
		w[i] += g.Score
		w[j] += 1 - g.Score
		for k, s := range map[int]float64{i: g.Score, j: 1 - g.Score} {
			rows[k].Games++
			switch s {
			case 1:
				rows[k].Wins++
			case 0:
				rows[k].Losses++
			default:
				rows[k].Draws++
			}
		}
	}
	for i := range n {
		for j := range n {
			if i != j && n[i][j] > 0 {
				n[i][j] += prior
				w[i] += prior / 2
			}
		}
	}
	for i := range n {
		tot := 0.0
		for j := range n {
			tot += n[i][j]
		}
		if w[i] == 0 || w[i] == tot {
			return nil, fmt.Errorf("arena: ratings: %s won or lost every game and there is no prior: no finite rating", names[i])
		}
	}
	comp := components(n)
	gamma := make([]float64, np)
	for i := range gamma {
		gamma[i] = 1
	}
	for iter := 0; iter < 100000; iter++ {
		change := 0.0
		for i := range gamma {
			den := 0.0
			for j := range gamma {
				if n[i][j] > 0 {
					den += n[i][j] / (gamma[i] + gamma[j])
				}
			}
			if den == 0 {
				continue
			}
			g := w[i] / den
			change = max(change, math.Abs(math.Log(g/gamma[i])))
			gamma[i] = g
		}
		normalise(gamma, comp)
		if change < 1e-10 {
			break
		}
	}
	scale := 400 / math.Ln10
	for i := range rows {
		r := &rows[i]
		r.Elo = scale * math.Log(gamma[i])
		info := 0.0
		for j := range gamma {
			if n[i][j] > 0 {
				p := gamma[i] / (gamma[i] + gamma[j])
				info += n[i][j] * p * (1 - p)
			}
		}
		r.Err95 = math.Inf(1)
		if info > 0 {
			r.Err95 = z95 * scale / math.Sqrt(info)
		}
		if r.Games > 0 {
			r.Score = (float64(r.Wins) + 0.5*float64(r.Draws)) / float64(r.Games)
		}
		r.Connected = comp[i] == comp[ai]
	}
	// Anchor: shift the anchor's group so the anchor sits at AnchorElo;
	// other groups keep mean 0.
	shift := o.AnchorElo - rows[ai].Elo
	for i := range rows {
		if rows[i].Connected {
			rows[i].Elo += shift
		}
	}
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].Elo > rows[b].Elo })
	return rows, nil
}

// components labels the connected groups of the game graph.
func components(n [][]float64) []int {
	comp := make([]int, len(n))
	for i := range comp {
		comp[i] = -1
	}
	c := 0
	for s := range n {
		if comp[s] >= 0 {
			continue
		}
		stack := []int{s}
		comp[s] = c
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for j := range n {
				if n[i][j] > 0 && comp[j] < 0 {
					comp[j] = c
					stack = append(stack, j)
				}
			}
		}
		c++
	}
	return comp
}

// normalise scales each group's ratings to a geometric mean of 1.
func normalise(gamma []float64, comp []int) {
	sum := map[int]float64{}
	cnt := map[int]float64{}
	for i, g := range gamma {
		sum[comp[i]] += math.Log(g)
		cnt[comp[i]]++
	}
	for i := range gamma {
		gamma[i] /= math.Exp(sum[comp[i]] / cnt[comp[i]])
	}
}

// WriteRatings prints a ratings table.
func WriteRatings(w io.Writer, rows []Rating, anchor string) error {
	width := len("player")
	for _, r := range rows {
		width = max(width, len(r.Name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-4s %-*s %8s %7s %6s %6s %6s %6s %6s\n", "rank", width, "player", "elo", "+-95%", "games", "score", "wins", "draws", "losses")
	for i, r := range rows {
		note := ""
		if r.Name == anchor {
			note = "  (anchor)"
		} else if !r.Connected {
			note = "  (not connected to the anchor)"
		}
		fmt.Fprintf(&b, "%-4d %-*s %8.1f %7s %6d %6.3f %6d %6d %6d%s\n", i+1, width, r.Name, r.Elo, fmtMargin(r.Err95), r.Games, r.Score, r.Wins, r.Draws, r.Losses, note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// DefaultAnchor is the player the ratings of recs are anchored at when
// none is named: the first alpha-beta player by name (a fixed strength),
// else random, else the first name.
func DefaultAnchor(recs []Record) string {
	seen := map[string]bool{}
	var names []string
	for _, r := range recs {
		for _, n := range []string{r.First, r.Second} {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.HasPrefix(n, KindAB+":") {
			return n
		}
	}
	if seen[KindRandom] {
		return KindRandom
	}
	if len(names) > 0 {
		return names[0]
	}
	return ""
}
