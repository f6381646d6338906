package xqset

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/uci"
)

// GenConfig says how a set is made.
type GenConfig struct {
	Engine    string // Fairy-Stockfish's path
	Positions int
	Seed      uint64
	// Depth and MultiPV are the labelling search's: each position's
	// MultiPV best moves scored at this depth.
	Depth, MultiPV int
	// Levels are the node limits games are played at (one drawn per game
	// for both sides), so that the set holds both sound and ragged play.
	Levels []int
}

// DefaultGen made the embedded set.
var DefaultGen = GenConfig{Engine: "/usr/games/fairy-stockfish", Positions: 1500, Seed: 1, Depth: 10, MultiPV: 4,
	Levels: []int{30, 300, 3000}}

// How the games are played and sampled: a few uniformly random plies
// first, some random moves along the way, a position looked at with
// chance takeChance and at most perGame from each game.
const (
	openingMin, openingMax = 2, 10
	randomMove             = 0.15
	takeChance             = 0.04
	perGame                = 3
	maxPly                 = 250
)

// Generate plays games with the engine, labels positions along them with
// its multi-PV search and writes the set to w, a header first. done, if
// set, is called after each position.
func Generate(ctx context.Context, cfg GenConfig, w io.Writer, done func(n int)) error {
	if cfg.Positions <= 0 || cfg.Depth <= 0 || cfg.MultiPV <= 0 || len(cfg.Levels) == 0 {
		return fmt.Errorf("xqset: generate: positions, depth, multi-PV and levels must be positive: %+v", cfg)
	}
	play, err := startEngine(ctx, cfg.Engine, 1)
	if err != nil {
		return err
	}
	defer play.Close()
	label, err := startEngine(ctx, cfg.Engine, cfg.MultiPV)
	if err != nil {
		return err
	}
	defer label.Close()
	fmt.Fprintf(w, "# Xiangqi positions judged by %s: multi-PV %d at depth %d (xqset.Generate, seed %d, levels %v)\n",
		label.Name(), cfg.MultiPV, cfg.Depth, cfg.Seed, cfg.Levels)
	fmt.Fprintf(w, "# FEN\tply\tsource\tMOVE:SCORE ... (the side to move's centipawns, best first; mate in n plies ±(%d-n))\n", mateScore)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7871736574))
	n := 0
	for n < cfg.Positions {
		level := cfg.Levels[rng.IntN(len(cfg.Levels))]
		lines, err := playGame(ctx, play, label, cfg, level, rng)
		if err != nil {
			return err
		}
		for _, l := range lines {
			if n == cfg.Positions {
				break
			}
			if _, err := fmt.Fprintln(w, l.String()); err != nil {
				return fmt.Errorf("xqset: %w", err)
			}
			n++
			if done != nil {
				done(n)
			}
		}
	}
	return nil
}

// String is the line in the set's format.
func (l Line) String() string {
	moves := make([]string, len(l.Moves))
	for i, s := range l.Moves {
		moves[i] = s.Move + ":" + strconv.Itoa(s.Score)
	}
	return strings.Join([]string{l.FEN, strconv.Itoa(l.Ply), l.Source, strings.Join(moves, " ")}, "\t")
}

// startEngine starts Fairy-Stockfish for Xiangqi on one thread.
func startEngine(ctx context.Context, path string, multiPV int) (*uci.Client, error) {
	c, err := uci.Start(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("xqset: %w", err)
	}
	opts := [][2]string{{"UCI_Variant", "xiangqi"}, {"Threads", "1"}, {"Hash", "64"}, {"MultiPV", strconv.Itoa(multiPV)}}
	err = c.Handshake(ctx)
	for _, o := range opts {
		if err == nil {
			err = c.SetOption(ctx, o[0], o[1])
		}
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("xqset: %s: %w", path, err)
	}
	return c, nil
}

// playGame plays one game at level nodes a move and returns the positions
// it takes along it, labelled.
func playGame(ctx context.Context, play, label *uci.Client, cfg GenConfig, level int, rng *rand.Rand) ([]Line, error) {
	start := xiangqi.New(xiangqi.DefaultRules)
	p := start.Copy()
	var moves []game.Move
	var out []Line
	opening := openingMin + rng.IntN(openingMax-openingMin+1)
	if err := play.Send("ucinewgame"); err != nil {
		return nil, err
	}
	for p.Ply() < maxPly && !p.Status().Over() {
		legal := p.GenerateMoves(nil)
		if p.Ply() >= opening && len(out) < perGame && len(legal) > 1 && rng.Float64() < takeChance {
			l, ok, err := labelPosition(ctx, label, p, cfg, fmt.Sprintf("fsf-n%d", level))
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, l)
			}
		}
		var m game.Move
		if p.Ply() < opening || rng.Float64() < randomMove {
			m = legal[rng.IntN(len(legal))]
		} else {
			cmd, err := uci.PositionCommand(start, moves)
			if err != nil {
				return nil, err
			}
			best, _, err := search(ctx, play, cmd, fmt.Sprintf("go nodes %d", level))
			if err != nil {
				return nil, err
			}
			if m, err = p.ParseMove(best); err != nil {
				return nil, fmt.Errorf("xqset: the engine's move %q in %s: %w", best, p, err)
			}
		}
		p.Make(m)
		moves = append(moves, m)
	}
	return out, nil
}

// bareFEN is p's FEN without its counters: the set's positions stand
// alone.
func bareFEN(p *xiangqi.Position) string {
	f := strings.Fields(p.String())
	return f[0] + " " + f[1] + " - - 0 1"
}

// labelPosition scores p's best moves with the labelling engine, from a
// fresh hash so that a label does not depend on the positions before it.
// ok is false when the engine's lines are not in order of score or its
// bestmove is not the first line's (its last iteration unsettled): such a
// position is left out.
func labelPosition(ctx context.Context, label *uci.Client, p *xiangqi.Position, cfg GenConfig, source string) (l Line, ok bool, err error) {
	fen := bareFEN(p)
	if err := label.Send("ucinewgame"); err != nil {
		return Line{}, false, err
	}
	if err := label.IsReady(ctx); err != nil {
		return Line{}, false, err
	}
	best, info, err := search(ctx, label, "position fen "+fen, "go depth "+strconv.Itoa(cfg.Depth))
	if err != nil {
		return Line{}, false, err
	}
	want := min(cfg.MultiPV, len(p.GenerateMoves(nil)))
	moves, err := multiPV(info, want)
	if err != nil {
		return Line{}, false, fmt.Errorf("xqset: %s: %w", fen, err)
	}
	if moves[0].Move != best || !slices.IsSortedFunc(moves, func(a, b Scored) int { return b.Score - a.Score }) {
		return Line{}, false, nil
	}
	l = Line{FEN: fen, Ply: p.Ply(), Source: source, Moves: moves}
	// The set's own parser checks the line (legal moves, the notation).
	if _, err := parseLine(l.String()); err != nil {
		return Line{}, false, fmt.Errorf("xqset: %s: the label does not read back: %w", fen, err)
	}
	return l, true, nil
}

// search sends a position and a go command and returns the bestmove and
// the info lines before it.
func search(ctx context.Context, c *uci.Client, position, goCmd string) (string, []string, error) {
	if err := c.Send(position); err != nil {
		return "", nil, err
	}
	if err := c.Send(goCmd); err != nil {
		return "", nil, err
	}
	lines, err := c.ReadUntil(ctx, func(l string) bool { return strings.HasPrefix(l, "bestmove") }, 10*time.Minute)
	if err != nil {
		return "", nil, fmt.Errorf("xqset: %w", err)
	}
	f := strings.Fields(lines[len(lines)-1])
	if len(f) < 2 || f[1] == "(none)" {
		return "", nil, fmt.Errorf("xqset: %q after %s: no move", lines[len(lines)-1], position)
	}
	return f[1], lines[:len(lines)-1], nil
}

// pvInfo is one multi-PV line of an iteration.
type pvInfo struct {
	depth, index int
	Scored
}

// parseInfo reads "info depth D ... multipv K score cp|mate X ... pv M ...";
// ok is false for other lines and for bounds (a score the iteration had
// not settled).
func parseInfo(line string) (pv pvInfo, ok bool) {
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != "info" {
		return pv, false
	}
	pv.index = 1
	haveDepth, haveScore := false, false
	for i := 1; i < len(f); i++ {
		arg := func() (int, bool) {
			if i+1 >= len(f) {
				return 0, false
			}
			v, err := strconv.Atoi(f[i+1])
			return v, err == nil
		}
		switch f[i] {
		case "depth":
			pv.depth, haveDepth = arg()
		case "multipv":
			var ok bool
			if pv.index, ok = arg(); !ok {
				return pv, false
			}
		case "score":
			if i+2 >= len(f) {
				return pv, false
			}
			v, err := strconv.Atoi(f[i+2])
			if err != nil {
				return pv, false
			}
			switch f[i+1] {
			case "cp":
				pv.Score = v
			case "mate":
				pv.Score = mateToScore(v)
			default:
				return pv, false
			}
			haveScore = true
			i += 2
			continue
		case "lowerbound", "upperbound":
			return pv, false
		case "pv":
			if i+1 >= len(f) || !haveDepth || !haveScore {
				return pv, false
			}
			pv.Move = f[i+1]
			return pv, true
		}
	}
	return pv, false
}

// mateToScore turns "mate N" (moves; negative when mated) into a score:
// a mate in n plies is ±(mateScore - n).
func mateToScore(n int) int {
	if n > 0 {
		return mateScore - (2*n - 1)
	}
	return -(mateScore + 2*n)
}

// multiPV returns the want best moves of the deepest iteration that
// reported all of them, best first.
func multiPV(info []string, want int) ([]Scored, error) {
	byDepth := map[int]map[int]Scored{}
	for _, l := range info {
		pv, ok := parseInfo(l)
		if !ok || pv.index < 1 || pv.index > want {
			continue
		}
		if byDepth[pv.depth] == nil {
			byDepth[pv.depth] = map[int]Scored{}
		}
		byDepth[pv.depth][pv.index] = pv.Scored
	}
	depths := make([]int, 0, len(byDepth))
	for d := range byDepth {
		depths = append(depths, d)
	}
	slices.Sort(depths)
	for i := len(depths) - 1; i >= 0; i-- {
		pvs := byDepth[depths[i]]
		if len(pvs) < want {
			continue
		}
		out := make([]Scored, want)
		for k := range want {
			out[k] = pvs[k+1]
		}
		return out, nil
	}
	return nil, fmt.Errorf("no iteration reported %d lines", want)
}
