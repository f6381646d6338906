package trainer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/pons"
	_ "github.com/tabula-zero/tabula/arena/uciplayer" // uci: anchors
	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/configs/configstest"
	"github.com/tabula-zero/tabula/internal/cputime"
	"github.com/tabula-zero/tabula/internal/ponsdata"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/infer"
	"github.com/tabula-zero/tabula/net/onnx"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/selfplay"
	"github.com/tabula-zero/tabula/trainer/matches"
)

func tinyConfig(t *testing.T) *configs.Config { return configstest.TinyConnectFour(t) }

func newFwd(p *net.Params, n int, _ string) (mcts.Forwarder, error) { return infer.New(p, n) }

func metricsOf(t *testing.T, run string) []metrics.Metric {
	f, err := os.Open(filepath.Join(run, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []metrics.Metric
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m metrics.Metric
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// runGated trains cfg with self-play and the arena gate for gens
// generations into a fresh run and returns its generation metrics and
// the trainer's output.
func runGated(t *testing.T, cfg *configs.Config, gens int) ([]metrics.Metric, string) {
	t.Helper()
	run := t.TempDir()
	var out bytes.Buffer
	opts := Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: gens, Out: &out, NewForwarder: newFwd, Gate: matches.ArenaGate(run)}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return metricsOfKind(t, run, "generation"), out.String()
}

// metricsOfKind returns the run's metrics lines of one kind.
func metricsOfKind(t *testing.T, run, kind string) []metrics.Metric {
	var out []metrics.Metric
	for _, m := range metricsOf(t, run) {
		if m.Kind == kind {
			out = append(out, m)
		}
	}
	return out
}

// TestLoopAndResume: two generations, then a resume for one more; the
// step and generation counters continue, checkpoints and plots exist.
func TestLoopAndResume(t *testing.T) {
	run := t.TempDir()
	var out bytes.Buffer
	opts := Options{Run: run, Config: tinyConfig(t), SelfPlay: true, MaxGenerations: 2, Out: &out, NewForwarder: newFwd}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	names, _ := rundir.Dir(run).List()
	if len(names) != 3 { // generation 0 and two trained ones
		t.Fatalf("checkpoints %v", names)
	}
	latest, _ := rundir.Dir(run).Pointer(rundir.Latest)
	c, err := checkpoints.Load(latest)
	if err != nil || c.Generation != 2 || c.Step != 20 || len(c.Optimizer) == 0 || len(c.RNG) == 0 {
		t.Fatalf("latest %s: %+v %v", latest, c, err)
	}
	// Resume: the same command continues from generation 2, step 20,
	// also when the frozen config, as a build before a retirement wrote
	// it, has a retired key at its off value.
	frozen := rundir.Dir(run).Config()
	b, _ := os.ReadFile(frozen)
	_, body, _ := strings.Cut(string(b), "\n") // the seal line
	os.WriteFile(frozen, configs.Seal([]byte(strings.Replace(body, "search:\n", "search:\n    forced_playouts: 0\n", 1))), 0o644)
	opts.Config = nil
	opts.MaxGenerations = 1
	out.Reset()
	if err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "retired keys at their off values ignored: search.forced_playouts (docs/retired.md)") {
		t.Fatalf("the retired key is not reported:\n%s", out.String())
	}
	latest, _ = rundir.Dir(run).Pointer(rundir.Latest)
	if c, err = checkpoints.Load(latest); err != nil || c.Generation != 3 || c.Step != 30 {
		t.Fatalf("after resume: generation %d step %d, %v", c.Generation, c.Step, err)
	}
	gens := 0
	for _, m := range metricsOf(t, run) {
		if m.Kind == "generation" {
			gens++
			if m.Generation != gens || !m.Promoted {
				t.Fatalf("generation line %+v", m)
			}
		}
	}
	if gens != 3 {
		t.Fatalf("%d generation lines", gens)
	}
	for _, f := range []string{"plots/loss.png", "config.yaml", "best"} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	// A changed config is refused unless accepted.
	changed := tinyConfig(t)
	changed.Training.Momentum = 0.5
	opts.Config = changed
	if err := Run(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "accept-config-change") {
		t.Fatalf("changed config: %v", err)
	}
}

func TestSecondTrainerRefused(t *testing.T) {
	run := t.TempDir()
	release, err := rundir.Dir(run).Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	err = Run(context.Background(), Options{Run: run, Config: tinyConfig(t), NewForwarder: newFwd})
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second trainer: %v", err)
	}
}

// TestEndToEnd: self-play -> train -> gate -> promote, an interrupt in the
// middle of a generation, resume, and export of the result to ONNX.
func TestEndToEnd(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t)
	cfg.Gating.Matches = []configs.GateMatch{
		{Opponent: "best", Games: 4, Simulations: 4, Threshold: 0.01},
		{Opponent: "ab:depth=1", Games: 2, Simulations: 4},
	}
	var out bytes.Buffer
	opts := Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: 2, Out: &out, NewForwarder: newFwd, Gate: matches.ArenaGate(run)}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	gens := metricsOfKind(t, run, "generation")
	if len(gens) != 2 || len(gens[0].Matches) != 2 || gens[0].Matches[0].Games != 4 || gens[0].Matches[1].Opponent != "ab:depth=1" {
		t.Fatalf("generation metrics %+v", gens)
	}
	for _, g := range gens {
		// Every phase took some time; none took more than the generation.
		total := g.Time.Sub(gens[0].Time).Seconds()
		if g.GatherSeconds <= 0 || g.TrainSeconds <= 0 || g.GateSeconds <= 0 || g.Generation == 2 && g.GatherSeconds+g.TrainSeconds+g.GateSeconds > total {
			t.Errorf("generation %d phase times: gather %v train %v gate %v (%.3fs after generation 1)", g.Generation, g.GatherSeconds, g.TrainSeconds, g.GateSeconds, total)
		}
	}
	records, _ := filepath.Glob(filepath.Join(run, "arena", "*.jsonl"))
	if len(records) != 4 {
		t.Fatalf("arena records %v", records)
	}
	best, _ := rundir.Dir(run).Pointer(rundir.Best)
	bc, _ := checkpoints.Load(best)
	if wantBest := gens[1].Best; bc.Generation != wantBest {
		t.Fatalf("best pointer at generation %d, metrics say %d", bc.Generation, wantBest)
	}
	// Interrupt during the next generation's training: a checkpoint of
	// the part-trained generation is saved and the run resumes from it.
	ctx, cancel := context.WithCancel(context.Background())
	opts.Config, opts.MaxGenerations = nil, 1
	// Cancel once the first training record of the new generation is in
	// the metrics (checked whenever the trainer writes progress, which it
	// does right after each record).
	opts.Out = writerFunc(func([]byte) {
		for _, m := range metricsOf(t, run) {
			if m.Kind == "train" && m.Generation == 2 {
				cancel()
			}
		}
	})
	cfgFrozen, _ := configs.Load(filepath.Join(run, "config.yaml"))
	cfgFrozen.Training.StepsPerGeneration = 200 // long enough to be interrupted
	opts.Config, opts.AcceptConfigChange = cfgFrozen, true
	if err := Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	latest, _ := rundir.Dir(run).Pointer(rundir.Latest)
	lc, err := checkpoints.Load(latest)
	if err != nil || lc.Generation != 2 || lc.Step <= 20 || lc.Step >= 220 {
		t.Fatalf("interrupted checkpoint: generation %d step %d, %v", lc.Generation, lc.Step, err)
	}
	if _, err := os.Stat(filepath.Join(run, "config-changes.log")); err != nil {
		t.Fatal("accepted config change not logged")
	}
	opts.Out, opts.Config = &out, nil
	if err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	latest, _ = rundir.Dir(run).Pointer(rundir.Latest)
	if lc2, _ := checkpoints.Load(latest); lc2.Generation != 3 || lc2.Step != lc.Step+200 {
		t.Fatalf("resumed run: generation %d step %d, want 3 and %d", lc2.Generation, lc2.Step, lc.Step+200)
	}
	// Export the trained network and check it with onnx's reader.
	lc3, _ := checkpoints.Load(latest)
	b, err := onnx.Marshal(lc3.Params, onnx.Metadata{})
	if err != nil || len(b) < 1000 {
		t.Fatalf("export: %d bytes, %v", len(b), err)
	}
}

type writerFunc func(p []byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// TestTrainFromShards: with self-play off the trainer waits for shards
// written by other workers and trains on them.
func TestTrainFromShards(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t)
	// Another worker (here: this process, before the trainer starts)
	// writes shards with the generation-0 network.
	spec, _ := configs.NetSpec(cfg)
	p, _ := net.NewParams(spec, cfg.Seed)
	fwd, _ := infer.New(p, cfg.SelfPlay.BatchSize)
	setup, err := selfplay.ConfigSetup(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := selfplay.New(setup, selfplay.Options{ReplayDir: filepath.Join(run, "replay"), Worker: "remote"}, fwd, 0)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(run, "replay"), 0o755)
	if err := w.Run(context.Background(), 40, 0); err != nil {
		t.Fatal(err)
	}
	if w.Stats().Samples < int64(cfg.Replay.MinSamples) {
		t.Fatalf("only %d samples", w.Stats().Samples)
	}
	var out bytes.Buffer
	if err := Run(context.Background(), Options{Run: run, Config: cfg, SelfPlay: false, MaxGenerations: 1, Out: &out, NewForwarder: newFwd}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	latest, _ := rundir.Dir(run).Pointer(rundir.Latest)
	if c, err := checkpoints.Load(latest); err != nil || c.Generation != 1 || c.Step != int64(cfg.Training.StepsPerGeneration) {
		t.Fatalf("latest after training from shards: %+v %v", c, err)
	}
	if strings.Contains(out.String(), "self-play:") {
		t.Fatal("the trainer played games although self-play was off")
	}
}

// A trainer without self-play and without workers says what it waits
// for, warns again at each interval without shards, and stops with the
// time limit, whose clock runs while it waits.
func TestWaitForWorkersWarns(t *testing.T) {
	run := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var out bytes.Buffer
	hook := writerFunc(func(p []byte) {
		mu.Lock()
		defer mu.Unlock()
		out.Write(p)
		if strings.Count(out.String(), "no new shards for") == 2 {
			cancel()
		}
	})
	err := Run(ctx, Options{Run: run, Config: tinyConfig(t), MaxTime: time.Hour, Out: hook, NewForwarder: newFwd, noShardsWarning: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	text := out.String()
	replay := filepath.Join(run, "replay")
	if !strings.Contains(text, fmt.Sprintf("waiting for %d samples from other workers' shards in %s", tinyConfig(t).Replay.MinSamples, replay)) ||
		!strings.Contains(text, "the wait counts toward -max-time") {
		t.Errorf("no waiting line:\n%s", text)
	}
	// The silence so far, growing by the interval.
	if !strings.Contains(text, "no new shards for 50ms") || !strings.Contains(text, "no new shards for 100ms") {
		t.Errorf("no warnings at each interval:\n%s", text)
	}

	// -max-time ends the wait: the clock counts it.
	run = t.TempDir()
	out.Reset()
	if err := Run(context.Background(), Options{Run: run, Config: tinyConfig(t), MaxTime: 300 * time.Millisecond, Out: &out, NewForwarder: newFwd}); err != nil {
		t.Fatal(err)
	}
	stops := metricsOfKind(t, run, "stop")
	if len(stops) != 1 || stops[0].TrainClock < 0.3 || stops[0].Step != 0 {
		t.Fatalf("stop lines %+v\n%s", stops, out.String())
	}
}

// -max-cpu stops an invocation after that much CPU time of training,
// counted from where the run stood: a second invocation trains as much
// again, and the progress lines say what is left.
func TestMaxCPU(t *testing.T) {
	if _, ok := cputime.Process(); !ok {
		t.Skip("this platform does not report the process's CPU time")
	}
	run := t.TempDir()
	var stops []float64
	for i := range 2 {
		var out bytes.Buffer
		opts := Options{Run: run, Config: tinyConfig(t), SelfPlay: true, MaxCPU: time.Second, Out: &out, NewForwarder: newFwd}
		if err := Run(context.Background(), opts); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		st := metricsOfKind(t, run, "stop")
		if len(st) != i+1 {
			t.Fatalf("invocation %d: stop lines %+v\n%s", i, st, out.String())
		}
		stops = append(stops, st[i].TrainCPU)
		if !strings.Contains(out.String(), " CPU left") {
			t.Errorf("invocation %d: no line says the CPU time left:\n%s", i, out.String())
		}
	}
	if stops[0] < 1 || stops[1] < stops[0]+1 {
		t.Errorf("stopped at %.2f and %.2f CPU seconds of training, with a limit of 1 s each", stops[0], stops[1])
	}
}

// -until-cpu stops a run once its training CPU time in all reaches the
// limit: the same command run again has nothing to do and says so, and
// a higher limit trains on to it (with -max-cpu: TestCPULimit).
func TestUntilCPU(t *testing.T) {
	if _, ok := cputime.Process(); !ok {
		t.Skip("this platform does not report the process's CPU time")
	}
	run := t.TempDir()
	invoke := func(until time.Duration) string {
		t.Helper()
		var out bytes.Buffer
		opts := Options{Run: run, Config: tinyConfig(t), SelfPlay: true, UntilCPU: until, Out: &out, NewForwarder: newFwd}
		if err := Run(context.Background(), opts); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		return out.String()
	}
	out := invoke(time.Second)
	st := metricsOfKind(t, run, "stop")
	if len(st) != 1 || st[0].TrainCPU < 1 || !strings.Contains(out, " CPU left") {
		t.Fatalf("first invocation: stop lines %+v\n%s", st, out)
	}
	step := latestCheckpoint(t, run).Step
	out = invoke(time.Second)
	if !strings.Contains(out, "nothing to do") || len(metricsOfKind(t, run, "stop")) != 1 || latestCheckpoint(t, run).Step != step {
		t.Fatalf("the same limit again trained or did not say why not (step %d, was %d):\n%s", latestCheckpoint(t, run).Step, step, out)
	}
	invoke(2 * time.Second)
	st = metricsOfKind(t, run, "stop")
	if len(st) != 2 || st[1].TrainCPU < 2 || latestCheckpoint(t, run).Step <= step {
		t.Errorf("a higher limit: stop lines %+v, step %d (was %d)", st, latestCheckpoint(t, run).Step, step)
	}
}

func TestCPULimit(t *testing.T) {
	h := time.Hour
	for _, c := range []struct{ cpu, maxCPU, until, want time.Duration }{
		{0, 0, 0, 0},
		{h, 2 * h, 0, 3 * h},
		{h, 0, 2 * h, 2 * h},
		{h, 2 * h, 2 * h, 2 * h}, // -until-cpu first
		{h, 30 * time.Minute, 2 * h, h + 30*time.Minute},
	} {
		if got := cpuLimit(c.cpu, c.maxCPU, c.until); got != c.want {
			t.Errorf("cpuLimit(%v, -max-cpu %v, -until-cpu %v) = %v, want %v", c.cpu, c.maxCPU, c.until, got, c.want)
		}
	}
}

// oneGen runs the tiny config for one generation (gen: the run so far)
// and returns the output.
func oneGen(t *testing.T, run string, cfg *configs.Config) string {
	t.Helper()
	var out bytes.Buffer
	if err := Run(context.Background(), Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: 1, Out: &out, NewForwarder: newFwd}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return out.String()
}

func latestGeneration(t *testing.T, run string) int {
	t.Helper()
	return latestCheckpoint(t, run).Generation
}

func latestCheckpoint(t *testing.T, run string) *checkpoints.Checkpoint {
	t.Helper()
	latest, err := rundir.Dir(run).Pointer(rundir.Latest)
	if err != nil {
		t.Fatal(err)
	}
	c, err := checkpoints.Load(latest)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A kill while a new run is created leaves a run that starts: before best
// was written (the first checkpoint and latest only, as the creation order
// once left it), and before latest was written (checkpoint and best only).
func TestInterruptedCreationResumes(t *testing.T) {
	cfg := tinyConfig(t)
	spec, _ := configs.NetSpec(cfg)
	p, _ := net.NewParams(spec, cfg.Seed)
	gen0 := &checkpoints.Checkpoint{Params: p}

	run := t.TempDir()
	os.WriteFile(filepath.Join(run, "config.yaml"), cfg.MarshalSealed(), 0o644)
	if _, err := rundir.Dir(run).Save(gen0); err != nil { // checkpoint + latest, no best
		t.Fatal(err)
	}
	oneGen(t, run, nil)
	if latestGeneration(t, run) != 1 {
		t.Fatal("the run did not go on")
	}

	run = t.TempDir()
	os.WriteFile(filepath.Join(run, "config.yaml"), cfg.MarshalSealed(), 0o644)
	if _, err := rundir.Dir(run).Create(gen0); err != nil {
		t.Fatal(err)
	}
	os.Remove(rundir.Dir(run).Path(rundir.Latest)) // killed before latest
	oneGen(t, run, nil)
	if latestGeneration(t, run) != 1 {
		t.Fatal("the run did not go on")
	}
	if _, err := rundir.Dir(run).Pointer(rundir.Best); err != nil {
		t.Fatalf("best: %v", err)
	}
}

// A damaged latest pointer that names an older checkpoint is detected and
// repaired: the run resumes from the newest generation, and no checkpoint
// file is overwritten. Temporary files of killed writes are removed, and a
// metrics line cut short does not swallow the next record.
func TestDamageDetectedOnResume(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t)
	oneGen(t, run, cfg)
	oneGen(t, run, nil)
	names, _ := rundir.Dir(run).List()
	if len(names) != 3 {
		t.Fatalf("checkpoints %v", names)
	}
	newest, _ := os.ReadFile(rundir.Dir(run).Checkpoint(names[2]))
	latest := rundir.Dir(run).Path(rundir.Latest)
	text, _ := os.ReadFile(latest)
	os.WriteFile(latest, bytes.Replace(text, []byte(names[2]), []byte(names[1]), 1), 0o644)
	stale := rundir.Dir(run).Checkpoint("." + names[2] + ".tmp-123")
	os.WriteFile(stale, []byte("half a checkpoint"), 0o644)
	mf, _ := os.OpenFile(filepath.Join(run, "metrics.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	mf.WriteString(`{"kind":"train","generation":`)
	mf.Close()

	oneGen(t, run, nil)
	if g := latestGeneration(t, run); g != 3 {
		t.Fatalf("resumed into generation %d, want 3", g)
	}
	if b, _ := os.ReadFile(rundir.Dir(run).Checkpoint(names[2])); !bytes.Equal(b, newest) {
		t.Fatal("the newest checkpoint was overwritten")
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatal("the temporary file of a killed write is still there")
	}
	b, _ := os.ReadFile(filepath.Join(run, "metrics.jsonl"))
	bad := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m metrics.Metric
		if json.Unmarshal([]byte(l), &m) != nil {
			bad++
		}
	}
	if bad != 1 || !strings.Contains(string(b), "\"generation\":3") {
		t.Fatalf("%d unreadable metrics lines (want only the cut one), generation 3 recorded: %v", bad, strings.Contains(string(b), "\"generation\":3"))
	}
}

// A run is never started anew over its own checkpoints, nor resumed
// under another config: with latest deleted, both pointers deleted, best
// deleted or config.yaml deleted, Run refuses with the repair and leaves
// every file as it was; the repair it names resumes the run.
func TestDamagedRunRefused(t *testing.T) {
	run := t.TempDir()
	dir := rundir.Dir(run)
	cfg := tinyConfig(t)
	oneGen(t, run, cfg)
	oneGen(t, run, nil)
	names, _ := dir.List()
	if len(names) != 3 {
		t.Fatalf("checkpoints %v", names)
	}
	snapshot := func() map[string]string {
		files := map[string]string{}
		for _, p := range append([]string{rundir.Latest, rundir.Best, "config.yaml", "metrics.jsonl"}, names...) {
			path := dir.Path(p)
			if strings.HasSuffix(p, checkpoints.Ext) {
				path = dir.Checkpoint(p)
			}
			b, _ := os.ReadFile(path)
			files[p] = string(b)
		}
		return files
	}
	resume := func(cfg *configs.Config, accept bool) (string, error) {
		var out bytes.Buffer
		err := Run(context.Background(), Options{Run: run, Config: cfg, AcceptConfigChange: accept, SelfPlay: true, MaxGenerations: 1, Out: &out, NewForwarder: newFwd})
		return out.String(), err
	}
	preset, _ := configs.Preset("connect4")
	for _, c := range []struct {
		name   string
		remove []string
		cfg    *configs.Config
		want   []string
	}{
		{"latest deleted", []string{rundir.Latest}, nil, []string{"no latest pointer", "write " + names[2] + " into " + dir.Path(rundir.Latest)}},
		{"both pointers deleted", []string{rundir.Latest, rundir.Best}, nil,
			[]string{"write " + names[2] + " into " + dir.Path(rundir.Latest), "checkpoint into " + dir.Path(rundir.Best)}},
		{"best deleted", []string{rundir.Best}, nil, []string{"no best pointer", "checkpoint into " + dir.Path(rundir.Best)}},
		{"config.yaml deleted", []string{"config.yaml"}, nil, []string{"but no config.yaml", "-config FILE -accept-config-change"}},
		{"config.yaml deleted, the preset given", []string{"config.yaml"}, preset, []string{"but no config.yaml"}},
	} {
		before := snapshot()
		for _, p := range c.remove {
			os.Remove(dir.Path(p))
		}
		out, err := resume(c.cfg, false)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v; want %q\n%s", c.name, err, w, out)
			}
		}
		if strings.Contains(out, "new run") {
			t.Errorf("%s: a new run started:\n%s", c.name, out)
		}
		after := snapshot()
		for _, p := range c.remove {
			if after[p] != "" {
				t.Errorf("%s: %s was written", c.name, p)
			}
			after[p] = before[p]
		}
		if !reflect.DeepEqual(after, before) {
			t.Errorf("%s: the refusal changed the run's files", c.name)
		}
		if names2, _ := dir.List(); !reflect.DeepEqual(names2, names) {
			t.Errorf("%s: checkpoints %v, want %v", c.name, names2, names)
		}
		for p, b := range before { // put the run back
			path := dir.Path(p)
			if strings.HasSuffix(p, checkpoints.Ext) {
				path = dir.Checkpoint(p)
			}
			os.WriteFile(path, []byte(b), 0o644)
		}
	}
	// The repairs the errors name: the checkpoint's name into latest, the
	// run's config given with accept.
	os.Remove(dir.Path(rundir.Latest))
	os.WriteFile(dir.Path(rundir.Latest), []byte(names[2]+"\n"), 0o644)
	os.Remove(dir.Config())
	if out, err := resume(cfg, true); err != nil {
		t.Fatalf("after the repairs: %v\n%s", err, out)
	}
	if g := latestGeneration(t, run); g != 3 {
		t.Fatalf("resumed into generation %d, want 3", g)
	}
}

// After a restart the first generation plays fresh games as sample_ratio
// asks, rather than training again on the window it already trained on.
func TestSampleRatioAfterRestart(t *testing.T) {
	run := t.TempDir()
	oneGen(t, run, tinyConfig(t))
	oneGen(t, run, nil)
	ms := metricsOfKind(t, run, "generation")
	if last := ms[len(ms)-1]; last.Generation != 2 || last.SelfPlayGames == 0 {
		t.Fatalf("the first generation after a restart trained without self-play: %+v", last)
	}
}

// A generation gathers the samples sample_ratio asks for, not whole
// shards: with shards far larger than that, each generation's new samples
// are what it needs plus at most the games that were ending meanwhile.
func TestSampleRatioGathersWhatItNeeds(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.SelfPlay.ShardSamples = 5000
	cfg.Training.SampleRatio = 1
	need := cfg.Training.StepsPerGeneration * cfg.Training.BatchSize
	cfg.Replay.MinSamples = need
	const maxPlies = 42 // a Connect Four game
	slack := cfg.SelfPlay.ParallelGames * maxPlies
	run := t.TempDir()
	var out bytes.Buffer
	if err := Run(context.Background(), Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: 3, Out: &out, NewForwarder: newFwd}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	ms := metricsOfKind(t, run, "generation")
	if len(ms) != 3 {
		t.Fatalf("%d generations", len(ms))
	}
	prev := int64(0)
	for _, m := range ms {
		got := int(m.SelfPlaySamples - prev)
		prev = m.SelfPlaySamples
		if got < need || got > need+slack {
			t.Errorf("generation %d gathered %d samples, want %d to %d", m.Generation, got, need, need+slack)
		}
	}
}

// TestCosineFloor: training.min_learning_rate is where a cosine schedule
// ends and stays, so steps past total_steps still learn.
func TestCosineFloor(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Training.Schedule, cfg.Training.LearningRate = "cosine", 0.05
	cfg.Training.WarmupSteps, cfg.Training.TotalSteps, cfg.Training.MinLearningRate = 0, 4, 0.004
	run := t.TempDir()
	oneGen(t, run, cfg)
	tr := metricsOfKind(t, run, "train")
	if len(tr) == 0 || tr[len(tr)-1].Step <= 4 || tr[len(tr)-1].LR != 0.004 {
		t.Fatalf("train metrics past total_steps: %+v", tr)
	}
}

// A metrics file that is not a regular file (a link to /dev/zero or
// /dev/full) is refused when the run opens, naming it: records written
// there would be lost, or fail only once the run has trained. A failed
// write itself is internal/jsonl's test.
func TestMetricsFileNotRegularRefused(t *testing.T) {
	for _, dev := range []string{"/dev/zero", "/dev/full"} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		run := t.TempDir()
		if err := os.Symlink(dev, filepath.Join(run, "metrics.jsonl")); err != nil {
			t.Skip(err)
		}
		err := Run(context.Background(), Options{Run: run, Config: tinyConfig(t), SelfPlay: true, MaxGenerations: 1, NewForwarder: newFwd})
		if err == nil || !strings.Contains(err.Error(), "metrics.jsonl is a character device, not a regular file") {
			t.Fatalf("metrics.jsonl linked to %s: Run = %v", dev, err)
		}
		if names, _ := rundir.Dir(run).List(); len(names) > 0 {
			t.Errorf("metrics.jsonl linked to %s: the run trained anyway (%v)", dev, names)
		}
	}
}

// Bad gate and evaluation players fail when the config loads, before any
// self-play, and leave nothing behind; a frozen config cut short is
// refused.
func TestConfigCheckedAtLoad(t *testing.T) {
	for _, c := range []struct {
		match configs.GateMatch
		want  string
	}{
		{configs.GateMatch{Opponent: "ab:depth=-3", Games: 2, Simulations: 2}, "gating.matches[0].opponent"},
		{configs.GateMatch{Opponent: "chess:engine", Games: 2, Simulations: 2}, "gating.matches[0].opponent"},
	} {
		run := t.TempDir()
		cfg := tinyConfig(t)
		cfg.Gating.Matches = []configs.GateMatch{c.match}
		var out bytes.Buffer
		err := Run(context.Background(), Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: 1, Out: &out, NewForwarder: newFwd, Gate: matches.ArenaGate(run)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c.match, err)
		}
		if es, _ := os.ReadDir(run); len(es) > 0 {
			t.Errorf("%+v: left %v", c.match, es)
		}
	}
	// A bad evaluation anchor is refused before the run directory exists,
	// so the config is never frozen with it.
	for _, c := range []struct{ opponent, want string }{
		{"ab:depth=-3", "evaluation.matches[0].opponent"},
		{"chess:engine", "unknown kind"},
		{"net:/nonexistent/run", "/nonexistent/run"},
	} {
		run := filepath.Join(t.TempDir(), "run")
		cfg := tinyConfig(t)
		cfg.Evaluation = configs.Evaluation{Every: time.Hour, Matches: []configs.GateMatch{{Opponent: c.opponent, Games: 2}}}
		err := Run(context.Background(), Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: 1, NewForwarder: newFwd})
		if err == nil || !strings.Contains(err.Error(), "evaluation.matches[0].opponent") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("evaluation opponent %s: %v", c.opponent, err)
		}
		if _, err := os.Stat(run); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("evaluation opponent %s: the run directory was created (%v)", c.opponent, err)
		}
	}
	// A position-set section no measure declares (a misspelt key) parses,
	// whatever the program links, and is refused here, before the run
	// directory exists.
	{
		run := filepath.Join(t.TempDir(), "run")
		cfg := tinyConfig(t)
		cfg.Evaluation = configs.Evaluation{Every: time.Hour, Sets: map[string]*configs.EvalSet{"ponz": {Simulations: []int{0}}}}
		err := Run(context.Background(), Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: 1, NewForwarder: newFwd})
		if err == nil || !strings.Contains(err.Error(), "evaluation.ponz") {
			t.Errorf("misspelt position-set section: %v", err)
		}
		if _, err := os.Stat(run); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("misspelt position-set section: the run directory was created (%v)", err)
		}
	}
	run := t.TempDir()
	oneGen(t, run, tinyConfig(t))
	path := filepath.Join(run, "config.yaml")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, b[:bytes.Index(b, []byte("gating:"))+len("gating:\n")], 0o644)
	err := Run(context.Background(), Options{Run: run, SelfPlay: true, MaxGenerations: 1, NewForwarder: newFwd})
	if err == nil || !strings.Contains(err.Error(), "config.yaml") {
		t.Fatalf("truncated frozen config: %v", err)
	}
}

// TestEvaluation: a run with an evaluation section measures its best
// network at the interval of training (not the untrained network) and
// where the limit stops it, against the anchors and on Pons' positions,
// skipping (and saying so) an outside engine that is not installed;
// -max-train-time counts training time only; a resumed run continues the
// clock and the schedule.
func TestEvaluation(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t)
	cfg.Evaluation = configs.Evaluation{Every: time.Second,
		Matches: []configs.GateMatch{{Opponent: "random", Games: 2, Simulations: 0},
			{Opponent: "uci:/nonexistent/fairy-stockfish,nodes=10", Games: 2}},
		Sets: map[string]*configs.EvalSet{"pons": {Set: "Test_L2_R1", Positions: 20, Simulations: []int{0, 4}}}}
	var out bytes.Buffer
	opts := Options{Run: run, Config: cfg, SelfPlay: true, MaxTrainTime: 3 * time.Second, Out: &out, NewForwarder: newFwd}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// Training lines fit 100 columns, with the time left, and do not
	// repeat the gate's result.
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "gen ") && (len(line) > 100 || !strings.Contains(line, " left") || strings.Contains(line, "promoted")) {
			t.Errorf("training line of %d columns: %q", len(line), line)
		}
	}
	evals := func() (ev []metrics.Metric, stop metrics.Metric) {
		for _, m := range metricsOf(t, run) {
			switch m.Kind {
			case "evaluation":
				ev = append(ev, m)
			case "stop":
				stop = m
			}
		}
		return ev, stop
	}
	ev, stop := evals()
	if len(ev) < 2 || ev[0].TrainClock < 1 || ev[0].Generation == 0 {
		t.Fatalf("evaluations %+v\n%s", ev, out.String())
	}
	if n := strings.Count(out.String(), "evaluation.matches[1] skipped"); n != len(ev) || !strings.Contains(out.String(), "/nonexistent/fairy-stockfish") {
		t.Errorf("the missing engine's match skipped %d times in %d evaluations:\n%s", n, len(ev), out.String())
	}
	for i, m := range ev {
		ps := entry[[]pons.Result](t, m, "pons")
		if len(m.Matches) != 1 || m.Matches[0].Games != 2 || m.Matches[0].Opponent != "random" || len(ps) != 2 ||
			ps[0].Simulations != 0 || ps[1].Simulations != 4 || ps[0].Positions != 20 {
			t.Fatalf("evaluation %d: %+v", i, m)
		}
		if i > 0 && i < len(ev)-1 && m.TrainClock < ev[i-1].TrainClock+1 {
			t.Errorf("evaluation %d at %.2fs of training, the one before at %.2fs: want 1s apart", i, m.TrainClock, ev[i-1].TrainClock)
		}
	}
	// CPU time is counted over the training time: it grows from one
	// evaluation to the next and no more than every core for the wall
	// time can give (a little slack for where the two are read).
	if _, ok := cputime.Process(); ok {
		for i, m := range ev {
			if i > 0 && m.TrainCPU < ev[i-1].TrainCPU {
				t.Errorf("evaluation %d: %.3f CPU seconds, the one before %.3f", i, m.TrainCPU, ev[i-1].TrainCPU)
			}
			if m.TrainCPU > m.TrainClock*float64(runtime.NumCPU())+0.2 {
				t.Errorf("evaluation %d: %.3f CPU seconds in %.3f s of training on %d cores", i, m.TrainCPU, m.TrainClock, runtime.NumCPU())
			}
		}
		if final := ev[len(ev)-1]; final.TrainCPU <= 0 {
			t.Errorf("last evaluation: %.3f CPU seconds of training", final.TrainCPU)
		}
	}
	// The run trained for its limit, whatever the evaluations cost, and
	// the last evaluation measured the network it stopped with.
	if final := ev[len(ev)-1]; stop.TrainClock < 3 || final.Step != stop.Step {
		t.Errorf("stopped at %.2fs of training, step %d; the last evaluation at step %d (limit 3s)\n%s", stop.TrainClock, stop.Step, final.Step, out.String())
	}
	// The raw policy's Pons figure is the best network's: measure the
	// checkpoint independently.
	bestPath, err := rundir.Dir(run).Pointer(rundir.Best)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	bc, err := checkpoints.Load(bestPath)
	if err != nil {
		t.Fatal(err)
	}
	final := ev[len(ev)-1]
	if bc.Generation != final.Best {
		t.Fatalf("best is generation %d, the evaluation says %d", bc.Generation, final.Best)
	}
	spec, err := bestSpec("connect4", bc.Params)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := ponsdata.Open("Test_L2_R1")
	lines, err := pons.Read(f, 20)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	acc, err := pons.Measure(context.Background(), spec, lines, 1)
	if err != nil || acc.Optimal != entry[[]pons.Result](t, final, "pons")[0].Optimal {
		t.Fatalf("raw policy: %d optimal of 20 measured apart, %d in the evaluation (%v)", acc.Optimal, entry[[]pons.Result](t, final, "pons")[0].Optimal, err)
	}
	records, _ := filepath.Glob(filepath.Join(run, "arena", "e*-0-random.jsonl"))
	if len(records) != len(ev) {
		t.Fatalf("%d evaluation records for %d evaluations", len(records), len(ev))
	}
	for _, plot := range []string{"strength.png", "strength-cpu.png", "pons.png"} {
		if _, err := os.Stat(filepath.Join(run, "plots", plot)); err != nil {
			t.Error(err)
		}
	}
	// Resumed: the clock goes on from where it stood, and the schedule
	// with it (no second evaluation at the start).
	opts.Config, opts.MaxTrainTime = nil, 1500*time.Millisecond
	if err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	ev2, stop2 := evals()
	if len(ev2) <= len(ev) || stop2.TrainClock < stop.TrainClock+1.5 {
		t.Fatalf("resumed: %d evaluations (before %d), training clock %.2fs (before %.2fs)", len(ev2), len(ev), stop2.TrainClock, stop.TrainClock)
	}
	if first := ev2[len(ev)]; first.TrainClock < stop.TrainClock {
		t.Fatalf("the resumed run evaluated at %.2fs of training, before where it had stopped (%.2fs)", first.TrainClock, stop.TrainClock)
	}
	if first, stopped := ev2[len(ev)], ev[len(ev)-1]; first.TrainCPU < stopped.TrainCPU {
		t.Fatalf("the resumed run's CPU time starts at %.3fs, it had stopped at %.3fs", first.TrainCPU, stopped.TrainCPU)
	}
}

// TestTeacherGenerations: while alpha-beta teaches self-play
// (selfplay.abzero.teacher_generations) candidates are promoted without
// gate games, and from the first generation the network plays in, they
// are gated again.
func TestTeacherGenerations(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.SelfPlay.ABZero = configs.SelfPlayABZero{Generations: 3, Depth: 2, M: "1", ValueScale: 50, TeacherGenerations: 2, TeacherTemperature: 0.5}
	cfg.Gating.Matches = []configs.GateMatch{{Opponent: "best", Games: 2, Simulations: 2, Threshold: 0.55}}
	gens, out := runGated(t, cfg, 3)
	if len(gens) != 3 {
		t.Fatalf("%d generation lines", len(gens))
	}
	for _, g := range gens {
		taught := g.Generation < 2
		if taught != (len(g.Matches) == 0) || (taught && !g.Promoted) {
			t.Fatalf("generation %d: %d gate matches, promoted %v", g.Generation, len(g.Matches), g.Promoted)
		}
	}
	// Why the first generation had no gate games is said once, not on
	// every generation line.
	if strings.Count(out, "teacher_generations") != 1 || !strings.Contains(out, "generation 1 becomes the best network (no gate games while alpha-beta") {
		t.Fatalf("output:\n%s", out)
	}
}

// TestProgressPhases: the tracker follows the phases a terminal bar and
// the dashboard show: self-play toward the generation's samples, the
// training steps, and the gate's games one by one.
func TestProgressPhases(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t)
	tr := progress.New()
	seen := map[string]progress.Phase{}
	out := writerFunc(func([]byte) { // lines are written inside their phase
		if p := tr.Phase(); p.Name != "" {
			seen[p.Name] = p
		}
	})
	opts := Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: 1, Out: out, NewForwarder: newFwd, Progress: tr}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	sp, train := seen["self-play"], seen["training"]
	if sp.Unit != "samples" || sp.Total <= 0 || sp.Done < sp.Total {
		t.Errorf("self-play phase %+v", sp)
	}
	if steps := int64(cfg.Training.StepsPerGeneration); train.Total != steps || train.Done != steps {
		t.Errorf("training phase %+v, want %d steps", train, steps)
	}
	if p := tr.Phase(); p.Name != "" {
		t.Errorf("still in phase %+v after the run", p)
	}

	cfg.Gating.Matches = []configs.GateMatch{
		{Opponent: "best", Games: 4, Simulations: 2, Threshold: 0.5},
		{Opponent: "random", Games: 2, Simulations: 2},
	}
	p, err := rundir.FreshParams(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.Begin("gate", "games", 6)
	if _, err := matches.ArenaGate(run)(progress.WithTracker(context.Background(), tr), cfg, p, 1, p, 0); err != nil {
		t.Fatal(err)
	}
	if g := tr.Phase(); g.Done != 6 {
		t.Errorf("the gate counted %d of its 6 games", g.Done)
	}
}

// A Xiangqi run with network.encoder_version 3 plays, trains and gates
// on the 21-plane encoding (19 planes would not fit its networks) through
// the alpha-beta teacher's generation and a searched one, and resumes.
func TestEncoderVersionRun(t *testing.T) {
	// Encoder 3 with the dense policy head, and the preset's encoder 4
	// with the from-to head, with and without the legal mask (whose
	// batches the network refuses if a target lies off the mask).
	for _, c := range []struct {
		version int
		head    string
		mask    bool
	}{{3, "", false}, {4, "fromto", false}, {4, "fromto", true}} {
		t.Run(fmt.Sprintf("encoder %d mask %v", c.version, c.mask), func(t *testing.T) { testEncoderVersionRun(t, c.version, c.head, c.mask) })
	}
}

func testEncoderVersionRun(t *testing.T, version int, head string, mask bool) {
	cfg, err := configs.Preset("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Rules["PlyCap"] = "30"
	cfg.Network.EncoderVersion, cfg.Network.PolicyHead = version, head
	cfg.Network.Blocks, cfg.Network.Filters, cfg.Network.ValueHidden = 1, 8, 8
	cfg.Search.Simulations, cfg.Search.FastSimulations, cfg.Search.GumbelM = 8, 4, 4
	cfg.SelfPlay.ParallelGames, cfg.SelfPlay.BatchSize, cfg.SelfPlay.ShardSamples = 8, 8, 100
	cfg.SelfPlay.ABZero = configs.SelfPlayABZero{TeacherGenerations: 1, TeacherTemperature: 0.5, ValueScale: 1000, Generations: 1, Depth: 1, M: "1"}
	cfg.Replay.Window, cfg.Replay.MinSamples = 2000, 200
	cfg.Training.BatchSize, cfg.Training.StepsPerGeneration, cfg.Training.SampleRatio = 16, 5, 1
	cfg.Training.WarmupSteps, cfg.Training.TotalSteps = 0, 100
	cfg.Training.LegalMask = mask
	cfg.Gating.Matches = []configs.GateMatch{{Opponent: "best", Games: 2, Simulations: 2, Threshold: 0.55}}
	cfg.Evaluation = configs.Evaluation{}
	run := t.TempDir()
	for _, gens := range []int{2, 1} { // MaxGenerations counts from the resume
		var out bytes.Buffer
		opts := Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: gens, Out: &out, NewForwarder: newFwd, Gate: matches.ArenaGate(run)}
		if err := Run(context.Background(), opts); err != nil {
			t.Fatalf("%d generations: %v\n%s", gens, err, out.String())
		}
	}
	if n := len(metricsOfKind(t, run, "generation")); n != 3 {
		t.Fatalf("%d generation lines, want 3", n)
	}
	if s := latestCheckpoint(t, run).Params.Spec; s.EncoderVersion != version || s.Channels != 21 || s.PolicyHead != head {
		t.Fatalf("latest checkpoint: encoder %d, %d planes, policy head %q; want %d, 21, %q", s.EncoderVersion, s.Channels, s.PolicyHead, version, head)
	}
}

// A run started from another run's network (-init) has that network's
// weights as generation 0 and step 0, and records where they came from;
// resuming with the same -init goes on, another network or a run started
// fresh is refused, and a network of another shape leaves no checkpoint.
func TestInitFromNetwork(t *testing.T) {
	cfg := tinyConfig(t)
	source := t.TempDir()
	oneGen(t, source, cfg)
	sourceBest, err := rundir.Dir(source).Pointer(rundir.Best)
	if err != nil {
		t.Fatal(err)
	}
	want, err := checkpoints.Load(sourceBest)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := rundir.FreshParams(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(want.Params, fresh) {
		t.Fatal("the source's best network is the fresh one: the test would not tell -init from a fresh start")
	}

	run := t.TempDir()
	initRun := func(init string, c *configs.Config) error {
		var out bytes.Buffer
		return Run(context.Background(), Options{Run: run, Init: init, Config: c, SelfPlay: true, MaxGenerations: 1, Out: &out, NewForwarder: newFwd})
	}
	if err := initRun(source, cfg); err != nil {
		t.Fatal(err)
	}
	names, err := rundir.Dir(run).List()
	if err != nil || len(names) < 2 {
		t.Fatalf("checkpoints %v, %v", names, err)
	}
	gen0, err := checkpoints.Load(rundir.Dir(run).Checkpoint(names[0]))
	if err != nil {
		t.Fatal(err)
	}
	if gen0.Generation != 0 || gen0.Step != 0 || len(gen0.Optimizer) != 0 {
		t.Fatalf("generation 0 is generation %d step %d with %d optimizer values", gen0.Generation, gen0.Step, len(gen0.Optimizer))
	}
	if !reflect.DeepEqual(gen0.Params, want.Params) {
		t.Fatal("generation 0 does not hold the -init network's weights")
	}
	if latestGeneration(t, run) != 1 {
		t.Fatal("the run did not train a generation")
	}

	// The same command resumes; another network or none recorded is refused.
	if err := initRun(source, nil); err != nil {
		t.Fatalf("resuming with the same -init: %v", err)
	}
	if latestGeneration(t, run) != 2 {
		t.Fatal("the resumed run did not go on")
	}
	other := rundir.Dir(source).Checkpoint(names[0]) // the source's fresh generation 0
	if err := initRun(other, nil); err == nil || !strings.Contains(err.Error(), "started from another network") {
		t.Fatalf("resuming with another -init: %v", err)
	}
	freshRun := t.TempDir()
	oneGen(t, freshRun, cfg)
	err = Run(context.Background(), Options{Run: freshRun, Init: source, SelfPlay: true, MaxGenerations: 1, Out: io.Discard, NewForwarder: newFwd})
	if err == nil || !strings.Contains(err.Error(), "started from a fresh network") {
		t.Fatalf("-init on a run started fresh: %v", err)
	}

	// A config with more filters and blocks grows the network: generation
	// 0 plays as the source's best does.
	bigger := tinyConfig(t)
	bigger.Network.Filters += 4
	bigger.Network.Blocks++
	run = t.TempDir()
	if err := initRun(source, bigger); err != nil {
		t.Fatalf("-init into a larger network: %v", err)
	}
	names, err = rundir.Dir(run).List()
	if err != nil || len(names) < 2 {
		t.Fatalf("checkpoints %v, %v", names, err)
	}
	grown, err := checkpoints.Load(rundir.Dir(run).Checkpoint(names[0]))
	if err != nil {
		t.Fatal(err)
	}
	if s := grown.Params.Spec; s.Filters != bigger.Network.Filters || s.Blocks != bigger.Network.Blocks {
		t.Fatalf("generation 0 is %d blocks of %d filters", s.Blocks, s.Filters)
	}
	spec := want.Params.Spec
	planes := make([]float32, 3*spec.Channels*spec.Height*spec.Width)
	for i := range planes {
		planes[i] = float32(i % 2)
	}
	wantPol, wantVal := want.Params.Reference(planes, 3)
	gotPol, gotVal := grown.Params.Reference(planes, 3)
	for i := range wantVal {
		if math.Abs(float64(gotVal[i]-wantVal[i])) > 1e-5 {
			t.Fatalf("the grown network's value %v, the source's %v", gotVal[i], wantVal[i])
		}
	}
	for i := range wantPol {
		if math.Abs(float64(gotPol[i]-wantPol[i])) > 1e-4*(1+math.Abs(float64(wantPol[i]))) {
			t.Fatalf("the grown network's logit %d %v, the source's %v", i, gotPol[i], wantPol[i])
		}
	}

	// A network of another shape is named and nothing is created.
	otherHead := tinyConfig(t)
	otherHead.Network.ValueHidden++
	run = t.TempDir()
	if err := initRun(source, otherHead); err == nil || !strings.Contains(err.Error(), "differs from the config's") {
		t.Fatalf("-init with another shape: %v", err)
	}
	if names, _ := rundir.Dir(run).List(); len(names) > 0 {
		t.Fatalf("a refused -init left checkpoints %v", names)
	}
	if _, err := os.Stat(rundir.Dir(run).Init()); err == nil {
		t.Fatal("a refused -init was recorded")
	}
	run = t.TempDir()
	if err := initRun(filepath.Join(source, "missing.ckpt"), cfg); err == nil || !strings.Contains(err.Error(), "missing.ckpt") {
		t.Fatalf("-init of a missing file: %v", err)
	}
}

// A run keeps going from its config, pointers, their checkpoints and its
// metrics alone (what docs/repro/carry.sh carries to another machine): the
// replay window refills from self-play, and the generation, step and
// training CPU time go on from where they were.
func TestResumeFromCarriedFiles(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t)
	oneGen(t, run, cfg)
	oneGen(t, run, nil)
	before := latestCheckpoint(t, run)
	var cpu float64
	for _, m := range metricsOf(t, run) {
		cpu = max(cpu, m.TrainCPU)
	}
	keep := map[string]bool{"config.yaml": true, "metrics.jsonl": true, rundir.Latest: true, rundir.Best: true}
	d := rundir.Dir(run)
	for _, p := range []string{rundir.Latest, rundir.Best} {
		path, err := d.Pointer(p)
		if err != nil {
			t.Fatal(err)
		}
		keep[filepath.Join("checkpoints", filepath.Base(path))] = true
	}
	err := filepath.WalkDir(run, func(path string, e fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(run, path)
		if err != nil || e.IsDir() || keep[rel] {
			return err
		}
		return os.Remove(path)
	})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(d.Replay())

	out := oneGen(t, run, nil)
	after := latestCheckpoint(t, run)
	if after.Generation != before.Generation+1 || after.Step <= before.Step {
		t.Fatalf("after the carry: generation %d step %d, before %d %d\n%s", after.Generation, after.Step, before.Generation, before.Step, out)
	}
	var cpuAfter float64
	for _, m := range metricsOf(t, run) {
		cpuAfter = max(cpuAfter, m.TrainCPU)
	}
	if cpu <= 0 || cpuAfter <= cpu {
		t.Fatalf("train_cpu_s %g before the carry, %g after", cpu, cpuAfter)
	}
}

// bestSpec is a run's best network as the arena's player of its raw
// policy (no search), as the measures' tests play it.
func bestSpec(gameName string, p *net.Params) (*arena.Spec, error) {
	ps, err := player.NetSpec(gameName, p, 0, mcts.DefaultConfig())
	if err != nil {
		return nil, err
	}
	return arena.NewPlayerSpec("best", ps)
}

// A run with the WDL value head trains, gates and resumes through the
// whole loop: its checkpoints keep the head (format version 2), the
// arena plays them, and the value loss it reports is the head's
// cross-entropy.
func TestWDLRun(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Network.ValueHead = net.ValueWDL
	run := t.TempDir()
	var out bytes.Buffer
	opts := Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: 2, Out: &out, NewForwarder: newFwd, Gate: matches.ArenaGate(run)}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	opts.Config, opts.MaxGenerations = nil, 1
	if err := Run(context.Background(), opts); err != nil {
		t.Fatalf("resume: %v\n%s", err, out.String())
	}
	latest, _ := rundir.Dir(run).Pointer(rundir.Latest)
	c, err := checkpoints.Load(latest)
	if err != nil || c.Generation != 3 || !c.Params.Spec.WDLHead() {
		t.Fatalf("latest %s: generation %d, spec %+v, %v", latest, c.Generation, c.Params.Spec, err)
	}
	b, err := os.ReadFile(latest)
	if err != nil {
		t.Fatal(err)
	}
	if v := b[8]; v != checkpoints.FormatVersionWDL {
		t.Errorf("the checkpoint is format version %d", v)
	}
	trains := metricsOfKind(t, run, "train")
	if len(trains) == 0 {
		t.Fatal("no train lines")
	}
	for _, m := range trains {
		// A cross-entropy over three classes is positive; a squared
		// error of values in [-1, 1] would reach 0 on a draw-only batch.
		if !(m.ValueLoss > 0) || math.IsInf(m.ValueLoss, 0) {
			t.Errorf("train line with value loss %v", m.ValueLoss)
		}
	}
	if gens := metricsOfKind(t, run, "generation"); len(gens) != 3 {
		t.Errorf("%d generation lines", len(gens))
	}
}
