package nnuedata

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/cputime"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/internal/jsonl"
)

// MetricsFile is the JSON-lines log a generator appends to in its
// directory: a Metric for every shard written and one when it stops.
const MetricsFile = "metrics.jsonl"

// Metric is one line of MetricsFile.
type Metric struct {
	Time  time.Time `json:"time"`
	Event string    `json:"event"` // "shard" or "stop"
	Shard int       `json:"shard,omitempty"`
	// Positions and Games are the directory's, in its written shards;
	// Target is what this sitting generates towards.
	Positions int `json:"positions"`
	Games     int `json:"games"`
	Target    int `json:"target"`
	// Sitting's figures: the records and games written, wall and CPU time
	// of this process (internal/cputime: every thread, the work counted
	// as CPU-hours).
	SittingPositions int     `json:"sitting_positions"`
	SittingGames     int     `json:"sitting_games"`
	WallSeconds      float64 `json:"wall_s"`
	CPUSeconds       float64 `json:"cpu_s"`
	// CPUTotalSeconds is the CPU time of every sitting that wrote into the
	// directory, up to this line.
	CPUTotalSeconds float64 `json:"cpu_total_s"`
	Budget          Budget  `json:"budget"`
	Eval            string  `json:"eval"`
	Threads         int     `json:"threads"`
	// Stats is the directory's games.
	Stats Stats `json:"stats"`
}

// Summary is what Generate did.
type Summary struct {
	Target int
	// Before and Total are the records in the directory before and after.
	Before, Total int
	// Records, Games, Shards and Stats are this sitting's written ones.
	Records, Games, Shards int
	Stats                  Stats
	// DirStats is the directory's games, every shard's.
	DirStats  Stats
	DirGames  int
	Wall      time.Duration
	CPU       time.Duration // this process
	CPUTotal  time.Duration // every sitting's, from the metrics
	Stopped   bool          // ctx ended before the target
	Threads   int
	Budget    Budget
	EvalName  string
	Completed bool // the directory already held the target
}

// Events are what a caller learns as Generate runs; each is called from
// Generate's own goroutine, never concurrently.
type Events struct {
	// Start: the directory held before records; the sitting generates
	// towards target.
	Start func(before, target int)
	// Game: a game finished with records (they reach a shard when it is
	// full).
	Game func(records int, st Stats)
	// Shard: a shard was written.
	Shard func(path string, h *Header, m *Metric)
}

// plan is a shard to make: its number and the records to fill it to.
type plan struct{ seq, target int }

// workerMsg is what a worker reports to Generate's goroutine.
type workerMsg struct {
	game    *Game
	shard   *Header
	path    string
	err     error
	stopped bool
}

// maxEmptyGames bounds the games in a row that record nothing before a
// worker gives up: the settings skip everything.
const maxEmptyGames = 200

// Generate fills dir with shards until it holds at least target records,
// playing opt.Threads games at once. Run again on the same directory it
// goes on from the shards there: a killed run leaves only whole shards
// (and temporary files, removed here), the shards that were being filled
// are played anew from their own seeds, and new shards take numbers no
// shard had, so no game is replayed into the directory. A directory holds
// one budget's and one evaluation's records: another is refused.
func Generate(ctx context.Context, dir string, target int, opt Options, ev Events) (Summary, error) {
	sum := Summary{Target: target, Threads: opt.Threads, Budget: opt.Budget, EvalName: opt.Eval.Name}
	if err := opt.check(); err != nil {
		return sum, fmt.Errorf("nnuedata: %w", err)
	}
	if target < 1 {
		return sum, fmt.Errorf("nnuedata: target of %d records: want at least 1", target)
	}
	if _, err := alphabeta.New(opt.search()); err != nil {
		return sum, fmt.Errorf("nnuedata: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sum, fmt.Errorf("nnuedata: %w", err)
	}
	release, err := lockDir(dir)
	if err != nil {
		return sum, err
	}
	defer release()
	// The lock is held: any temporary file is a killed writer's.
	if n, err := atomicfile.RemoveStale(dir, 0); err != nil {
		return sum, err
	} else if n > 0 {
		slog.Info("nnuedata: removed the temporary files of a stopped run", "dir", dir, "files", n)
	}
	have, err := existing(dir, &opt)
	if err != nil {
		return sum, err
	}

	for _, h := range have {
		sum.Before += h.Records
		sum.DirGames += h.Games
		sum.DirStats.Add(h.Stats)
	}
	sum.Total = sum.Before
	metricsPath := filepath.Join(dir, MetricsFile)
	cpuBefore, err := lastCPUTotal(metricsPath)
	if err != nil {
		return sum, err
	}
	sum.CPUTotal = cpuBefore
	if ev.Start != nil {
		ev.Start(sum.Before, target)
	}
	if sum.Before >= target {
		sum.Completed = true
		return sum, nil
	}
	if missing := missingShards(have); len(missing) > 0 {
		slog.Info("nnuedata: the shards a stopped run was filling are played first", "dir", dir, "shards", missing)
	}
	log, err := jsonl.Open(metricsPath)
	if err != nil {
		return sum, fmt.Errorf("nnuedata: metrics: %w", err)
	}
	defer log.Close()

	start := time.Now()
	cpu0, _ := cputime.Process()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	plans := make(chan plan)
	go func() {
		defer close(plans)
		for _, p := range planShards(have, sum.Before, target, opt.ShardRecords) {
			select {
			case plans <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	msgs := make(chan workerMsg, opt.Threads)
	var wg sync.WaitGroup
	for range opt.Threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(ctx, dir, &opt, plans, msgs)
		}()
	}
	go func() {
		wg.Wait()
		close(msgs)
	}()
	metric := func(event string, seq int) Metric {
		cpu, _ := cputime.Process()
		sum.CPU = cpu - cpu0
		sum.CPUTotal = cpuBefore + sum.CPU
		sum.Wall = time.Since(start)
		return Metric{Time: time.Now().UTC(), Event: event, Shard: seq, Positions: sum.Total, Games: sum.DirGames,
			Target: target, SittingPositions: sum.Records, SittingGames: sum.Games,
			WallSeconds: sum.Wall.Seconds(), CPUSeconds: sum.CPU.Seconds(), CPUTotalSeconds: sum.CPUTotal.Seconds(),
			Budget: opt.Budget, Eval: opt.Eval.Name, Threads: opt.Threads, Stats: sum.DirStats}
	}
	var firstErr error
	for m := range msgs {
		switch {
		case m.err != nil:
			if firstErr == nil {
				firstErr = m.err
				cancel()
			}
		case m.stopped:
		case m.game != nil:
			if ev.Game != nil {
				ev.Game(len(m.game.Records), m.game.Stats)
			}
		case m.shard != nil:
			h := m.shard
			sum.Shards++
			sum.Records += h.Records
			sum.Games += h.Games
			sum.Stats.Add(h.Stats)
			sum.Total += h.Records
			sum.DirGames += h.Games
			sum.DirStats.Add(h.Stats)
			line := metric("shard", h.Seq)
			if err := log.Append(line); err != nil && firstErr == nil {
				firstErr = fmt.Errorf("nnuedata: metrics: %w", err)
				cancel()
			}
			if ev.Shard != nil {
				ev.Shard(m.path, h, &line)
			}
		}
	}
	sum.Stopped = sum.Total < target
	if err := log.Append(metric("stop", 0)); err != nil && firstErr == nil {
		firstErr = fmt.Errorf("nnuedata: metrics: %w", err)
	}
	if firstErr != nil {
		return sum, firstErr
	}
	return sum, nil
}

// work plays the planned shards it takes until there are none or ctx
// ends.
func work(ctx context.Context, dir string, opt *Options, plans <-chan plan, msgs chan<- workerMsg) {
	s, err := alphabeta.New(opt.search())
	if err != nil {
		msgs <- workerMsg{err: fmt.Errorf("nnuedata: %w", err)}
		return
	}
	for p := range plans {
		h := Header{Game: "xiangqi", Seq: p.seq, Seed: opt.Seed, Budget: opt.Budget, Eval: opt.Eval.Name, Settings: opt.settings()}
		var recs []Record
		empty := 0
		for j := 0; len(recs) < p.target; j++ {
			g, err := PlayGame(ctx, s, opt, GameSeed(opt.Seed, p.seq, j))
			if err != nil {
				if ctx.Err() != nil {
					msgs <- workerMsg{stopped: true}
				} else {
					msgs <- workerMsg{err: fmt.Errorf("nnuedata: shard %d, game %d: %w", p.seq, j, err)}
				}
				return
			}
			if len(g.Records) == 0 {
				if empty++; empty >= maxEmptyGames {
					msgs <- workerMsg{err: fmt.Errorf("nnuedata: shard %d: %d games in a row recorded no position (are the settings skipping every one?)", p.seq, empty)}
					return
				}
			} else {
				empty = 0
			}
			recs = append(recs, g.Records...)
			h.Games++
			h.GameRecords = append(h.GameRecords, len(g.Records))
			h.Stats.Add(g.Stats)
			msgs <- workerMsg{game: &g}
		}
		path, err := Write(dir, h, recs)
		if err != nil {
			msgs <- workerMsg{err: err}
			return
		}
		h.Records = len(recs)
		msgs <- workerMsg{shard: &h, path: path}
	}
}

// planShards lists the shards to make: first the numbers below the
// highest shard that are missing (shards a killed run was filling while a
// later one was written), then new numbers, each filled to records or to
// what is left of the target.
func planShards(have map[int]Header, before, target, records int) []plan {
	var out []plan
	for seq, left := 0, target-before; left > 0; seq++ {
		if _, ok := have[seq]; ok {
			continue
		}
		n := min(records, left)
		out = append(out, plan{seq, n})
		left -= n
	}
	return out
}

// missingShards lists the numbers below the highest shard that no shard
// has.
func missingShards(have map[int]Header) []int {
	top := -1
	for seq := range have {
		top = max(top, seq)
	}
	var out []int
	for seq := range top {
		if _, ok := have[seq]; !ok {
			out = append(out, seq)
		}
	}
	return out
}

// existing reads the headers of dir's shards (each file checked whole)
// and refuses a directory of another budget or evaluation.
func existing(dir string, opt *Options) (map[int]Header, error) {
	list, err := List(dir)
	if err != nil {
		return nil, err
	}
	have := make(map[int]Header, len(list))
	for _, s := range list {
		h, err := ReadHeader(s.Path)
		if err != nil {
			return nil, fmt.Errorf("%w (remove the file and run again to play the shard anew)", err)
		}
		if h.Seq != s.Seq {
			return nil, fmt.Errorf("nnuedata: %s holds shard %d", s.Path, h.Seq)
		}
		if h.Budget != opt.Budget || h.Eval != opt.Eval.Name {
			return nil, fmt.Errorf("nnuedata: %s holds games at %s with the %s evaluation; this run asks for %s with %s: give another directory",
				dir, h.Budget, h.Eval, opt.Budget, opt.Eval.Name)
		}
		have[h.Seq] = h
	}
	return have, nil
}

// maxMetrics bounds the metrics file read for the CPU time of earlier
// sittings (a line a shard: millions of shards).
const maxMetrics = 256 << 20

// lastCPUTotal returns the CPU time of every earlier sitting: the last
// whole line of the metrics file that states one.
func lastCPUTotal(path string) (time.Duration, error) {
	b, err := inputfile.ReadFile(path, "metrics file", maxMetrics)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("nnuedata: %w", err)
	}
	lines := bytes.Split(b, []byte{'\n'})
	for i := len(lines) - 1; i >= 0; i-- {
		var m Metric
		if json.Unmarshal(lines[i], &m) == nil && m.CPUTotalSeconds > 0 {
			return time.Duration(m.CPUTotalSeconds * float64(time.Second)), nil
		}
	}
	return 0, nil
}
