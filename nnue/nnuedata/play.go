package nnuedata

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// Eval is the evaluation the games are searched with.
type Eval struct {
	// Name is recorded in every shard: "classical", or a network's name
	// with its checksum. A directory holds one evaluation's games.
	Name string
	// Wrap returns the position the search runs on, made from p (a copy
	// the game gives away): p itself for the classical evaluation (nil
	// Wrap), a network's position with its accumulator for a learned one.
	// It is called from several goroutines at once.
	Wrap func(p *xiangqi.Position) alphabeta.Position
}

// Classical is the hand-written evaluation of package xiangqi.
var Classical = Eval{Name: "classical"}

// Options are the generator's settings. DefaultOptions gives the defaults
// that a caller then changes.
type Options struct {
	Budget Budget
	Eval   Eval
	// Search is the alpha-beta's options; Threads is forced to one (the
	// games run in parallel instead, and one thread is deterministic).
	Search alphabeta.Options
	Rules  xiangqi.Rules
	// RandomPlies: each game starts with a number of uniformly random
	// legal moves drawn from [RandomPlies[0], RandomPlies[1]], played
	// from the start or from an opening; those positions are not
	// recorded.
	RandomPlies [2]int
	// RandomMoveProb is the chance that a move before ply RandomMoveUntil
	// is a uniformly random one instead of the search's (the position is
	// still searched and recorded).
	RandomMoveProb  float64
	RandomMoveUntil int
	// Openings, when any, are the positions games start from, one drawn
	// uniformly a game; OpeningsName names them in the shards.
	Openings     []*xiangqi.Position
	OpeningsName string
	// A game is adjudicated won when the search's score has been at least
	// ResignScore for the same side for ResignPlies plies in a row (mate
	// scores included), and drawn when from ply DrawAfter on it has been
	// within DrawScore of zero for DrawPlies plies in a row. Zero plies
	// turn a rule off.
	ResignScore, ResignPlies        int
	DrawScore, DrawPlies, DrawAfter int
	// SkipMate leaves out the positions whose score is a mate.
	SkipMate bool
	// Seed makes every random choice: game j of shard s is seeded
	// GameSeed(Seed, s, j), whatever worker plays it.
	Seed uint64
	// Threads is the games played at once (one search thread each).
	Threads int
	// ShardRecords is the records a shard is filled to: its last game
	// ends at or past it (the last shard of a target: at or past what is
	// left).
	ShardRecords int
}

// DefaultShardRecords is the records of a shard by default: a few minutes
// of a core's games at the budgets measured in docs/nnue.md, and what a
// killed generator loses at most per thread.
const DefaultShardRecords = 16384

// DefaultOptions returns the defaults: the classical evaluation at 5,000
// nodes a move with the alpha-beta's measured options (16 MiB of table a
// game), 6-10 random plies, resigning at 2,000 for 8 plies, drawing
// within 10 of zero for 40 plies from ply 120 on, a game at a time.
func DefaultOptions() Options {
	search := alphabeta.DefaultOptionsFor(xiangqi.Name)
	search.HashMiB = 16
	return Options{
		Budget:          Budget{Nodes: 5000},
		Eval:            Classical,
		Search:          search,
		Rules:           xiangqi.DefaultRules,
		RandomPlies:     [2]int{6, 10},
		RandomMoveUntil: 40,
		ResignScore:     2000,
		ResignPlies:     8,
		DrawScore:       10,
		DrawPlies:       40,
		DrawAfter:       120,
		Threads:         1,
		ShardRecords:    DefaultShardRecords,
	}
}

// check reports settings the generator cannot run with.
func (o *Options) check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.Budget.Depth <= 0 && o.Budget.Nodes == 0 {
		bad("no search budget: give a depth, nodes or both")
	}
	if o.Budget.Depth < 0 || o.Budget.Depth > maxDepth {
		bad("depth %d: want 1 to %d", o.Budget.Depth, maxDepth)
	}
	if o.Eval.Name == "" {
		bad("the evaluation has no name")
	}
	if lo, hi := o.RandomPlies[0], o.RandomPlies[1]; lo < 0 || hi < lo || hi > 200 {
		bad("random plies %d-%d: want 0 <= min <= max <= 200", lo, hi)
	}
	if !(o.RandomMoveProb >= 0 && o.RandomMoveProb <= 1) {
		bad("random move chance %v: want 0 to 1", o.RandomMoveProb)
	}
	if o.ResignScore < 0 || o.ResignPlies < 0 || o.DrawScore < 0 || o.DrawPlies < 0 || o.DrawAfter < 0 || o.RandomMoveUntil < 0 {
		bad("adjudication and random move settings must not be negative")
	}
	if o.Threads < 1 {
		bad("threads %d: want at least 1", o.Threads)
	}
	if o.ShardRecords < 1 || o.ShardRecords > MaxRecords/2 {
		bad("shard records %d: want 1 to %d", o.ShardRecords, MaxRecords/2)
	}
	return errors.Join(errs...)
}

// settings is what the shards record of o.
func (o *Options) settings() Settings {
	return Settings{RandomPlies: o.RandomPlies, RandomMoveProb: o.RandomMoveProb, RandomMoveUntil: o.RandomMoveUntil,
		Openings: o.OpeningsName, ResignScore: o.ResignScore, ResignPlies: o.ResignPlies,
		DrawScore: o.DrawScore, DrawPlies: o.DrawPlies, DrawAfter: o.DrawAfter, SkipMate: o.SkipMate,
		Search: fmt.Sprintf("%+v", o.search())}
}

func (o *Options) search() alphabeta.Options {
	s := o.Search
	s.Threads = 1
	return s
}

func (o *Options) limits() alphabeta.Limits {
	return alphabeta.Limits{Depth: o.Budget.Depth, Nodes: o.Budget.Nodes}
}

// mix64 is SplitMix64's step: seeds for games.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// GameSeed is the seed of game j of shard seq under the run's seed: a
// game's moves depend on it alone, so a shard is the same whichever
// worker plays it and however many play, and shards never replay each
// other's games.
func GameSeed(seed uint64, seq, j int) uint64 {
	return mix64(mix64(mix64(seed)+uint64(seq)) + uint64(j))
}

// Adjudication reasons beside the rules' (xiangqi.Reason*).
const (
	ReasonResign  = "resign adjudication"
	ReasonDrawn   = "draw adjudication"
	ReasonOpening = "no open random opening"
)

// Game is one played game.
type Game struct {
	// Start is the position the game started from (the start position or
	// an opening), Moves every move from it, random plies included.
	Start *xiangqi.Position
	Moves []game.Move
	// Opening is the random plies that begin Moves.
	Opening int
	// Result is the game's result for Red: 1 Red won, 0 draw, -1 Black
	// won; Reason says how it ended.
	Result int
	Reason string
	// Records are the recorded positions, in the game's order.
	Records []Record
	Stats   Stats
}

// PlayGame plays one game with s (cleared first, so the game depends on
// seed alone). It returns ctx's error when ctx ends first.
func PlayGame(ctx context.Context, s *alphabeta.Searcher, o *Options, seed uint64) (Game, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6e6e756564617461))
	var p *xiangqi.Position
	if len(o.Openings) > 0 {
		p = o.Openings[rng.IntN(len(o.Openings))].Copy()
	} else {
		p = xiangqi.New(o.Rules)
	}
	g := Game{Start: p.Copy()}
	plies := o.RandomPlies[0] + rng.IntN(o.RandomPlies[1]-o.RandomPlies[0]+1)
	opening, err := game.RandomOpening(p, plies, rng)
	if err != nil {
		// Every draw of that many plies ended the game: a game without
		// records, counted as a draw so the games still add up.
		g.Reason = ReasonOpening
		g.Stats.Draws++
		return g, nil
	}
	for _, m := range opening {
		p.Make(m)
	}
	g.Moves = append(g.Moves, opening...)
	g.Opening = len(opening)
	var sp alphabeta.Position = p.Copy()
	if o.Eval.Wrap != nil {
		sp = o.Eval.Wrap(p.Copy())
	}
	s.Clear()
	lim := o.limits()
	resignRun, resignSide, drawRun := 0, 0, 0
	startPly := g.Start.Ply()
	for {
		if st := p.Status(); st.Over() {
			g.Result, g.Reason = int(st.Result.Value()), st.Reason
			if p.SideToMove() == game.Second {
				g.Result = -g.Result
			}
			break
		}
		res := s.Search(ctx, sp, lim, nil)
		if err := ctx.Err(); err != nil {
			return Game{}, err
		}
		if res.Move == game.NoMove {
			return Game{}, fmt.Errorf("nnuedata: the search found no move in %s", p)
		}
		g.Stats.Searched++
		g.Stats.Nodes += res.Nodes
		_, captured := p.PieceAt(xiangqi.To(res.Move))
		switch {
		case p.InCheck():
			g.Stats.SkipCheck++
		case captured != xiangqi.NoType:
			g.Stats.SkipCapture++
		case o.SkipMate && alphabeta.IsMate(res.Score):
			g.Stats.SkipMate++
		default:
			r, err := FromPosition(p)
			if err != nil {
				return Game{}, err
			}
			r.SetScore(res.Score)
			r.Move = uint16(res.Move)
			r.Depth = uint8(min(res.Depth, maxDepth))
			g.Records = append(g.Records, r)
		}
		// Adjudication on the scores seen from Red.
		red := res.Score
		if p.SideToMove() == game.Second {
			red = -red
		}
		if o.ResignPlies > 0 && abs(red) >= o.ResignScore && red != 0 {
			if sign(red) == resignSide {
				resignRun++
			} else {
				resignSide, resignRun = sign(red), 1
			}
		} else {
			resignRun = 0
		}
		if o.DrawPlies > 0 && p.Ply() >= o.DrawAfter && abs(red) <= o.DrawScore {
			drawRun++
		} else {
			drawRun = 0
		}
		if o.ResignPlies > 0 && resignRun >= o.ResignPlies {
			g.Result, g.Reason = resignSide, ReasonResign
			g.Stats.Resigned++
			break
		}
		if o.DrawPlies > 0 && drawRun >= o.DrawPlies {
			g.Result, g.Reason = 0, ReasonDrawn
			g.Stats.Adjudicated++
			break
		}
		m := res.Move
		if o.RandomMoveProb > 0 && p.Ply() < o.RandomMoveUntil && rng.Float64() < o.RandomMoveProb {
			ms := p.GenerateMoves(nil)
			m = ms[rng.IntN(len(ms))]
		}
		p.Make(m)
		sp.Make(m)
		g.Moves = append(g.Moves, m)
	}
	// The result for each record's side to move.
	for i := range g.Records {
		g.Records[i].Result = int8(g.Result)
		if g.Records[i].Side == 1 {
			g.Records[i].Result = -int8(g.Result)
		}
	}
	switch g.Result {
	case 1:
		g.Stats.RedWins++
	case -1:
		g.Stats.BlackWins++
	default:
		g.Stats.Draws++
	}
	g.Stats.Plies += p.Ply() - startPly
	return g, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
