package liondata

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
)

// GenOptions shape a generated set.
type GenOptions struct {
	Seed uint64
	// PerCell is the most positions of one source, phase and class (a
	// cell); rare classes (draws) may fill fewer.
	PerCell int
	// MaxGames bounds the games played per source.
	MaxGames int
	// PerGame is the most positions taken from one game, so that a cell
	// holds positions of many games.
	PerGame int
	// Exclude are positions (by board, side to move and hands) the set
	// must not hold: those of another set it is held out from.
	Exclude []Line
}

// DefaultGen is the set committed as positions.txt.
var DefaultGen = GenOptions{Seed: 1, PerCell: 125, MaxGames: 20000, PerGame: 2}

// HeldOutGen is the set committed as heldout.txt: other games (seed 2),
// none of positions.txt's positions. positions.txt may choose a preset;
// heldout.txt then judges it.
func HeldOutGen() GenOptions {
	o := DefaultGen
	o.Seed = 2
	// The embedded set parses (TestSetShape); were it damaged, the
	// held-out set would merely exclude less, and its test would say so.
	o.Exclude, _ = Open(0)
	return o
}

// The games: they stop at maxPly, far from the 200-ply cap, so that the
// table's values (which ignore the ply count) are the game's.
const (
	maxPly     = 100
	abNoise    = 0.2  // share of random moves in the ab games
	tbNoise    = 0.15 // and in the perfect games
	sampleRate = 0.3  // chance that a candidate position of a game is looked at
)

// Generate plays games of every source from the start and samples their
// positions that are not decided at once (the game goes on and the side to
// move cannot win in one ply), each with its value and moves from t.
// Everything follows from o.Seed: the same table and options give the
// same set.
func Generate(ctx context.Context, t *tablebase.Table, o GenOptions) ([]Line, error) {
	if t.Material() != tablebase.Full {
		return nil, fmt.Errorf("liondata: the table is of the sub-game %v, not the full game", t.Material())
	}
	var out []Line
	seen := map[string]bool{}
	for _, l := range o.Exclude {
		seen[board(l.Text)] = true
	}
	for si, src := range Sources {
		rng := rand.New(rand.NewPCG(o.Seed, uint64(si)))
		cells := map[string]int{}
		full := func() bool {
			for _, ph := range Phases {
				for _, c := range Classes {
					if cells[ph+c] < o.PerCell {
						return false
					}
				}
			}
			return true
		}
		ab, err := alphabeta.New(alphabeta.Options{Algorithm: alphabeta.DefaultOptions().Algorithm, HashMiB: 4})
		if err != nil {
			return nil, err
		}
		for g := 0; g < o.MaxGames && !full(); g++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			p, err := lion.New(game.Options{lion.OptTryRule: lion.TrySafe})
			if err != nil {
				return nil, err
			}
			ab.Clear()
			depth := 1 + rng.IntN(3)
			taken := 0
			for p.Ply() < maxPly && !p.Status().Over() {
				if taken < o.PerGame && rng.Float64() < sampleRate {
					l, ok, err := sample(t, p, src)
					if err != nil {
						return nil, err
					}
					key := board(l.Text)
					cell := Phase(p.Ply()) + Class(l.Value.Outcome)
					if ok && !seen[key] && cells[cell] < o.PerCell {
						seen[key] = true
						cells[cell]++
						taken++
						out = append(out, l)
					}
				}
				m, err := nextMove(ctx, t, ab, p, src, depth, rng)
				if err != nil {
					return nil, err
				}
				p.Make(m)
			}
		}
	}
	// In a random order, so that the first positions of the set (a
	// measure of part of it) are a sample of the whole.
	rng := rand.New(rand.NewPCG(o.Seed, uint64(len(Sources))))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out, nil
}

// board is a position text without its ply number: the same position
// reached at another ply is the same test.
func board(text string) string {
	if i := strings.LastIndexByte(text, ' '); i >= 0 {
		return text[:i]
	}
	return text
}

// sample makes p's line; ok is false for positions decided at once.
func sample(t *tablebase.Table, p *lion.Position, src string) (Line, bool, error) {
	moves, root, err := t.Moves(p, nil)
	if err != nil {
		return Line{}, false, err
	}
	if root.Outcome == game.Win && root.Plies <= 1 {
		return Line{}, false, nil
	}
	l := Line{Text: p.String(), Source: src, Value: root, AllKept: root.Outcome == game.Loss}
	for _, m := range moves {
		switch {
		case m.Optimal(root):
			l.Optimal = append(l.Optimal, lion.FormatMove(m.Move))
		case m.Keeps(root) && !l.AllKept:
			l.Kept = append(l.Kept, lion.FormatMove(m.Move))
		}
	}
	return l, true, nil
}

// nextMove is the source's move in p.
func nextMove(ctx context.Context, t *tablebase.Table, ab *alphabeta.Searcher, p *lion.Position, src string, depth int, rng *rand.Rand) (game.Move, error) {
	moves := p.GenerateMoves(nil)
	random := moves[rng.IntN(len(moves))]
	switch src {
	case "ab":
		if rng.Float64() < abNoise {
			return random, nil
		}
		r := ab.Search(ctx, p, alphabeta.Limits{Depth: depth}, nil)
		if r.Move == game.NoMove {
			return random, nil
		}
		return r.Move, nil
	case "perfect":
		if rng.Float64() < tbNoise {
			return random, nil
		}
		best, _, err := t.BestMoves(p, nil)
		if err != nil {
			return game.NoMove, err
		}
		return best[rng.IntN(len(best))], nil
	}
	return random, nil
}

// Write writes the lines in the set's format under a header comment.
func Write(w io.Writer, header string, lines []Line) error {
	for _, h := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
		if _, err := fmt.Fprintf(w, "# %s\n", h); err != nil {
			return err
		}
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// Count tallies lines by source, phase and class ("random/opening/win").
func Count(lines []Line) map[string]int {
	n := map[string]int{}
	for _, l := range lines {
		p, err := l.Position()
		if err != nil {
			continue
		}
		n[l.Source+"/"+Phase(p.Ply())+"/"+Class(l.Value.Outcome)]++
	}
	return n
}

// Header is the set's header comment: what it is and how to remake it.
func Header(o GenOptions, n int) string {
	made := fmt.Sprintf("go run ./cmd/tabula liontb -testset lion.tb -seed %d", o.Seed)
	if len(o.Exclude) > 0 {
		made = fmt.Sprintf("go run ./cmd/tabula liontb -testset lion.tb -heldout (seed %d, none of positions.txt's %d positions)", o.Seed, len(o.Exclude))
	}
	return fmt.Sprintf(`The Lion oracle's test set: %d Catch the Lion positions with their exact values
(internal/liondata/README.md). Made with: %s
<position>;<source>;<value W/L plies or D>;<optimal moves>;<other outcome-keeping moves, * all>`, n, made)
}
