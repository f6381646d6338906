package selfplay

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/abzero"
	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/net"
)

// refNet runs the reference forward pass of a small random network: slow
// but exact and deterministic.
type refNet struct{ p *net.Params }

func (r refNet) Forward(planes []float32, n int, policy, value []float32) error {
	pol, val := r.p.Reference(planes, n)
	copy(policy, pol)
	copy(value, val)
	return nil
}

func tinyConfig(t *testing.T) (*configs.Config, refNet) {
	cfg, err := configs.Preset("connect4")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Search.Simulations = 16
	cfg.SelfPlay.Discount, cfg.SelfPlay.OpeningPliesMax, cfg.SelfPlay.SurpriseWeight = 0, 0, 0 // the tests that want them set them
	cfg.SelfPlay.ParallelGames = 4
	cfg.SelfPlay.BatchSize = 4
	cfg.SelfPlay.ShardSamples = 50
	g, _ := game.Lookup("connect4")
	spec, _ := configs.PresetSpec(g.Name)
	spec.Blocks, spec.Filters = 1, 4
	p, err := net.NewParams(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, refNet{p}
}

// playGame plays game id with a fresh worker on network fwd of generation
// gen.
func playGame(t *testing.T, cfg *configs.Config, fwd mcts.Forwarder, gen int, id uint64) Record {
	t.Helper()
	w, err := New(setupOf(t, cfg), Options{ReplayDir: t.TempDir(), Worker: "t"}, fwd, gen)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.batch.Run(ctx)
	rec, err := w.Play(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestSameSeedSameGame(t *testing.T) {
	cfg, rn := tinyConfig(t)
	play := func(seed uint64, id uint64) Record {
		cfg.Seed = seed
		return playGame(t, cfg, rn, 0, id)
	}
	a, b, c := play(1, 3), play(1, 3), play(1, 4)
	if !slices.Equal(a.Moves, b.Moves) || a.Result != b.Result {
		t.Fatal("the same seed and game id gave different games")
	}
	if slices.Equal(a.Moves, c.Moves) {
		t.Error("different game ids gave the same game")
	}
	// Results: each sample's z is the game result from its side to move.
	g, _ := game.Lookup("connect4")
	for i, s := range a.Samples {
		p, err := g.Parse(s.Position, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := resultFor(a.Result, p.SideToMove()).Value(); s.Result != want {
			t.Fatalf("sample %d: z %v, want %v", i, s.Result, want)
		}
		var sum float32
		for _, e := range s.Policy {
			sum += e.Prob
		}
		if sum < 0.999 || sum > 1.001 {
			t.Fatalf("sample %d: policy sums to %v", i, sum)
		}
	}
}

// Random opening plies: the games start with the number asked for, the
// samples only after them, and the same seed gives the same opening.
func TestOpeningPlies(t *testing.T) {
	cfg, rn := tinyConfig(t)
	cfg.SelfPlay.OpeningPlies, cfg.SelfPlay.TemperaturePlies = 6, 0
	openings := map[string]bool{}
	for id := uint64(1); id <= 8; id++ {
		rec := playGame(t, cfg, rn, 0, id)
		if len(rec.Moves) < 7 || len(rec.Samples) == 0 || len(rec.Samples) > len(rec.Moves)-6 {
			t.Fatalf("game %d: %d moves, %d samples", id, len(rec.Moves), len(rec.Samples))
		}
		for _, s := range rec.Samples {
			if s.Ply < 6 {
				t.Fatalf("game %d: a sample at ply %d, inside the random opening", id, s.Ply)
			}
		}
		// The moves replay from the start, opening included.
		g, _ := game.Lookup("connect4")
		p, _ := g.New(nil)
		if err := game.Play(p, rec.Moves...); err != nil {
			t.Fatalf("game %d does not replay: %v", id, err)
		}
		openings[strings.Join(rec.Moves[:6], " ")] = true
		if again := playGame(t, cfg, rn, 0, id); !slices.Equal(again.Moves, rec.Moves) {
			t.Fatalf("game %d played twice differs", id)
		}
	}
	if len(openings) < 6 {
		t.Fatalf("8 games had %d different openings", len(openings))
	}
}

// A range of opening plies: each game draws its own number from
// [opening_plies, opening_plies_max], every value turns up, and the
// first sample comes right after the opening (every move is searched).
func TestOpeningPliesMax(t *testing.T) {
	cfg, rn := tinyConfig(t)
	cfg.Search.Simulations = 4
	cfg.SelfPlay.OpeningPlies, cfg.SelfPlay.OpeningPliesMax, cfg.SelfPlay.TemperaturePlies = 2, 5, 0
	seen := map[int]int{}
	for id := uint64(1); id <= 24; id++ {
		rec := playGame(t, cfg, rn, 0, id)
		if len(rec.Samples) == 0 {
			t.Fatalf("game %d: no samples", id)
		}
		first := rec.Samples[0].Ply
		if first < 2 || first > 5 {
			t.Fatalf("game %d: the first sample at ply %d, want the opening's end in [2, 5]", id, first)
		}
		seen[first]++
	}
	if len(seen) != 4 {
		t.Fatalf("opening lengths drawn: %v, want each of 2..5", seen)
	}
}

// Discounted results: the same game, each sample's z shrunk by the
// discount once per ply to the game's end (replayed from its moves).
func TestDiscount(t *testing.T) {
	cfg, rn := tinyConfig(t)
	plain := playGame(t, cfg, rn, 0, 5)
	cfg.SelfPlay.Discount = 0.9
	disc := playGame(t, cfg, rn, 0, 5)
	if !slices.Equal(plain.Moves, disc.Moves) || len(plain.Samples) != len(disc.Samples) {
		t.Fatal("the discount changed the game")
	}
	end := len(disc.Moves) // from the empty board
	for i, s := range disc.Samples {
		want := plain.Samples[i].Result * float32(math.Pow(0.9, float64(end-s.Ply)))
		if math.Abs(float64(s.Result-want)) > 1e-6 || (plain.Samples[i].Result != 0) != (s.Result != 0) {
			t.Fatalf("sample %d at ply %d of %d: z %v, want %v", i, s.Ply, end, s.Result, want)
		}
	}
	if last := disc.Samples[len(disc.Samples)-1]; last.Result == 0 || math.Abs(float64(last.Result)) < 0.8 {
		t.Fatalf("the last sample's z is %v: the game was drawn or the discount too strong", last.Result)
	}
}

// Policy-surprise weighting: the same game, each searched position
// recorded floor(w) or ceil(w) times, the weights averaging 1 and
// differing between positions.
func TestSurpriseWeight(t *testing.T) {
	cfg, rn := tinyConfig(t)
	plain := playGame(t, cfg, rn, 0, 11)
	cfg.SelfPlay.SurpriseWeight = 0.5
	weighed := playGame(t, cfg, rn, 0, 11)
	if !slices.Equal(plain.Moves, weighed.Moves) || len(weighed.SurpriseWeights) != len(plain.Samples) {
		t.Fatalf("the weighting changed the game or lost samples: %d weights for %d positions", len(weighed.SurpriseWeights), len(plain.Samples))
	}
	copies := map[string]int{}
	for _, s := range weighed.Samples {
		copies[s.Position]++
	}
	mean, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for i, s := range plain.Samples {
		w := weighed.SurpriseWeights[i]
		mean += w / float64(len(plain.Samples))
		lo, hi = min(lo, w), max(hi, w)
		if n := copies[s.Position]; n < int(math.Floor(w)) || n > int(math.Ceil(w)) {
			t.Fatalf("position %d (weight %.3f) recorded %d times", i, w, n)
		}
	}
	if math.Abs(mean-1) > 1e-9 || lo < 0.5-1e-9 || hi-lo < 0.1 {
		t.Fatalf("weights %v: mean %v, range [%v, %v]", weighed.SurpriseWeights, mean, lo, hi)
	}
}

func TestRunWritesShards(t *testing.T) {
	cfg, rn := tinyConfig(t)
	dir := t.TempDir()
	var written []string
	w, err := New(setupOf(t, cfg), Options{ReplayDir: dir, Worker: "w1", OnShard: func(p string, _ []data.Sample) { written = append(written, p) }}, rn, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(context.Background(), 10, 0); err != nil {
		t.Fatal(err)
	}
	st := w.Stats()
	if st.Games != 10 || st.FirstWins+st.Draws+st.SecondWins != 10 || int(st.Shards) != len(written) {
		t.Fatalf("stats %+v, %d shards written", st, len(written))
	}
	total := 0
	for _, p := range written {
		h, samples, err := data.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if h.Generation != 3 || h.Worker != "w1" {
			t.Fatalf("header %+v", h)
		}
		total += len(samples)
	}
	if int64(total) != st.Samples || st.Samples == 0 {
		t.Fatalf("shards hold %d samples, stats say %d", total, st.Samples)
	}
	// Every game ended and none is weighted: each recorded position is
	// one sample of the shards.
	if w.Recorded() != st.Samples {
		t.Fatalf("Recorded() = %d, the finished games hold %d samples", w.Recorded(), st.Samples)
	}
	if got := NextShardSeq(dir, "w1"); got != len(written) {
		t.Fatalf("NextShardSeq = %d, want %d", got, len(written))
	}
	if NextShardSeq(dir, "other") != 0 {
		t.Fatal("another worker's shards counted")
	}
	if filepath.Dir(written[0]) != dir {
		t.Fatal("shard outside the replay dir")
	}
	bs := w.BatchStats()
	if bs.Requests == 0 || bs.MeanBatch() < 1 {
		t.Fatalf("batch stats %+v", bs)
	}
}

// With the Alpha-Beta-Zero mover at weight m = 0, every move after the
// temperature plies is one of alpha-beta's best at the configured depth
// (checked by an independent multi-PV search of each position of the
// game), the game is reproducible, and a network of generation
// ABZero.Generations or later plays plain MCTS again.
func TestABZeroSelfPlay(t *testing.T) {
	cfg, rn := tinyConfig(t)
	cfg.SelfPlay.TemperaturePlies = 2
	cfg.SelfPlay.ABZero = configs.SelfPlayABZero{Generations: 3, Depth: 3, M: "0"}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	play := func(gen int, id uint64) Record { return playGame(t, cfg, rn, gen, id) }
	g, _ := game.Lookup("connect4")
	ab, err := alphabeta.New(alphabeta.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// alphaBetaBest reports whether every move of rec after the
	// temperature plies scores the maximum of a fresh multi-PV search.
	alphaBetaBest := func(rec Record) (checked int, ok bool) {
		p, _ := g.New(nil)
		for i, text := range rec.Moves {
			m, err := p.ParseMove(text)
			if err != nil {
				t.Fatal(err)
			}
			if i >= cfg.SelfPlay.TemperaturePlies {
				ab.Clear()
				r := ab.Search(context.Background(), p.Clone().(alphabeta.Position), alphabeta.Limits{Depth: 3, MultiPV: true}, nil)
				best, played := math.MinInt, math.MinInt
				for _, rs := range r.RootScores {
					best = max(best, rs.Score)
					if rs.Move == m {
						played = rs.Score
					}
				}
				checked++
				if played != best {
					return checked, false
				}
			}
			p.Make(m)
		}
		return checked, true
	}
	allBest := 0
	for id := uint64(0); id < 3; id++ {
		rec := play(0, id)
		if n, ok := alphaBetaBest(rec); !ok {
			t.Fatalf("game %d (%v): a move after the temperature plies is not alpha-beta's best", id, rec.Moves)
		} else if n == 0 {
			t.Fatalf("game %d has no move after the temperature plies", id)
		}
		if again := play(0, id); !slices.Equal(again.Moves, rec.Moves) {
			t.Fatalf("game %d differs when replayed:\n%v\n%v", id, rec.Moves, again.Moves)
		}
		if _, ok := alphaBetaBest(play(3, id)); ok {
			allBest++
		}
	}
	// A 1x4 network with 16 simulations does not play like depth-3
	// alpha-beta for three whole games.
	if allBest == 3 {
		t.Error("generation 3 (past ABZero.Generations) still plays alpha-beta's moves")
	}
}

// With abzero.value_scale the blended moves record alpha-beta's value of
// the position: tanh of a fresh multi-PV search's score over the scale.
func TestABZeroAlphaBetaValue(t *testing.T) {
	cfg, rn := tinyConfig(t)
	cfg.SelfPlay.TemperaturePlies = 2
	cfg.SelfPlay.ABZero = configs.SelfPlayABZero{Generations: 1, Depth: 3, M: "1", ValueScale: 50}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	rec := playGame(t, cfg, rn, 0, 5)
	g, _ := game.Lookup("connect4")
	ab, err := alphabeta.New(alphabeta.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := g.New(nil)
	distinct := map[float32]bool{}
	for i, text := range rec.Moves {
		s := rec.Samples[i]
		if i >= cfg.SelfPlay.TemperaturePlies {
			r := ab.Search(context.Background(), p.(alphabeta.Position), alphabeta.Limits{Depth: 3, MultiPV: true}, nil)
			if want := AlphaBetaValue(r.Score, 50); math.Abs(float64(s.RootValue-want)) > 1e-6 {
				t.Fatalf("ply %d: root value %v, alpha-beta's score %d gives %v", i, s.RootValue, r.Score, want)
			}
			distinct[s.RootValue] = true
		}
		m, err := p.ParseMove(text)
		if err != nil {
			t.Fatal(err)
		}
		p.Make(m)
	}
	if len(distinct) < 3 {
		t.Fatalf("only %d distinct values: the test shows little", len(distinct))
	}
	if AlphaBetaValue(alphabeta.Infinity-3, 50) != 1 || AlphaBetaValue(-(alphabeta.Infinity-3), 50) != -1 {
		t.Fatal("mates are not +-1")
	}
}

// failingNet fails every evaluation: a game that consults the network
// fails.
type failingNet struct{}

func (failingNet) Forward([]float32, int, []float32, []float32) error {
	return errors.New("the network was consulted")
}

// In the teacher generations alpha-beta alone plays and teaches: every
// position is recorded, its policy target is softmax(beta/T) over a fresh
// exact multi-PV search's root scores within 8 T of the best (none below),
// its root value alpha-beta's, the moves
// after the temperature plies are alpha-beta's best, and the network is
// never consulted. From teacher_generations on the search runs again.
func TestABZeroTeacher(t *testing.T) {
	cfg, _ := tinyConfig(t)
	cfg.SelfPlay.TemperaturePlies = 4
	const temp, scale = 0.5, 50.0
	cfg.SelfPlay.ABZero = configs.SelfPlayABZero{Generations: 3, Depth: 3, M: "1", ValueScale: scale,
		TeacherGenerations: 2, TeacherTemperature: temp}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	g, _ := game.Lookup("connect4")
	ab, err := alphabeta.New(alphabeta.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	openings := map[string]bool{}
	prunedMoves := 0
	for id := uint64(0); id < 6; id++ {
		rec := playGame(t, cfg, failingNet{}, 1, id)
		if len(rec.Samples) != len(rec.Moves) || len(rec.Moves) == 0 {
			t.Fatalf("game %d: %d samples for %d moves", id, len(rec.Samples), len(rec.Moves))
		}
		openings[strings.Join(rec.Moves[:cfg.SelfPlay.TemperaturePlies], " ")] = true
		p, _ := g.New(nil)
		for i, text := range rec.Moves {
			ab.Clear()
			r := ab.Search(context.Background(), p.Clone().(alphabeta.Position), alphabeta.Limits{Depth: 3, MultiPV: true}, nil)
			want := map[int]float64{}
			sum := 0.0
			pruned := 0
			for _, rs := range r.RootScores {
				d := abzero.Beta(rs.Score, abzero.DefaultMateValue) - abzero.Beta(r.Score, abzero.DefaultMateValue)
				if d < -8*temp {
					pruned++
					continue
				}
				e := math.Exp(d / temp)
				want[g.Encoder.ActionIndex(p, rs.Move)] += e
				sum += e
			}
			prunedMoves += pruned
			smp := rec.Samples[i]
			got := 0.0
			for _, e := range smp.Policy {
				got += float64(e.Prob)
				if math.Abs(float64(e.Prob)-want[e.Action]/sum) > 1e-5 {
					t.Fatalf("game %d ply %d: action %d has %v of the target, softmax of the scores %v", id, i, e.Action, e.Prob, want[e.Action]/sum)
				}
			}
			if math.Abs(got-1) > 1e-5 {
				t.Fatalf("game %d ply %d: policy sums to %v", id, i, got)
			}
			if v := AlphaBetaValue(r.Score, scale); math.Abs(float64(smp.RootValue-v)) > 1e-6 {
				t.Fatalf("game %d ply %d: root value %v, alpha-beta's %v", id, i, smp.RootValue, v)
			}
			m, err := p.ParseMove(text)
			if err != nil {
				t.Fatal(err)
			}
			if i >= cfg.SelfPlay.TemperaturePlies && m != r.Move {
				for _, rs := range r.RootScores {
					if rs.Move == m && rs.Score != r.Score {
						t.Fatalf("game %d ply %d: played %s (score %d), alpha-beta's best scores %d", id, i, text, rs.Score, r.Score)
					}
				}
			}
			p.Make(m)
		}
	}
	if len(openings) < 2 {
		t.Errorf("six games open alike: the temperature plies are not drawn from the teacher's policy")
	}
	if prunedMoves == 0 {
		t.Errorf("no move fell below the cutoff: the pruning is not tested")
	}
	w, err := New(setupOf(t, cfg), Options{ReplayDir: t.TempDir(), Worker: "t"}, failingNet{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.batch.Run(ctx)
	if _, err := w.Play(ctx, 0); err == nil {
		t.Fatal("generation 2 (past teacher_generations) played without its network")
	}
}

// Two workers on one network and run seed play different games; each
// worker's seed is reproducible from the run seed, its name and the shard
// it starts at (recorded in its shards' headers).
func TestWorkersPlayDifferentGames(t *testing.T) {
	cfg, rn := tinyConfig(t)
	dir := t.TempDir()
	play := func(name string) (uint64, []string) {
		w, err := New(setupOf(t, cfg), Options{ReplayDir: dir, Worker: name}, rn, 0)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go w.batch.Run(ctx)
		var games []string
		for id := range uint64(4) {
			rec, err := w.Play(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			games = append(games, strings.Join(rec.Moves, " "))
		}
		return w.Seed(), games
	}
	seedA, a := play("a")
	seedB, b := play("b")
	seedA2, a2 := play("a")
	if seedA != GameSeed(cfg.Seed, "a", 0) || seedA2 != seedA || !slices.Equal(a, a2) {
		t.Fatal("a worker's games are not reproducible from its seed")
	}
	if seedA == seedB {
		t.Fatal("workers a and b share a seed")
	}
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	if same > 1 {
		t.Fatalf("workers a and b played %d of %d games identically", same, len(a))
	}
	// Once a has written a shard, its next start plays other games.
	if GameSeed(cfg.Seed, "a", 1) == seedA {
		t.Fatal("a restart after a shard keeps the seed")
	}
	if _, err := New(setupOf(t, cfg), Options{ReplayDir: dir, Worker: "bad/name"}, rn, 0); err == nil || !strings.Contains(err.Error(), "worker name") {
		t.Fatalf("bad worker name: %v", err)
	}
}

// Follow switches to each newer network next offers, skips failed looks,
// and stops with its context.
func TestFollow(t *testing.T) {
	cfg, rn := tinyConfig(t)
	w, err := New(setupOf(t, cfg), Options{ReplayDir: t.TempDir(), Worker: "f"}, rn, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var asked []int
	calls := 0
	next := func(gen int) (mcts.Forwarder, int, error) {
		asked = append(asked, gen)
		calls++
		switch calls {
		case 1:
			return nil, 0, errors.New("pointer being written")
		case 2:
			return nil, 0, nil // nothing newer
		case 3:
			return rn, 2, nil
		case 4:
			return rn, 5, nil
		}
		cancel()
		return nil, 0, nil
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	w.Follow(ctx, time.Millisecond, 0, next, log)
	if w.Generation() != 5 || !slices.Equal(asked, []int{0, 0, 0, 2, 5}) {
		t.Fatalf("generation %d, asked for networks newer than %v", w.Generation(), asked)
	}
}

// A watched game is the game the worker played: the same moves (replayed
// with the rules), a search before each searched move whose best moves
// are legal there and sorted by share, and its result; watched games
// follow one another, and each ends in OnEnd.
func TestLiveGame(t *testing.T) {
	cfg, rn := tinyConfig(t)
	var ended []LiveGame
	live := &Live{OnEnd: func(g LiveGame) { ended = append(ended, g) }}
	w, err := New(setupOf(t, cfg), Options{ReplayDir: t.TempDir(), Worker: "w1", Live: live}, rn, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := live.Get(); ok {
		t.Fatal("a watched game before any was played")
	}
	if err := w.Run(context.Background(), 12, 0); err != nil {
		t.Fatal(err)
	}
	if len(ended) < 2 {
		t.Fatalf("%d watched games in 12", len(ended))
	}
	g, _ := game.Lookup("connect4")
	for _, lg := range ended {
		if !lg.Over || lg.Game != "connect4" || lg.Generation != 2 || lg.Network != 2 || len(lg.Search) != len(lg.Moves) {
			t.Fatalf("watched game %+v", lg)
		}
		p, _ := g.New(nil)
		searched := 0
		for i, mv := range lg.Moves {
			if s := lg.Search[i]; s != nil {
				searched++
				for k, top := range s.Top {
					if _, err := p.ParseMove(top.Move); err != nil || k > 0 && top.Share > s.Top[k-1].Share {
						t.Fatalf("game %d ply %d: top moves %+v", lg.ID, i, s.Top)
					}
				}
			}
			if err := game.Play(p, mv); err != nil {
				t.Fatalf("game %d does not replay: %v", lg.ID, err)
			}
		}
		st := p.Status()
		if !st.Over() || resultText(fromFirst(st.Result, p.SideToMove())) != lg.Result || searched == 0 {
			t.Fatalf("game %d: %s over %v, watched result %q, %d searches", lg.ID, p, st.Over(), lg.Result, searched)
		}
	}
	if last, ok := live.Get(); !ok || last.ID != ended[len(ended)-1].ID {
		t.Fatalf("Get returns game %d, the last watched was %d", last.ID, ended[len(ended)-1].ID)
	}
}

// Pause parks the games in flight and the next Run goes on with them:
// every game begun is recorded once in the end, each exactly as Play
// plays it without a pause (the network does not change here), and the
// test fails unless some game was parked in mid-play and finished later.
// Network games (the tree is kept) and teacher games (the alpha-beta
// searcher and its table are kept) alike.
func TestPauseKeepsGames(t *testing.T) {
	for _, teacher := range []bool{false, true} {
		t.Run(map[bool]string{false: "network", true: "teacher"}[teacher], func(t *testing.T) {
			cfg, rn := tinyConfig(t)
			var fwd mcts.Forwarder = rn
			if teacher {
				cfg.SelfPlay.TemperaturePlies = 4
				cfg.SelfPlay.ABZero = configs.SelfPlayABZero{Generations: 3, Depth: 3, M: "1", ValueScale: 50,
					TeacherGenerations: 2, TeacherTemperature: 0.5}
				fwd = failingNet{}
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			var w *Worker
			pauseOnShard := true
			byGame := map[uint64][]data.Sample{}
			opts := Options{ReplayDir: t.TempDir(), Worker: "t", OnShard: func(_ string, s []data.Sample) {
				for _, smp := range s {
					byGame[smp.GameID] = append(byGame[smp.GameID], smp)
				}
				if pauseOnShard {
					w.Pause()
				}
			}}
			var err error
			if w, err = New(setupOf(t, cfg), opts, fwd, 1); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			midGame := map[uint64]bool{} // parked after moves of its own
			// Where a pause finds the other games depends on the scheduler
			// (the teacher's games barely wait for anything), so pause
			// until one is found in mid-play.
			for round := 0; len(midGame) == 0 && round < 50; round++ {
				if err := w.Run(ctx, 0, 0); err != nil {
					t.Fatal(err)
				}
				for _, g := range w.parked {
					if len(g.rec.Samples) > 0 {
						midGame[g.rec.ID] = true
					}
				}
			}
			if len(midGame) == 0 {
				t.Fatal("no game was parked in mid-play")
			}
			pauseOnShard = false
			if err := w.Run(ctx, 1, 0); err != nil { // the parked games and one more
				t.Fatal(err)
			}
			if n := len(w.parked); n != 0 {
				t.Fatalf("%d games still parked", n)
			}
			begun := w.nextGame.Load()
			if int64(len(byGame)) != int64(begun) || w.Stats().Games != int64(begun) {
				t.Fatalf("%d games begun, %d recorded, %d in the shards", begun, w.Stats().Games, len(byGame))
			}
			for id := range begun {
				want := playGame(t, cfg, fwd, 1, id).Samples
				got := byGame[id]
				if !slices.EqualFunc(got, want, sameSample) {
					t.Fatalf("game %d (parked in mid-play: %v): %d samples differ from the same game unpaused (%d)", id, midGame[id], len(got), len(want))
				}
			}
		})
	}
}

func sameSample(a, b data.Sample) bool {
	return a.Position == b.Position && a.Ply == b.Ply && a.Result == b.Result && a.RootValue == b.RootValue &&
		slices.Equal(a.Policy, b.Policy)
}

// A network switch waits for the moves in flight, not for the games: it
// returns while games begun under the old network are still being
// played, and they go on to be recorded under the new one. A watched
// game names the network that searched its last move, never older than
// the one it began with.
func TestSetNetworkBetweenMoves(t *testing.T) {
	cfg, rn := tinyConfig(t)
	var w *Worker
	switched, inFlight := false, int64(0)
	var watched []LiveGame
	live := &Live{OnEnd: func(g LiveGame) { watched = append(watched, g) }}
	opts := Options{ReplayDir: t.TempDir(), Worker: "t", Live: live, OnShard: func(string, []data.Sample) {
		if switched {
			return
		}
		switched = true
		w.SetNetwork(rn, 2) // from a game's goroutine, between its games
		inFlight = int64(w.nextGame.Load()) - w.Stats().Games
	}}
	var err error
	if w, err = New(setupOf(t, cfg), opts, rn, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Run(context.Background(), 12, 0); err != nil {
		t.Fatal(err)
	}
	if !switched || inFlight == 0 {
		t.Fatalf("switched %v with %d games in flight: SetNetwork waited for whole games", switched, inFlight)
	}
	if st := w.Stats(); st.Games != 12 || w.Generation() != 2 {
		t.Fatalf("%d games recorded, generation %d", st.Games, w.Generation())
	}
	for _, g := range watched {
		if g.Network < g.Generation || g.Network < 1 || g.Network > 2 {
			t.Errorf("watched game %d begun by generation %d, its last move by %d", g.ID, g.Generation, g.Network)
		}
	}
}

// setupOf is the worker's setup from a whole config, as its callers make it.
func setupOf(t *testing.T, cfg *configs.Config) Setup {
	t.Helper()
	s, err := ConfigSetup(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
