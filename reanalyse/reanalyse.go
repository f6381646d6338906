// Package reanalyse gives stored replay samples new targets from a
// network: each position's policy and root value become the network's own
// (zero simulations: the network distilled into whatever trains on them)
// or its search's (MuZero's Reanalyse), while the game's result, the
// position and its place in the game stay. tabula reanalyse uses it.
package reanalyse

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/mcts"
)

// Options say how a position is searched.
type Options struct {
	// Simulations per position; 0 takes the network's policy over the
	// legal moves and its value as they are.
	Simulations int
	MCTS        mcts.Config // the search's settings (Simulations > 0)
	// Parallel is the number of positions in flight, which is what fills
	// the evaluator's batches.
	Parallel int
	// Seed seeds each position's search (Gumbel's draws): the same seed
	// gives the same targets.
	Seed uint64
}

// Samples returns copies of samples whose Policy and RootValue are the
// evaluator's (or its search's) for their positions, parsed under rules
// and encoded by g's encoder. eval must be running (a Batcher's Run).
func Samples(ctx context.Context, g game.Game, rules game.Options, eval mcts.Evaluator, samples []data.Sample, opt Options) ([]data.Sample, error) {
	if opt.Simulations < 0 {
		return nil, fmt.Errorf("reanalyse: %d simulations: must be at least 0", opt.Simulations)
	}
	out := slices.Clone(samples)
	var next atomic.Int64
	grp, ctx := errgroup.WithContext(ctx)
	for range max(1, opt.Parallel) {
		grp.Go(func() error {
			var moves []game.Move
			priors := make([]float32, 256)
			for {
				i := int(next.Add(1)) - 1
				if i >= len(out) || ctx.Err() != nil {
					return ctx.Err()
				}
				s := &out[i]
				p, err := g.Parse(s.Position, rules)
				if err != nil {
					return fmt.Errorf("reanalyse: sample %d: %w", i, err)
				}
				if p.Status().Over() {
					return fmt.Errorf("reanalyse: sample %d: the game is over in %s", i, s.Position)
				}
				var value float32
				var policy []float32
				if opt.Simulations == 0 {
					moves = p.GenerateMoves(moves)
					if len(priors) < len(moves) {
						priors = make([]float32, len(moves))
					}
					if value, err = eval.Evaluate(p, moves, priors); err != nil {
						return fmt.Errorf("reanalyse: sample %d: %w", i, err)
					}
					policy = priors[:len(moves)]
				} else {
					rng := rand.New(rand.NewPCG(opt.Seed, s.GameID<<16^uint64(s.Ply)))
					res, err := mcts.NewTree(opt.MCTS, eval, p, rng).Search(ctx, opt.Simulations, false)
					if err != nil {
						return fmt.Errorf("reanalyse: sample %d: %w", i, err)
					}
					moves, policy, value = res.Moves, res.Policy, res.Value
				}
				s.Policy = make([]data.PolicyEntry, 0, len(moves))
				for j, m := range moves {
					if policy[j] > 0 {
						s.Policy = append(s.Policy, data.PolicyEntry{Action: g.Encoder.ActionIndex(p, m), Prob: policy[j]})
					}
				}
				s.RootValue = max(-1, min(1, value))
			}
		})
	}
	if err := grp.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// Dir reanalyses every shard of the directory in into out, each under
// its own file name, with the header's encoder version set to g's. A shard
// already in out is left as it is, so a stopped Dir goes on where it
// stopped; shards are written whole and atomically. progress, if set, is
// called before the first shard and after each, with the shards done and
// to do in this call (those already in out left out) and the samples done.
func Dir(ctx context.Context, in, out string, g game.Game, rules game.Options, eval mcts.Evaluator, opt Options, progress func(done, total, samples int)) (shards, samples int, err error) {
	if filepath.Clean(in) == filepath.Clean(out) {
		return 0, 0, fmt.Errorf("reanalyse: the output directory %s is the input's: the samples would be replaced", out)
	}
	es, err := os.ReadDir(in)
	if err != nil {
		return 0, 0, fmt.Errorf("reanalyse: %w", err)
	}
	var names []string
	found := 0
	for _, e := range es {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, data.Ext) || strings.HasPrefix(n, ".") {
			continue
		}
		found++
		if _, err := os.Stat(filepath.Join(out, n)); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return 0, 0, fmt.Errorf("reanalyse: %w", err)
		}
		names = append(names, n)
	}
	if found == 0 {
		return 0, 0, fmt.Errorf("reanalyse: no shards (*%s) in %s", data.Ext, in)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, 0, fmt.Errorf("reanalyse: %w", err)
	}
	if progress != nil {
		progress(0, len(names), 0)
	}
	for _, n := range names {
		h, ss, err := data.Read(filepath.Join(in, n))
		if err != nil {
			return shards, samples, fmt.Errorf("reanalyse: %w", err)
		}
		if h.Game != g.Name {
			return shards, samples, fmt.Errorf("reanalyse: %s holds %s samples, the network plays %s", n, h.Game, g.Name)
		}
		if ss, err = Samples(ctx, g, rules, eval, ss, opt); err != nil {
			return shards, samples, fmt.Errorf("%w (shard %s)", err, n)
		}
		h.EncoderVersion = g.Encoder.Version()
		b, err := data.Encode(h, ss)
		if err != nil {
			return shards, samples, err
		}
		// The shard keeps its file's name, which orders it in a window
		// (a copy renamed to sort first keeps that place).
		if err := atomicfile.WriteBytes(filepath.Join(out, n), b, 0o644); err != nil {
			return shards, samples, fmt.Errorf("reanalyse: %w", err)
		}
		shards++
		samples += len(ss)
		if progress != nil {
			progress(shards, len(names), samples)
		}
	}
	return shards, samples, nil
}
