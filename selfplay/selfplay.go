// Package selfplay is the self-play worker: many games in parallel, each
// searched by its own MCTS tree, all sharing one batching evaluator, with
// finished games written as replay shards. tabula selfplay and tabula
// train use it.
package selfplay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tabula-zero/tabula/abzero"
	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/player"
)

// Setup is what a worker reads of a run's config: the game with the
// network's encoder (configs.Config.LookupGame), its rule options, the
// run's seed (GameSeed), and the search and self-play sections.
type Setup struct {
	Game     game.Game
	Rules    map[string]string
	Seed     uint64
	Search   configs.Search
	SelfPlay configs.SelfPlay
}

// ConfigSetup is the setup of the run config cfg: its game with the
// network's encoder, its rules, its seed, and its search and self-play
// sections.
func ConfigSetup(cfg *configs.Config) (Setup, error) {
	g, err := cfg.LookupGame()
	if err != nil {
		return Setup{}, err
	}
	return Setup{Game: g, Rules: cfg.Rules, Seed: cfg.Seed, Search: cfg.Search, SelfPlay: cfg.SelfPlay}, nil
}

// Options are the worker's settings beyond the run config.
type Options struct {
	ReplayDir string // where shards go
	Worker    string // worker name in shard names (letters, digits, '_', '.')
	// OnShard, if set, is called after each shard is written.
	OnShard func(path string, samples []data.Sample)
	// Live, if set, follows one game at a time as it is played (the
	// dashboard's live board).
	Live *Live
}

// Worker plays self-play games. Create it with New, start the evaluator
// loop with Run's context, and switch networks with SetNetwork.
type Worker struct {
	sp    configs.SelfPlay
	srch  configs.Search
	opts  Options
	game  game.Game
	rules game.Options
	mcfg  mcts.Config
	fwd   mcts.Forwarder
	batch *mcts.Batcher   // the current Run's evaluator
	done  mcts.BatchStats // counters of earlier Runs
	ran   bool            // w.batch's loop has run

	gate       sync.RWMutex // each move holds it shared; a network switch takes it
	generation atomic.Int64

	// Games Pause stopped between moves, for the next Run.
	pausing atomic.Bool
	parkMu  sync.Mutex
	parked  []*inPlay

	nextGame atomic.Uint64
	// recorded counts the positions recorded as samples, games in flight
	// included: a rate that does not wait for games to end (Recorded).
	recorded atomic.Int64
	stats    Stats
	pauseAt  int64 // Stats.Samples at which to Pause (0: none); under statsMu
	statsMu  sync.Mutex

	shardMu sync.Mutex
	pending []data.Sample
	seq     int
	// seed is the PCG seed of this worker's games, game ID the stream
	// (GameSeed).
	seed uint64

	// The Alpha-Beta-Zero mover of early generations (nil: off): its
	// weight schedule and a pool of alpha-beta searchers, one per game.
	abzM  *configs.Schedule
	abzSP sync.Pool
}

// Stats counts the worker's games.
type Stats struct {
	Games, Samples, Plies int64
	// Results from the first player's view.
	FirstWins, Draws, SecondWins int64
	Shards                       int64
}

// New returns a worker for s using the network fwd of the given
// generation.
func New(s Setup, opts Options, fwd mcts.Forwarder, generation int) (*Worker, error) {
	g := s.Game
	if g.Encoder == nil {
		return nil, errors.New("selfplay: the setup has no game")
	}
	rules, err := g.Resolve(game.Options(s.Rules))
	if err != nil {
		return nil, err
	}
	if err := data.CheckWorker(opts.Worker); err != nil {
		return nil, fmt.Errorf("selfplay: %w", err)
	}
	w := &Worker{sp: s.SelfPlay, srch: s.Search, opts: opts, game: g, rules: rules, mcfg: player.RunSearch(s.Search), fwd: fwd}
	w.seq = NextShardSeq(opts.ReplayDir, opts.Worker)
	w.seed = GameSeed(s.Seed, opts.Worker, w.seq)
	if w.batch, err = w.newBatcher(); err != nil {
		return nil, err
	}
	if az := s.SelfPlay.ABZero; az.Generations > 0 {
		if err := w.setupABZero(az); err != nil {
			return nil, err
		}
	}
	w.generation.Store(int64(generation))
	return w, nil
}

// newBatcher makes the evaluator of one Run (a batcher's loop runs once).
func (w *Worker) newBatcher() (*mcts.Batcher, error) {
	sp := w.sp
	return mcts.NewBatcher(w.fwd, w.game.Encoder, mcts.BatchConfig{
		MaxBatch:   sp.BatchSize,
		FlushAfter: time.Duration(sp.FlushAfterMicros) * time.Microsecond,
		CacheSize:  sp.CacheSize,
	})
}

// Stats returns a snapshot of the counters.
func (w *Worker) Stats() Stats {
	w.statsMu.Lock()
	defer w.statsMu.Unlock()
	return w.stats
}

// BatchStats returns the evaluator's counters over all Runs.
func (w *Worker) BatchStats() mcts.BatchStats {
	w.statsMu.Lock()
	b, d := w.batch, w.done
	w.statsMu.Unlock()
	s := b.Stats()
	s.Requests += d.Requests
	s.CacheHits += d.CacheHits
	s.Batches += d.Batches
	s.Positions += d.Positions
	s.Forward += d.Forward
	s.Wall += d.Wall
	return s
}

// Recorded returns how many positions the worker's games have recorded
// as samples so far, those of games still in play included, before
// surprise weighting (whose mean is 1): a rate of samples over a window
// shorter than a game (the benchmark's Xiangqi teacher).
func (w *Worker) Recorded() int64 { return w.recorded.Load() }

// Generation returns the generation of the network in use.
func (w *Worker) Generation() int { return int(w.generation.Load()) }

// SetNetwork switches to a newer network between moves: it waits until
// the moves in flight are made, holds the next ones back, swaps, and lets
// them go. New games start with the new network; a game in flight goes on
// with it from a fresh tree at its position. Teacher or blend, and the
// blend's weight, stay those of the generation a game began under.
func (w *Worker) SetNetwork(fwd mcts.Forwarder, generation int) {
	w.gate.Lock()
	defer w.gate.Unlock()
	w.fwd = fwd
	w.batch.SetForwarder(fwd)
	w.generation.Store(int64(generation))
}

// NextNetwork returns a network newer than generation gen and its
// generation, or a nil Forwarder when there is none yet.
type NextNetwork func(gen int) (mcts.Forwarder, int, error)

// Follow asks next every interval for a network newer than gen (the
// generation playing now) and switches to it (SetNetwork), until ctx
// ends. A failed look is logged and tried again at the next tick.
func (w *Worker) Follow(ctx context.Context, every time.Duration, gen int, next NextNetwork, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if ctx.Err() != nil { // select picks at random when both are ready
			return
		}
		fwd, g, err := next(gen)
		if err != nil {
			log.Warn("looking for a newer network", "err", err)
			continue
		}
		if fwd != nil {
			w.SetNetwork(fwd, g)
			gen = g
		}
	}
}

// Run plays games until games have been played (0: no limit), the
// duration has passed (0: no limit), ctx is done (games in flight are
// lost) or Pause is called (they are kept), ParallelGames at a time.
// Games an earlier Pause parked go on first and do not count towards
// games. Finished games are flushed to a shard before it returns.
func (w *Worker) Run(ctx context.Context, games int, duration time.Duration) error {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if duration > 0 {
		runCtx, cancel = context.WithTimeout(runCtx, duration)
		defer cancel()
	}
	w.gate.Lock()
	if w.ran { // a batcher's loop runs once
		b, err := w.newBatcher()
		if err != nil {
			w.gate.Unlock()
			return err
		}
		w.statsMu.Lock()
		old := w.batch.Stats()
		w.done.Requests += old.Requests
		w.done.CacheHits += old.CacheHits
		w.done.Batches += old.Batches
		w.done.Positions += old.Positions
		w.done.Forward += old.Forward
		w.done.Wall += old.Wall
		w.batch = b
		w.statsMu.Unlock()
	}
	batch := w.batch
	w.ran = true
	w.gate.Unlock()
	loopDone := make(chan error, 1)
	go func() { loopDone <- batch.Run(runCtx) }()
	var started atomic.Int64
	eg, gameCtx := errgroup.WithContext(runCtx)
	for range w.sp.ParallelGames {
		eg.Go(func() error {
			for gameCtx.Err() == nil && !w.pausing.Load() {
				g := w.unpark()
				if g == nil && games > 0 && started.Add(1) > int64(games) {
					return nil
				}
				if err := w.playOne(gameCtx, g); err != nil {
					if gameCtx.Err() != nil {
						return nil // stopped: the time is up, ctx ended, or a game failed
					}
					return err
				}
			}
			return nil
		})
	}
	err := eg.Wait()
	cancel()
	<-loopDone
	ferr := w.flush(true)
	w.pausing.Store(false) // after the flush, whose OnShard may have paused
	w.statsMu.Lock()
	w.pauseAt = 0 // a PauseAfter this Run did not reach ends with it
	w.statsMu.Unlock()
	if err != nil {
		return err
	}
	return ferr
}

// playOne plays game g (a new one when nil) until it ends, and hands it
// to the shard writer, or until Pause, and parks it.
func (w *Worker) playOne(ctx context.Context, g *inPlay) error {
	var err error
	if g == nil {
		w.gate.RLock()
		g, err = w.begin(w.nextGame.Add(1) - 1)
		w.gate.RUnlock()
	}
	var rec Record
	done := false
	if err == nil {
		rec, done, err = w.playOn(ctx, g, true)
	}
	if err != nil {
		if errors.Is(err, mcts.ErrClosed) || ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	if !done {
		return nil
	}
	w.record(rec)
	return w.flush(false)
}

// playOn plays g's moves, each under the network gate, so that a network
// switch waits for the moves in flight and not for whole games, until the
// game ends (done, with its record) or, when pausable, until Pause (g is
// then parked).
func (w *Worker) playOn(ctx context.Context, g *inPlay, pausable bool) (rec Record, done bool, err error) {
	for {
		if pausable && w.pausing.Load() {
			w.park(g)
			return Record{}, false, nil
		}
		w.gate.RLock()
		w.follow(g)
		over, err := w.move(ctx, g)
		w.gate.RUnlock()
		if err != nil {
			w.abandon(g)
			return Record{}, false, err
		}
		if over {
			return w.finish(g), true, nil
		}
	}
}

// Pause makes a running Run return without losing work: every game stops
// before its next move and waits, parked, for the next Run, which goes on
// with it (with the network of that Run: see SetNetwork). Run returns
// once the finished games are flushed. A Pause while no Run plays makes
// the next one return at once.
func (w *Worker) Pause() { w.pausing.Store(true) }

// PauseAfter pauses (as Pause) the running or the next Run once n more
// samples than now are recorded, checked as each game ends, so that it
// gathers n samples plus at most the games that end while the others park.
func (w *Worker) PauseAfter(n int64) {
	w.statsMu.Lock()
	w.pauseAt = w.stats.Samples + n
	w.statsMu.Unlock()
}

func (w *Worker) park(g *inPlay) {
	w.parkMu.Lock()
	w.parked = append(w.parked, g)
	w.parkMu.Unlock()
}

// unpark takes the longest-parked game, or returns nil.
func (w *Worker) unpark() *inPlay {
	w.parkMu.Lock()
	defer w.parkMu.Unlock()
	if len(w.parked) == 0 {
		return nil
	}
	g := w.parked[0]
	w.parked = w.parked[1:]
	return g
}

// Record is a finished game.
type Record struct {
	ID      uint64
	Moves   []string
	Result  game.Result // from the first player's view
	Reason  string
	Samples []data.Sample
	// SurpriseWeights are the weights of the game's searched positions
	// under selfplay.surprise_weight (Samples then holds each position
	// about that many times).
	SurpriseWeights []float64
}

// GameSeed is the seed of a worker's games: a hash of the run seed, the
// worker's name and the shard sequence number it starts at. Workers with
// different names, and every start of a worker after it has written
// shards, play different games; a start that wrote nothing replays the
// games it lost. The three numbers are logged and the seed is in every
// shard's header, so each game can be replayed from it and its game ID.
func GameSeed(runSeed uint64, worker string, firstShard int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d", worker, firstShard)
	// One PCG output mixes the two into a well-spread seed.
	return rand.NewPCG(runSeed, h.Sum64()).Uint64()
}

// Seed returns the seed of the worker's games (GameSeed).
func (w *Worker) Seed() uint64 { return w.seed }

// Play plays one self-play game with the worker's seed and id: the same
// seed and id give the same game.
func (w *Worker) Play(ctx context.Context, id uint64) (Record, error) {
	g, err := w.begin(id)
	if err != nil {
		return Record{}, err
	}
	rec, _, err := w.playOn(ctx, g, false)
	return rec, err
}

// inPlay is a game between two of its moves: all Play keeps from one move
// to the next. A paused Run parks its games as these and the next Run goes
// on with them.
type inPlay struct {
	rec  Record
	rng  *rand.Rand
	tree *mcts.Tree
	// treeGen is the generation of the network behind the tree's
	// evaluations; gen the one the game began under, which decides
	// teacher or blend for the whole game.
	treeGen, gen int
	blend        *abzero.Blender
	teach        bool
	watched      bool
	sides        []game.Color
	surprise     []float64 // KL(policy target || prior) per sample
}

// begin sets up game id: its random opening, tree and movers. The caller
// holds the gate.
func (w *Worker) begin(id uint64) (*inPlay, error) {
	sp := w.sp
	g := &inPlay{rec: Record{ID: id}, rng: rand.New(rand.NewPCG(w.seed, id))}
	start, err := w.game.New(w.rules)
	if err != nil {
		return nil, err
	}
	if plies := openingPlies(sp, g.rng); plies > 0 {
		opening, err := game.RandomOpening(start, plies, g.rng)
		if err != nil {
			return nil, fmt.Errorf("selfplay: %w", err)
		}
		for _, m := range opening {
			g.rec.Moves = append(g.rec.Moves, start.FormatMove(m))
			start.Make(m)
		}
	}
	g.gen = w.Generation()
	g.tree, g.treeGen = mcts.NewTree(w.mcfg, w.batch, start, g.rng), g.gen
	if g.blend, err = w.blender(g.gen); err != nil {
		return nil, err
	}
	g.teach = g.blend != nil && g.gen < sp.ABZero.TeacherGenerations
	g.watched = w.opts.Live.claim(w.game.Name, id, g.gen, g.rec.Moves)
	return g, nil
}

// follow points g's tree at the worker's batcher (a parked game's was an
// earlier Run's) and network: a new tree at the game's position when the
// network changed since the tree's evaluations, so that no search mixes
// two networks. The caller holds the gate.
func (w *Worker) follow(g *inPlay) {
	if gen := w.Generation(); gen != g.treeGen {
		g.tree, g.treeGen = mcts.NewTree(w.mcfg, w.batch, g.tree.Position(), g.rng), gen
		return
	}
	g.tree.SetEvaluator(w.batch)
}

// move plays g's next move; over reports that the game has ended.
func (w *Worker) move(ctx context.Context, g *inPlay) (over bool, err error) {
	sp, s, az := w.sp, w.srch, w.sp.ABZero
	rec, rng := &g.rec, g.rng
	p := g.tree.Position()
	st := p.Status()
	if st.Over() {
		rec.Result, rec.Reason = fromFirst(st.Result, p.SideToMove()), st.Reason
		return true, nil
	}
	var res mcts.Result
	full := g.teach || s.FullSearchShare >= 1 || rng.Float64() < s.FullSearchShare
	if g.teach {
		var abres alphabeta.Result
		res, abres, err = g.blend.Teach(ctx, p, az.TeacherTemperature)
		if err != nil {
			return false, fmt.Errorf("selfplay: %w", err)
		}
		if az.ValueScale > 0 {
			res.Value = AlphaBetaValue(abres.Score, az.ValueScale)
		}
	} else {
		sims := s.Simulations
		if !full {
			sims = s.FastSimulations
		}
		if res, err = g.tree.Search(ctx, sims, full); err != nil {
			return false, err
		}
	}
	us := p.SideToMove()
	if full {
		smp := data.Sample{Position: p.String(), RootValue: clamp(res.Value), Ply: p.Ply(), GameID: rec.ID}
		for i, m := range res.Moves {
			if res.Policy[i] > 0 {
				smp.Policy = append(smp.Policy, data.PolicyEntry{Action: w.game.Encoder.ActionIndex(p, m), Prob: res.Policy[i]})
			}
		}
		rec.Samples = append(rec.Samples, smp)
		w.recorded.Add(1)
		g.sides = append(g.sides, us)
		g.surprise = append(g.surprise, klDivergence(res.Policy, res.Prior))
	}
	var m game.Move
	switch {
	case g.teach && p.Ply() < sp.TemperaturePlies:
		m = drawFromPolicy(res, rng)
	case g.teach:
		m = res.Best
	case p.Ply() < sp.TemperaturePlies:
		m = mcts.Pick(res, 1, rng)
	case g.blend != nil:
		d, err := g.blend.Blend(ctx, p, res)
		if err != nil {
			return false, fmt.Errorf("selfplay: %w", err)
		}
		m = d.Move
		if full && az.ValueScale > 0 {
			rec.Samples[len(rec.Samples)-1].RootValue = AlphaBetaValue(d.AlphaBeta.Score, az.ValueScale)
		}
	default:
		m = mcts.Pick(res, 0, rng)
	}
	rec.Moves = append(rec.Moves, p.FormatMove(m))
	if g.watched {
		w.opts.Live.move(rec.Moves[len(rec.Moves)-1], &res, p, g.treeGen)
	}
	return false, g.tree.Advance(m)
}

// finish scores the samples of the ended game g and releases its movers.
func (w *Worker) finish(g *inPlay) Record {
	sp, rec := w.sp, &g.rec
	end := g.tree.Position().Ply()
	for i := range rec.Samples {
		smp := &rec.Samples[i]
		smp.Result = resultFor(rec.Result, g.sides[i]).Value()
		if d := sp.Discount; d > 0 && d < 1 {
			smp.Result *= float32(math.Pow(d, float64(end-smp.Ply)))
		}
	}
	if a := sp.SurpriseWeight; a > 0 {
		rec.SurpriseWeights = surpriseWeights(g.surprise, a)
		rec.Samples = weighSamples(rec.Samples, rec.SurpriseWeights, g.rng)
	}
	w.abandon(g)
	return *rec
}

// abandon releases g's movers and its place on the live board.
func (w *Worker) abandon(g *inPlay) {
	if g.blend != nil {
		w.abzSP.Put(g.blend)
		g.blend = nil
	}
	if g.watched {
		w.opts.Live.end(resultText(g.rec.Result), cmp.Or(g.rec.Reason, "stopped"))
		g.watched = false
	}
}

// drawFromPolicy draws a root move in proportion to the result's policy.
func drawFromPolicy(res mcts.Result, rng *rand.Rand) game.Move {
	x := rng.Float64()
	for i, p := range res.Policy {
		if x -= float64(p); x < 0 {
			return res.Moves[i]
		}
	}
	return res.Best // rounding left x just above the sum
}

// klDivergence is KL(target || prior) in nats, the search's surprise at
// the network's policy (priors floored at 1e-6).
func klDivergence(target, prior []float32) float64 {
	kl := 0.0
	for i, t := range target {
		if t > 0 && i < len(prior) {
			kl += float64(t) * math.Log(float64(t)/math.Max(float64(prior[i]), 1e-6))
		}
	}
	return max(kl, 0)
}

// surpriseWeights are KataGo's policy-surprise weights of a game's
// samples: (1-a) + a * KL_i / mean(KL), which average 1.
func surpriseWeights(kl []float64, a float64) []float64 {
	mean := 0.0
	for _, k := range kl {
		mean += k / float64(len(kl))
	}
	w := make([]float64, len(kl))
	for i, k := range kl {
		w[i] = 1
		if mean > 0 {
			w[i] = (1 - a) + a*k/mean
		}
	}
	return w
}

// weighSamples writes each sample floor(w) times and once more with
// probability frac(w), so that the window draws it in proportion to its
// weight.
func weighSamples(samples []data.Sample, weights []float64, rng *rand.Rand) []data.Sample {
	var out []data.Sample
	for i, s := range samples {
		n := int(weights[i])
		if rng.Float64() < weights[i]-float64(n) {
			n++
		}
		for range n {
			out = append(out, s)
		}
	}
	return out
}

// setupABZero checks the Alpha-Beta-Zero settings against the game.
func (w *Worker) setupABZero(az configs.SelfPlayABZero) error {
	sched, err := configs.ParseSchedule(az.M)
	if err != nil {
		return fmt.Errorf("selfplay: abzero.m: %w", err)
	}
	start, err := w.game.New(w.rules)
	if err != nil {
		return err
	}
	if _, ok := start.(alphabeta.Position); !ok {
		return fmt.Errorf("selfplay: abzero: game %s has no alpha-beta search", w.game.Name)
	}
	w.abzM = &sched
	cfg := abzero.DefaultConfig(sched.At(0), az.Depth, 0)
	cfg.AlphaBeta.HashMiB = 1 // shallow searches; one table per game in flight
	if _, err := abzero.NewBlender(cfg); err != nil {
		return fmt.Errorf("selfplay: abzero: %w", err)
	}
	w.abzSP.New = func() any {
		b, _ := abzero.NewBlender(cfg) // checked above
		return b
	}
	return nil
}

// blender returns an Alpha-Beta-Zero blender with m(gen) and a cleared
// table when generation gen plays with the blend, else nil. Clearing per
// game keeps games independent of which blender they drew: the same seed
// gives the same game.
func (w *Worker) blender(gen int) (*abzero.Blender, error) {
	if w.abzM == nil || gen >= w.sp.ABZero.Generations {
		return nil, nil
	}
	b := w.abzSP.Get().(*abzero.Blender)
	b.NewGame()
	if err := b.SetM(w.abzM.At(gen)); err != nil {
		w.abzSP.Put(b)
		return nil, fmt.Errorf("selfplay: abzero.m at generation %d: %w", gen, err)
	}
	return b, nil
}

// AlphaBetaValue maps an alpha-beta score to a value in [-1, 1]:
// tanh(score/scale), +-1 for a mate.
func AlphaBetaValue(score int, scale float64) float32 {
	if alphabeta.IsMate(score) {
		return float32(max(-1, min(1, score)))
	}
	return float32(math.Tanh(float64(score) / scale))
}

// fromFirst turns a result for side c into one for the first player.
func fromFirst(r game.Result, c game.Color) game.Result { return resultFor(r, c) }

// resultText writes a result for the first player as in PGN ("" while
// the game is not over).
func resultText(r game.Result) string {
	switch r {
	case game.Win:
		return "1-0"
	case game.Loss:
		return "0-1"
	case game.Draw:
		return "1/2-1/2"
	}
	return ""
}

// resultFor turns a result for the first player (or, symmetrically, for
// one side) into the result for side c.
func resultFor(r game.Result, c game.Color) game.Result {
	if c == game.First {
		return r
	}
	switch r {
	case game.Win:
		return game.Loss
	case game.Loss:
		return game.Win
	}
	return r
}

func clamp(v float32) float32 { return max(-1, min(1, v)) }

func (w *Worker) record(rec Record) {
	w.statsMu.Lock()
	st := &w.stats
	st.Games++
	st.Samples += int64(len(rec.Samples))
	if w.pauseAt > 0 && st.Samples >= w.pauseAt {
		w.pauseAt = 0
		w.Pause()
	}
	st.Plies += int64(len(rec.Moves))
	switch rec.Result {
	case game.Win:
		st.FirstWins++
	case game.Loss:
		st.SecondWins++
	default:
		st.Draws++
	}
	w.statsMu.Unlock()
	w.shardMu.Lock()
	w.pending = append(w.pending, rec.Samples...)
	w.shardMu.Unlock()
}

// flush writes the pending samples as a shard once there are enough (or
// whatever there is when final).
func (w *Worker) flush(final bool) error {
	w.shardMu.Lock()
	defer w.shardMu.Unlock()
	if len(w.pending) == 0 || (!final && len(w.pending) < w.sp.ShardSamples) {
		return nil
	}
	h := data.Header{Game: w.game.Name, EncoderVersion: w.game.Encoder.Version(), Generation: w.Generation(),
		Worker: w.opts.Worker, Seq: w.seq, GameSeed: w.seed, Created: time.Now().UTC()}
	path, err := data.Write(w.opts.ReplayDir, h, w.pending)
	if err != nil {
		return fmt.Errorf("selfplay: %w", err)
	}
	w.seq++
	if w.opts.OnShard != nil {
		w.opts.OnShard(path, w.pending)
	}
	w.pending = nil
	w.statsMu.Lock()
	w.stats.Shards++
	w.statsMu.Unlock()
	return nil
}

// NextShardSeq returns the sequence number after the highest one worker
// has written in dir (data.NextSeq), so a restarted worker never
// overwrites its shards.
func NextShardSeq(dir, worker string) int { return data.NextSeq(dir, worker) }

// openingPlies draws a game's number of random opening plies:
// selfplay.opening_plies, or uniformly up to opening_plies_max.
func openingPlies(sp configs.SelfPlay, rng *rand.Rand) int {
	if sp.OpeningPliesMax > sp.OpeningPlies {
		return sp.OpeningPlies + rng.IntN(sp.OpeningPliesMax-sp.OpeningPlies+1)
	}
	return sp.OpeningPlies
}
