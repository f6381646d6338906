// Package bench measures what this machine does for tabula, in about a
// minute: the fp32 peak (net/gemm's Sgemm on every core), and for each
// game's preset the network's inference and training step (each also as a
// share of that peak), self-play with the network's own search,
// alpha-beta and perft. Its figures size a run (Size, size.go): how many
// training steps a budget allows, how many samples self-play makes in
// them, and the preset's config for this machine.
package bench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/gemm"
	"github.com/tabula-zero/tabula/net/infer"
	"github.com/tabula-zero/tabula/net/train"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/selfplay"
)

// Options configure a measurement.
type Options struct {
	// Presets to measure (default: every registered game's).
	Presets []string
	// Each is the time of each measurement (default 3s); the whole takes
	// about 5 Each a preset.
	Each time.Duration
	// TrainBatch is the training step's batch (0: the preset's), so the
	// step can be read against another library's at the same batch.
	TrainBatch int
	// Progress, if set, hears a line as each measurement starts.
	Progress func(string)
	// Brief measures only what sizing a run needs (Size): the inference
	// per precision with a kernel, the training step and the run's
	// self-play; no peak, bf16, alpha-beta or perft.
	Brief bool
}

// Result is one machine's figures.
type Result struct {
	Time      time.Time `json:"time"`
	CPU       string    `json:"cpu"`
	Cores     int       `json:"cores"`
	Kernel    string    `json:"kernel"` // net/gemm's fp32 kernel
	GoVersion string    `json:"go_version"`
	// PeakGFLOPs is Sgemm at 1024^3 on every core: the fp32 peak the
	// network's figures are read against.
	PeakGFLOPs float64  `json:"peak_gflops"`
	Presets    []Preset `json:"presets"`
}

// Preset is one game preset's figures.
type Preset struct {
	Name    string `json:"preset"`
	Network string `json:"network"` // blocks x filters
	// Inference at the self-play batch size on every core (fp32).
	InferenceBatch   int     `json:"inference_batch"`
	InferencePosPerS float64 `json:"inference_pos_per_s"`
	InferenceGFLOPs  float64 `json:"inference_gflops"`
	// The same with the residual tower in 8 bits (infer.NewInt8), and
	// the 8-bit kernel it ran on; both empty where the CPU has no 8-bit
	// kernel (the pure-Go twin, slower than fp32, is not offered).
	Int8PosPerS float64 `json:"int8_pos_per_s,omitempty"`
	Int8Kernel  string  `json:"int8_kernel,omitempty"`
	// AutoPrecision is what the preset's selfplay.precision (auto) runs
	// here: infer.Resolve, int8 only on a VNNI kernel or AMX tiles.
	AutoPrecision string `json:"auto_precision"`
	// A training step (forward, backward, momentum) at the preset's batch.
	TrainBatch       int     `json:"train_batch"`
	TrainSamplesPerS float64 `json:"train_samples_per_s"`
	TrainStepsPerS   float64 `json:"train_steps_per_s"`
	TrainGFLOPs      float64 `json:"train_gflops"`
	// The same step with the 3x3 convolutions in bfloat16 (AMX-BF16
	// tiles or AVX512_BF16; training.precision: bf16); zero where the CPU
	// has neither.
	BF16TrainSamplesPerS float64 `json:"bf16_train_samples_per_s,omitempty"`
	BF16Kernel           string  `json:"bf16_kernel,omitempty"` // "amx" or "avx512bf16"
	// Self-play with the network's own search (a fresh network, the
	// preset's parallel games and simulations): simulations evaluated a
	// second, and the samples a second that makes at the preset's
	// simulations per recorded move (its playout cap).
	SelfPlaySimsPerS    float64 `json:"selfplay_sims_per_s"`
	SimsPerSample       float64 `json:"sims_per_sample"`
	SelfPlaySamplesPerS float64 `json:"selfplay_samples_per_s"`
	// The same self-play with the network in 8 bits (selfplay.precision);
	// zero where the CPU has no 8-bit kernel.
	Int8SelfPlaySimsPerS    float64 `json:"int8_selfplay_sims_per_s,omitempty"`
	Int8SelfPlaySamplesPerS float64 `json:"int8_selfplay_samples_per_s,omitempty"`
	// The self-play a training run of the preset gets here: its first
	// generation's (the alpha-beta teacher where the preset starts with
	// it, else the network's search in AutoPrecision), with the parallel
	// games and batch SelfPlayFor gives this machine's cores; and the
	// mean samples of a game where the measurement saw enough of them
	// end to tell (samplesPerGame; else 0).
	RunSelfPlay            string  `json:"run_selfplay"`
	RunParallelGames       int     `json:"run_parallel_games"`
	RunBatch               int     `json:"run_batch"`
	RunSelfPlaySamplesPerS float64 `json:"run_selfplay_samples_per_s"`
	SamplesPerGame         float64 `json:"samples_per_game,omitempty"`
	AlphaBetaNodesPerS     float64 `json:"alphabeta_nodes_per_s,omitempty"` // one thread, from the start
	AlphaBetaDepth         int     `json:"alphabeta_depth,omitempty"`
	PerftLeavesPerS        float64 `json:"perft_leaves_per_s,omitempty"` // one thread
	PerftDepth             int     `json:"perft_depth,omitempty"`
	InferenceShareOfPeak   float64 `json:"inference_share_of_peak,omitempty"`
	TrainShareOfPeak       float64 `json:"train_share_of_peak,omitempty"`
}

// Run measures the machine.
func Run(ctx context.Context, o Options) (Result, error) {
	if len(o.Presets) == 0 {
		o.Presets = game.Names()
	}
	if o.Each <= 0 {
		o.Each = 3 * time.Second
	}
	say := func(format string, args ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(format, args...))
		}
	}
	r := Result{Time: time.Now().UTC(), CPU: cpuModel(), Cores: runtime.GOMAXPROCS(0), Kernel: gemm.Default.Name, GoVersion: runtime.Version()}
	if !o.Brief {
		say("fp32 peak: Sgemm 1024^3 on %d cores", r.Cores)
		r.PeakGFLOPs = peak(ctx, o.Each)
	}
	for _, name := range o.Presets {
		p, err := measurePreset(ctx, name, o, say)
		if err != nil {
			return r, err
		}
		if r.PeakGFLOPs > 0 {
			p.InferenceShareOfPeak = p.InferenceGFLOPs / r.PeakGFLOPs
			p.TrainShareOfPeak = p.TrainGFLOPs / r.PeakGFLOPs
		}
		r.Presets = append(r.Presets, p)
		if err := ctx.Err(); err != nil {
			return r, err
		}
	}
	return r, nil
}

// loop runs f until d has passed (at least once) and returns the calls
// and the time they took.
func loop(ctx context.Context, d time.Duration, f func() error) (int, time.Duration, error) {
	t0 := time.Now()
	n := 0
	for n == 0 || (time.Since(t0) < d && ctx.Err() == nil) {
		if err := f(); err != nil {
			return n, time.Since(t0), err
		}
		n++
	}
	return n, time.Since(t0), nil
}

func peak(ctx context.Context, d time.Duration) float64 {
	const size = 1024
	rng := rand.New(rand.NewPCG(1, size))
	x, y, z := make([]float32, size*size), make([]float32, size*size), make([]float32, size*size)
	for i := range x {
		x[i], y[i] = rng.Float32(), rng.Float32()
	}
	gemm.Sgemm(false, false, size, size, size, 1, x, size, y, size, 0, z, size) // warm up
	// A peak is the fastest product: a moment of other load slows one
	// call, not the figure.
	best := time.Duration(math.MaxInt64)
	loop(ctx, d, func() error {
		t0 := time.Now()
		gemm.Sgemm(false, false, size, size, size, 1, x, size, y, size, 0, z, size)
		best = min(best, time.Since(t0))
		return nil
	})
	return 2 * size * size * size / 1e9 / best.Seconds()
}

func measurePreset(ctx context.Context, name string, o Options, say func(string, ...any)) (Preset, error) {
	d := o.Each
	cfg, err := configs.Preset(name)
	if err != nil {
		return Preset{}, err
	}
	spec, err := configs.NetSpec(cfg)
	if err != nil {
		return Preset{}, err
	}
	params, err := net.NewParams(spec, 1)
	if err != nil {
		return Preset{}, err
	}
	p := Preset{Name: name, Network: fmt.Sprintf("%dx%d", spec.Blocks, spec.Filters)}
	flops := float64(spec.ForwardFLOPs())

	g, err := cfg.LookupGame()
	if err != nil {
		return p, err
	}
	start, err := g.New(nil)
	if err != nil {
		return p, err
	}
	p.InferenceBatch = cfg.SelfPlay.BatchSize
	planes := infer.Calibration(start, g.Encoder, p.InferenceBatch, 7) // positions of play
	has8 := has8Bit()
	precisions := []string{"fp32"}
	if has8 {
		precisions = append(precisions, "int8")
	}
	for _, precision := range precisions {
		say("%s: inference (%s), batch %d", name, precision, p.InferenceBatch)
		n, err := infer.NewPrecision(params, p.InferenceBatch, precision, start, g.Encoder)
		if err != nil {
			return p, err
		}
		rate, err := inference(ctx, n, planes, p.InferenceBatch, d)
		if err != nil {
			return p, err
		}
		if precision == "int8" {
			p.Int8PosPerS, p.Int8Kernel = rate, n.Precision()
		} else {
			p.InferencePosPerS = rate
		}
	}
	p.InferenceGFLOPs = p.InferencePosPerS * flops / 1e9
	p.AutoPrecision = infer.Resolve(cmp.Or(cfg.SelfPlay.Precision, "fp32"))

	p.TrainBatch = cmp.Or(o.TrainBatch, cfg.Training.BatchSize)
	say("%s: training step, batch %d", name, p.TrainBatch)
	if p.TrainSamplesPerS, err = training(ctx, params, p.TrainBatch, d, cfg.Training.ModelOptions()...); err != nil {
		return p, err
	}
	p.TrainStepsPerS = p.TrainSamplesPerS / float64(p.TrainBatch)
	p.TrainGFLOPs = p.TrainSamplesPerS * 3 * flops / 1e9 // backward is about two forwards
	if gemm.HasBF16() && !o.Brief {
		p.BF16Kernel = gemm.BF16Kernel()
		say("%s: training step in bf16 (%s), batch %d", name, p.BF16Kernel, p.TrainBatch)
		if p.BF16TrainSamplesPerS, err = training(ctx, params, p.TrainBatch, d, net.BF16Convs()); err != nil {
			return p, err
		}
	}

	setup, err := selfplay.ConfigSetup(cfg)
	if err != nil {
		return p, err
	}
	p.RunParallelGames, p.RunBatch = SelfPlayFor(cfg.SelfPlay, runtime.GOMAXPROCS(0))
	setup.SelfPlay.ParallelGames, setup.SelfPlay.BatchSize = p.RunParallelGames, p.RunBatch
	p.SimsPerSample = simsPerSample(cfg.Search)
	// The network's own search (no alpha-beta), in each precision with a
	// kernel: what the run's self-play becomes past a teacher.
	search := setup
	search.SelfPlay.ABZero = configs.SelfPlayABZero{}
	byPrecision := map[string]selfPlayRates{}
	if !o.Brief {
		for _, precision := range precisions {
			say("%s: self-play (%s), %d games of %d simulations", name, precision, p.RunParallelGames, cfg.Search.Simulations)
			sp, err := selfPlay(ctx, search, params, precision, 2*d)
			if err != nil {
				return p, err
			}
			byPrecision[precision] = sp
		}
		p.SelfPlaySimsPerS = byPrecision["fp32"].simsPerS
		p.SelfPlaySamplesPerS = p.SelfPlaySimsPerS / p.SimsPerSample
		p.Int8SelfPlaySimsPerS = byPrecision["int8"].simsPerS
		p.Int8SelfPlaySamplesPerS = p.Int8SelfPlaySimsPerS / p.SimsPerSample
	}

	// The run's own self-play: its first generation's, in the precision
	// auto picks here.
	run := setup
	precision := p.AutoPrecision
	az := cfg.SelfPlay.ABZero
	switch {
	case az.TeacherGenerations > 0:
		p.RunSelfPlay = fmt.Sprintf("the alpha-beta teacher (depth %d) of the first %d generations", az.Depth, az.TeacherGenerations)
	case az.Generations > 0:
		p.RunSelfPlay = fmt.Sprintf("the network's search in %s blended with alpha-beta (depth %d)", precision, az.Depth)
	default:
		p.RunSelfPlay = fmt.Sprintf("the network's search in %s", precision)
	}
	sp, measured := byPrecision[precision]
	if !measured || az.Generations > 0 {
		say("%s: a training run's self-play: %s, %d games", name, p.RunSelfPlay, p.RunParallelGames)
		if sp, err = selfPlay(ctx, run, params, precision, runWindow(o.Brief, d)); err != nil {
			return p, err
		}
	}
	p.RunSelfPlaySamplesPerS = sp.simsPerS / p.SimsPerSample
	if az.TeacherGenerations > 0 {
		p.RunSelfPlaySamplesPerS = sp.recordedPerS // the teacher runs no simulations
	}
	p.SamplesPerGame = samplesPerGame(sp, p.RunParallelGames)

	if !o.Brief {
		say("%s: alpha-beta and perft from the start", name)
		p.AlphaBetaNodesPerS, p.AlphaBetaDepth = alphaBeta(ctx, g.Name, start, d)
		p.PerftLeavesPerS, p.PerftDepth = perft(ctx, start, d)
	}
	return p, nil
}

// runWindow is how long the run's self-play is measured: the one rate a
// brief measurement sizes the run's self-play by gets four measurements'
// time, long enough for a wave of short games to end.
func runWindow(brief bool, d time.Duration) time.Duration {
	if brief {
		return 4 * d
	}
	return 2 * d
}

// has8Bit reports whether the 8-bit tower runs on a kernel of its own
// here (AMX tiles, a VNNI kernel or AVX2's 7-bit one): where only the
// pure-Go twin would (no AVX2, or a noasm build) the bench offers no
// 8-bit figures, since the twin is slower than fp32.
func has8Bit() bool {
	return gemm.HasAMX() || gemm.Kernel8For(16).Name != gemm.Kernel8Go(16).Name
}

func inference(ctx context.Context, n *infer.Net, planes []float32, batch int, d time.Duration) (float64, error) {
	fwd := infer.ParallelOf(n, 0)
	defer fwd.Close()
	s := n.Spec()
	pol, val := make([]float32, batch*s.Actions), make([]float32, batch)
	forward := func() error { return fwd.Forward(planes, batch, pol, val) }
	if err := forward(); err != nil {
		return 0, err
	}
	k, took, err := loop(ctx, d, forward)
	return float64(k*batch) / took.Seconds(), err
}

func training(ctx context.Context, params *net.Params, batch int, d time.Duration, opts ...net.ModelOption) (float64, error) {
	m, err := train.NewModel(params, batch, opts...)
	if err != nil {
		return 0, err
	}
	tr, err := m.NewTrainer(train.Config{Schedule: net.Schedule{LR: 0.01}, Momentum: 0.9, WeightDecay: 1e-4})
	if err != nil {
		return 0, err
	}
	b := randomBatch(params.Spec, batch)
	step := func() error { _, err := tr.Step(b); return err }
	if err := step(); err != nil { // the first step allocates
		return 0, err
	}
	n, took, err := loop(ctx, d, step)
	return float64(n*batch) / took.Seconds(), err
}

// randomBatch is a batch of random positions with one-hot policy targets
// and outcomes of either sign.
func randomBatch(s net.Spec, n int) train.Batch {
	rng := rand.New(rand.NewPCG(2, 3))
	b := train.Batch{N: n, Planes: make([]float32, n*s.Channels*s.Height*s.Width), Policy: make([]float32, n*s.Actions), Value: make([]float32, n)}
	for i := range b.Planes {
		if rng.IntN(4) == 0 {
			b.Planes[i] = 1
		}
	}
	for i := range n {
		b.Policy[i*s.Actions+rng.IntN(s.Actions)] = 1
		b.Value[i] = float32(rng.IntN(3) - 1)
	}
	return b
}

// selfPlayRates are a self-play measurement's rates: simulations
// evaluated and positions recorded a second over its window, and the
// games that ended and their samples over the whole of it.
type selfPlayRates struct {
	simsPerS, recordedPerS float64
	// Over the whole measurement: the games that ended, their samples,
	// and the positions recorded by those and the games still in play.
	games, samples, recorded int64
}

// samplesPerGame is the mean samples of the games a measurement saw end,
// once it can be told (else 0). The games all start together and the
// short ones end first, so the finished games' mean leans short, while
// the positions recorded over the games that ended lean long (the games
// in play add positions but no ending). Where the two are within a
// quarter of each other (about two waves of parallel games ended), the
// finished games' mean is taken.
func samplesPerGame(sp selfPlayRates, parallel int) float64 {
	if sp.games < 2*int64(parallel) || sp.samples <= 0 || float64(sp.recorded) > 1.25*float64(sp.samples) {
		return 0
	}
	return float64(sp.samples) / float64(sp.games)
}

// selfPlay plays the self-play setup describes at generation 0 (with its
// alpha-beta teacher or blend, where it has one), the network in
// precision, for d. Games of Xiangqi last longer than a bench, so the
// rates are of simulations and of positions recorded, not of finished
// games.
func selfPlay(ctx context.Context, setup selfplay.Setup, params *net.Params, precision string, d time.Duration) (selfPlayRates, error) {
	var out selfPlayRates
	fwd, err := player.OpenForwarder(params, setup.SelfPlay.BatchSize, precision)
	if err != nil {
		return out, err
	}
	defer fwd.Close()
	dir, err := os.MkdirTemp("", "tabula-bench-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(dir)
	w, err := selfplay.New(setup, selfplay.Options{ReplayDir: dir, Worker: "bench"}, fwd, 0)
	if err != nil {
		return out, err
	}
	// The first second fills the parallel games' trees and the cache. The
	// window closes after d, but not before a batch past the warm-up was
	// evaluated and simulations were asked for after it (the requests of
	// a batch are counted when they are made, before it is evaluated): a
	// slow path is measured, not reported as nothing. The teacher
	// searches no tree: its window waits for a recorded position instead.
	teacher := setup.SelfPlay.ABZero.TeacherGenerations > 0
	warm := min(time.Second, d/4)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type count struct {
		sims, batches, recorded int64
		at                      time.Time
	}
	now := func() count {
		s := w.BatchStats()
		return count{s.Requests, s.Batches, w.Recorded(), time.Now()}
	}
	window := make(chan [2]count, 1)
	go func() {
		defer close(window)
		t0 := time.Now()
		select {
		case <-time.After(warm):
		case <-ctx.Done():
			return
		}
		c0 := now()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				c := now()
				moved := c.batches > c0.batches && c.sims > c0.sims
				if teacher {
					moved = c.recorded > c0.recorded
				}
				if time.Since(t0) >= d && moved {
					window <- [2]count{c0, c}
					cancel()
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	if err := w.Run(ctx, 0, 0); err != nil && ctx.Err() == nil {
		return out, err
	}
	c, ok := <-window
	if !ok { // the caller's context ended first
		return out, ctx.Err()
	}
	secs := c[1].at.Sub(c[0].at).Seconds()
	st := w.Stats()
	return selfPlayRates{simsPerS: float64(c[1].sims-c[0].sims) / secs, recordedPerS: float64(c[1].recorded-c[0].recorded) / secs,
		games: st.Games, samples: st.Samples, recorded: w.Recorded()}, nil
}

// simsPerSample is the simulations a recorded sample costs under the
// preset's playout cap: every move searches, a share of them fully and is
// recorded.
func simsPerSample(s configs.Search) float64 {
	share := s.FullSearchShare
	if share <= 0 || share >= 1 || s.FastSimulations <= 0 {
		return float64(s.Simulations)
	}
	return (share*float64(s.Simulations) + (1-share)*float64(s.FastSimulations)) / share
}

func alphaBeta(ctx context.Context, gameName string, start game.Position, d time.Duration) (float64, int) {
	p, ok := start.(alphabeta.Position)
	if !ok {
		return 0, 0
	}
	s, err := alphabeta.New(alphabeta.DefaultOptionsFor(gameName))
	if err != nil {
		return 0, 0
	}
	r := s.Search(ctx, p, alphabeta.Limits{Time: d}, nil)
	if r.Time <= 0 {
		return 0, r.Depth
	}
	return float64(r.Nodes) / r.Time.Seconds(), r.Depth
}

// perft counts leaves at growing depths until one takes d/4 or more and
// returns the rate of the deepest.
func perft(ctx context.Context, start game.Position, d time.Duration) (float64, int) {
	var rate float64
	depth := 0
	for depth < 12 && ctx.Err() == nil {
		depth++
		t0 := time.Now()
		leaves := game.Perft(start.Clone(), depth)
		took := time.Since(t0)
		rate = float64(leaves) / took.Seconds()
		if took >= d/4 || leaves == 0 {
			break
		}
	}
	return rate, depth
}

// cpuModel is the processor's name where the system tells it.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOOS + "/" + runtime.GOARCH
}

// WriteText prints the figures as a table, each network figure with its
// share of the peak where the peak was measured. An 8-bit line appears
// only where the CPU has an 8-bit kernel.
func (r Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d cores, kernel %s, %s\n", r.CPU, r.Cores, r.Kernel, r.GoVersion)
	share := func(v float64) string {
		if r.PeakGFLOPs <= 0 {
			return ""
		}
		return fmt.Sprintf("  %3.0f%% of peak", 100*v)
	}
	if r.PeakGFLOPs > 0 {
		fmt.Fprintf(&b, "fp32 peak (Sgemm 1024^3, every core): %.0f GFLOP/s\n", r.PeakGFLOPs)
	}
	for _, p := range r.Presets {
		fmt.Fprintf(&b, "\n%s (network %s)\n", p.Name, p.Network)
		fmt.Fprintf(&b, "  inference, batch %d:      %9.0f positions/s  %5.0f GFLOP/s%s\n",
			p.InferenceBatch, p.InferencePosPerS, p.InferenceGFLOPs, share(p.InferenceShareOfPeak))
		if p.Int8Kernel != "" {
			fmt.Fprintf(&b, "  the same in 8 bits:      %9.0f positions/s  %.2fx fp32 (%s)\n",
				p.Int8PosPerS, p.Int8PosPerS/max(p.InferencePosPerS, 1e-9), p.kernel8())
		} else {
			b.WriteString("  8 bits: no kernel for this CPU; fp32 is used\n")
		}
		fmt.Fprintf(&b, "  training step, batch %d: %9.0f samples/s    %5.0f GFLOP/s%s  (%.1f steps/s)\n",
			p.TrainBatch, p.TrainSamplesPerS, p.TrainGFLOPs, share(p.TrainShareOfPeak), p.TrainStepsPerS)
		if p.BF16TrainSamplesPerS > 0 {
			fmt.Fprintf(&b, "  the same in bf16:        %9.0f samples/s    %.2fx fp32 (%s)\n",
				p.BF16TrainSamplesPerS, p.BF16TrainSamplesPerS/max(p.TrainSamplesPerS, 1e-9), p.BF16Kernel)
		}
		if p.SelfPlaySimsPerS > 0 {
			fmt.Fprintf(&b, "  self-play (network):     %9.0f simulations/s, %.0f a recorded sample: %.0f samples/s\n",
				p.SelfPlaySimsPerS, p.SimsPerSample, p.SelfPlaySamplesPerS)
		}
		if p.Int8SelfPlaySimsPerS > 0 {
			fmt.Fprintf(&b, "  the same in 8 bits:      %9.0f simulations/s, %.0f samples/s, %.2fx fp32\n",
				p.Int8SelfPlaySimsPerS, p.Int8SelfPlaySamplesPerS, p.Int8SelfPlaySimsPerS/max(p.SelfPlaySimsPerS, 1e-9))
		}
		fmt.Fprintf(&b, "  selfplay.precision auto:  %s\n", p.autoText())
		fmt.Fprintf(&b, "  a training run's self-play: %.0f samples/s (%s; %d games, batch %d)\n",
			p.RunSelfPlaySamplesPerS, p.RunSelfPlay, p.RunParallelGames, p.RunBatch)
		if p.AlphaBetaDepth > 0 {
			fmt.Fprintf(&b, "  alpha-beta, one thread:  %9.0f nodes/s (depth %d)\n", p.AlphaBetaNodesPerS, p.AlphaBetaDepth)
		}
		if p.PerftDepth > 0 {
			fmt.Fprintf(&b, "  perft, one thread:       %9.0f leaves/s (depth %d)\n", p.PerftLeavesPerS, p.PerftDepth)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// kernel8 is the 8-bit kernel's name without the precision around it.
func (p Preset) kernel8() string {
	return strings.TrimSuffix(strings.TrimPrefix(p.Int8Kernel, "int8 ("), ")")
}

// autoText says what selfplay.precision auto runs here and why.
func (p Preset) autoText() string {
	switch {
	case p.AutoPrecision == "int8":
		return "int8, on " + p.kernel8()
	case p.Int8Kernel != "":
		return "fp32 (int8 only on a VNNI kernel or AMX tiles; -set selfplay.precision=int8 runs " + p.kernel8() + ", not matched against fp32)"
	default:
		return "fp32 (no 8-bit kernel for this CPU)"
	}
}
