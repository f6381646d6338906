package train

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/configs/configstest"
	"github.com/tabula-zero/tabula/internal/cliflag/cliflagtest"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/rundir"
)

func TestTrainOneGeneration(t *testing.T) {
	cfg, _ := configs.Preset("connect4")
	cfg.Network.Blocks, cfg.Network.Filters, cfg.Network.ValueHidden = 1, 8, 8
	cfg.Search.Simulations = 4
	cfg.SelfPlay.ParallelGames, cfg.SelfPlay.BatchSize, cfg.SelfPlay.ShardSamples = 8, 8, 100
	cfg.Replay.Window, cfg.Replay.MinSamples = 1000, 100
	cfg.Training.BatchSize, cfg.Training.StepsPerGeneration, cfg.Training.SampleRatio = 8, 5, 1
	cfg.Gating.Matches = []configs.GateMatch{{Opponent: "random", Games: 2, Simulations: 2}}
	cfg.Evaluation = configs.Evaluation{Every: time.Hour, Matches: []configs.GateMatch{{Opponent: "random", Games: 2}}}
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(path, cfg.Marshal(), 0o644)
	run := filepath.Join(dir, "run")
	var out bytes.Buffer
	if err := run2(&out, "-config", path, "-set", "training.steps_per_generation=6", "-run", run, "-max-generations", "1"); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// Not evaluated untrained; evaluated where the limit stopped the run,
	// its results given once, in the summary.
	if !strings.Contains(out.String(), "generation 1 vs random won ") || strings.Count(out.String(), "evaluation at ") != 0 ||
		!strings.Contains(out.String(), "evaluated the best network, generation 1, where the run stops") || strings.Count(out.String(), "vs random: won ") != 1 {
		t.Fatalf("output:\n%s", out.String())
	}
	// The run ends with a summary: the best network, its evaluation (as
	// the metrics hold it), with no placeholder figure, and the command
	// that resumes the run.
	best, err := rundir.Dir(run).Pointer(rundir.Best)
	if err != nil {
		t.Fatal(err)
	}
	id, err := checkpoints.Identify(best)
	if err != nil {
		t.Fatal(err)
	}
	eval := lastEvaluation(t, run)
	prefix := "resume: " + invokedAs(os.Args[0]) + " train"
	resume := prefix + " -run " + run + " -max-generations 1\n"
	for _, want := range []string{
		fmt.Sprintf("the best network: generation %d, %s\n", id.Generation, best),
		"its latest evaluation, at ",
		fmt.Sprintf("\n  vs random: won %d, drew %d, lost %d ", eval.Matches[0].Wins, eval.Matches[0].Draws, eval.Matches[0].Losses),
		"this is the run's first evaluation",
		resume,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, out.String())
		}
	}
	if eval.Best != id.Generation {
		t.Errorf("the last evaluation measured generation %d, the best is %d", eval.Best, id.Generation)
	}
	if m := regexp.MustCompile(`(±|\+-) ?(1000|0)(\.0+)?([^.\d]|$)|-1000`).FindString(out.String()); m != "" {
		t.Errorf("a placeholder figure %q in:\n%s", m, out.String())
	}
	resumeArgs := strings.Fields(strings.TrimPrefix(resume, prefix))
	for _, f := range []string{"latest", "best", "metrics.jsonl", "config.yaml", "plots/loss.png", "plots/strength.png"} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	if frozen, err := configs.Load(filepath.Join(run, "config.yaml")); err != nil || frozen.Training.StepsPerGeneration != 6 {
		t.Fatalf("-set not in the frozen config: %v", err)
	}
	// With -http the dashboard serves the run while it trains: asked as
	// soon as its address is printed, it answers with the run's status.
	var status string
	hook := writerFunc(func(b []byte) {
		if addr, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "dashboard on "); ok {
			resp, err := http.Get(addr + "/api/status")
			if err != nil {
				status = err.Error()
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			status = string(body)
		}
	})
	prof := filepath.Join(dir, "cpu.pprof")
	if err := runTo(hook, "-run", run, "-max-generations", "1", "-http", "127.0.0.1:0", "-cpuprofile", prof); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(prof); err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("-cpuprofile wrote no gzipped profile: %v", err)
	}
	if !strings.Contains(status, `"game":"connect4"`) || !strings.Contains(status, `"generation":1`) {
		t.Errorf("the dashboard's status during the run: %s", status)
	}
	if err := run2(&out, "-run", run, "-http", "256.0.0.1:1", "-max-generations", "1"); err == nil || !strings.Contains(err.Error(), "dashboard") {
		t.Errorf("a bad -http address: %v", err)
	}
	// A -set on the existing run is a config change: refused without
	// -accept-config-change.
	if err := run2(&out, "-run", run, "-set", "seed=9", "-max-generations", "1"); err == nil || !strings.Contains(err.Error(), "accept-config-change") {
		t.Fatalf("-set on a run without -accept-config-change: %v", err)
	}
	// The summary's command resumes the run: a third generation.
	if err := run2(&out, resumeArgs...); err != nil {
		t.Fatalf("%q: %v", resumeArgs, err)
	}
	latest, _ := rundir.Dir(run).Pointer(rundir.Latest)
	if id, err := checkpoints.Identify(latest); err != nil || id.Generation != 3 {
		t.Fatalf("after the summary's command: %+v %v", id, err)
	}
}

// lastEvaluation reads the run's last evaluation line.
func lastEvaluation(t *testing.T, run string) metrics.Metric {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(run, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var last metrics.Metric
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m metrics.Metric
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m.Kind == "evaluation" {
			last = m
		}
	}
	if len(last.Matches) == 0 {
		t.Fatal("no evaluation in the metrics")
	}
	return last
}

func run2(out *bytes.Buffer, args ...string) error { return run(context.Background(), args, out) }

func runTo(out io.Writer, args ...string) error { return run(context.Background(), args, out) }

func TestFlags(t *testing.T) {
	var out bytes.Buffer
	if err := run2(&out, "-config", "/nonexistent.yaml"); err == nil {
		t.Error("missing config accepted")
	}
	if err := run2(&out, "stray"); err == nil {
		t.Error("stray argument accepted")
	}
	if err := run2(&out, "-game", "chess", "-run", t.TempDir()); err == nil {
		t.Error("unknown game accepted")
	}
	for set, want := range map[string]string{"nonsense": "PATH=VALUE", "training.lerning_rate=1": "lerning_rate"} {
		if err := run2(&out, "-set", set, "-run", t.TempDir()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("-set %s: %v, want an error with %q", set, err, want)
		}
	}
	// Serving to remote workers: checked before the run starts.
	dir := t.TempDir()
	file := func(name, content string) string {
		f := filepath.Join(dir, name)
		os.WriteFile(f, []byte(content), 0o600)
		return f
	}
	trainerCreds, token := file("trainer", "trainer:tpw\n"), file("token", "a-token\n")
	workers, badWorkers := file("workers", "box1:pw1\n# box2 revoked\nbox3:pw3\n"), file("bad", "box1:pw1\nbox_2:pw2\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-serve", "0.0.0.0:0"}, "beyond loopback"},
		{[]string{"-serve", "127.0.0.1:0", "-nats-credentials", trainerCreds}, "worker accounts go together"},
		{[]string{"-serve", "127.0.0.1:0", "-nats-credentials", token, "-nats-workers", workers}, "must be user:password"},
		{[]string{"-serve", "127.0.0.1:0", "-nats-credentials", trainerCreds, "-nats-workers", badWorkers}, "bad:2"},
		{[]string{"-print-nats-conf", "-nats-workers", workers}, "needs -nats-credentials"},
		{[]string{"-serve", "127.0.0.1:0", "-nats", "nats://127.0.0.1:1"}, "exclude each other"},
		{[]string{"-serve", "127.0.0.1:0", "-nats-run", "a.b"}, "-nats-run"},
		{[]string{"-serve", "127.0.0.1:0", "-nats-credentials", "/nonexistent"}, "credentials"},
	} {
		if err := run2(&out, append(c.args, "-run", t.TempDir())...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.args, err, c.want)
		}
	}
	// The configuration of a server of one's own: the trainer with every
	// right, each worker account with its own subject and inbox only.
	out.Reset()
	if err := run2(&out, "-print-nats-conf", "-nats-credentials", trainerCreds, "-nats-workers", workers, "-run", filepath.Join(dir, "c4")); err != nil {
		t.Fatal(err)
	}
	conf := out.String()
	for _, want := range []string{`{user: "trainer", password: "tpw"}`, `"tabula.c4.shards.box1"`, `"_INBOX_box3.>"`} {
		if !strings.Contains(conf, want) {
			t.Errorf("-print-nats-conf lacks %s:\n%s", want, conf)
		}
	}
	if strings.Contains(conf, "box2") || strings.Count(conf, "permissions") != 2 {
		t.Errorf("-print-nats-conf: a revoked account, or not two workers with permissions:\n%s", conf)
	}
	if err := run2(&out, "-cpuprofile", "/nonexistent/cpu.pprof", "-run", t.TempDir()); err == nil || !strings.Contains(err.Error(), "no directory /nonexistent") {
		t.Errorf("-cpuprofile into a missing directory: %v", err)
	}
	// Negative limits once meant no limit.
	for _, args := range [][]string{{"-max-generations", "-1"}, {"-max-time", "-5s"}, {"-max-train-time", "-1s"}, {"-keep-checkpoints", "-1"}} {
		run := t.TempDir()
		err := run2(&out, append(args, "-run", run)...)
		if err == nil || !strings.Contains(err.Error(), args[0]+" "+args[1]) {
			t.Errorf("%q: %v", args, err)
		}
		if _, err := os.Stat(filepath.Join(run, "config.yaml")); err == nil {
			t.Errorf("%q: the run was started", args)
		}
	}
}

// A damaged run directory is refused with the repair before anything
// starts on it (a server, the dashboard, a new run over its checkpoints),
// and a config's integers are integers: a fraction or a seed past 2^64-1
// is an error naming the key, not a truncated value.
func TestDamagedRunAndBadNumbersRefused(t *testing.T) {
	cfg := configstest.TinyConnectFour(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(path, cfg.Marshal(), 0o644)
	run := filepath.Join(dir, "run")
	var out bytes.Buffer
	if err := run2(&out, "-config", path, "-run", run, "-max-generations", "1"); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	names, _ := rundir.Dir(run).List()
	os.Remove(filepath.Join(run, rundir.Latest))
	err := run2(&out, "-run", run, "-max-generations", "1", "-serve", "127.0.0.1:0")
	want := "write " + names[len(names)-1] + " into " + filepath.Join(run, rundir.Latest)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("latest deleted: %v; want %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(run, "nats")); err == nil {
		t.Error("the server started on a refused run")
	}
	os.WriteFile(filepath.Join(run, rundir.Latest), []byte(names[len(names)-1]+"\n"), 0o644)
	os.Remove(filepath.Join(run, "config.yaml"))
	if err := run2(&out, "-run", run, "-max-generations", "1"); err == nil || !strings.Contains(err.Error(), "but no config.yaml") {
		t.Fatalf("config.yaml deleted: %v", err)
	}

	text := string(cfg.Marshal())
	for _, c := range []struct{ edit, want string }{
		{strings.Replace(text, "  simulations: 8\n", "  simulations: 8.5\n", 1), "search.simulations = 8.5 is not an integer"},
		{strings.Replace(text, "seed: 1\n", "seed: 18446744073709551616\n", 1), "seed = 18446744073709551616 is outside [0, 18446744073709551615]"},
	} {
		if c.edit == text {
			t.Fatalf("the edit for %q changed nothing", c.want)
		}
		os.WriteFile(path, []byte(c.edit), 0o644)
		fresh := filepath.Join(dir, "fresh")
		if err := run2(&out, "-config", path, "-run", fresh); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%v; want %q", err, c.want)
		}
		if _, err := os.Stat(fresh); err == nil {
			t.Errorf("%q: the run was started", c.want)
		}
	}
	if err := run2(&out, "-set", "search.simulations=8.5", "-run", filepath.Join(dir, "fresh")); err == nil || !strings.Contains(err.Error(), "search.simulations = 8.5") {
		t.Errorf("-set search.simulations=8.5: %v", err)
	}
}

// Gate opponents are checked when the config loads, external engines
// (uci:) included: tabula train knows the kind and reports the missing
// program before any self-play.
func TestGateOpponentsChecked(t *testing.T) {
	cfg, _ := configs.Preset("connect4")
	for _, c := range [][2]string{
		{"uci:/nonexistent/engine", "/nonexistent/engine"},
		{"ab:depth=-3", "gating.matches[0].opponent"},
	} {
		cfg.Gating.Matches = []configs.GateMatch{{Opponent: c[0], Games: 2, Simulations: 2}}
		dir := t.TempDir()
		path := filepath.Join(dir, "cfg.yaml")
		os.WriteFile(path, cfg.Marshal(), 0o644)
		var out bytes.Buffer
		err := run2(&out, "-config", path, "-run", filepath.Join(dir, "run"), "-max-generations", "1")
		if err == nil || !strings.Contains(err.Error(), c[1]) || strings.Contains(err.Error(), "unknown kind") {
			t.Errorf("%s: %v", c[0], err)
		}
		if shards, _ := filepath.Glob(filepath.Join(dir, "run", "replay", "*")); len(shards) > 0 {
			t.Errorf("%s: self-play ran first: %v", c[0], shards)
		}
	}
}

// A bad evaluation anchor is refused before anything is created in the
// run directory (with -serve too, whose server keeps its store there):
// frozen with the run, it would fail every resume.
func TestEvaluationOpponentsChecked(t *testing.T) {
	cfg, _ := configs.Preset("connect4")
	cfg.Evaluation = configs.Evaluation{Every: time.Hour, Matches: []configs.GateMatch{{Opponent: "ab:depth=-3", Games: 2}}}
	dir := t.TempDir()
	path := filepath.Join(dir, "cfg.yaml")
	os.WriteFile(path, cfg.Marshal(), 0o644)
	for _, extra := range [][]string{nil, {"-serve", "127.0.0.1:0"}} {
		run := filepath.Join(dir, "run")
		var out bytes.Buffer
		err := run2(&out, append([]string{"-config", path, "-run", run, "-max-generations", "1"}, extra...)...)
		if err == nil || !strings.Contains(err.Error(), "evaluation.matches[0].opponent") || !strings.Contains(err.Error(), "depth") {
			t.Errorf("%q: %v", extra, err)
		}
		if _, err := os.Stat(run); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%q: the run directory was created (%v)", extra, err)
		}
	}
}

// -h is help, not an error (the command exits 0), and says what matters.
func TestHelp(t *testing.T) {
	var b bytes.Buffer
	err := run(context.Background(), []string{"-h"}, &b)
	text := b.String()
	cliflagtest.Help(t, err, text, "usage: tabula train", "-max-generations")
}

type writerFunc func([]byte)

func (f writerFunc) Write(b []byte) (int, error) { f(b); return len(b), nil }

// configs reads selfplay.abzero.m's schedule itself: a schedule self-play
// cannot read is refused before anything is written.
func TestBadABZeroScheduleRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad-m.yaml")
	text := "game: connect4\nselfplay:\n  abzero: {generations: 5, depth: 2, m: \"linear:1,2\"}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	var out bytes.Buffer
	err := run2(&out, "-config", path, "-run", run, "-max-generations", "1")
	if err == nil || !strings.Contains(err.Error(), "selfplay.abzero.m") || !strings.Contains(err.Error(), "linear:1,2") {
		t.Fatalf("a bad selfplay.abzero.m: %v", err)
	}
	if _, err := os.Stat(run); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused config left the run directory: %v", err)
	}
	// The same through -set on the preset.
	err = run2(&out, "-game", "connect4", "-run", run, "-set", `selfplay.abzero={generations: 5, depth: 2, m: "step:1"}`)
	if err == nil || !strings.Contains(err.Error(), "selfplay.abzero.m") {
		t.Fatalf("a bad selfplay.abzero.m by -set: %v", err)
	}
}

// The resume line names tabula as it was started: go run's binary in the
// build cache is gone, so it says go run ./cmd/tabula.
func TestInvokedAs(t *testing.T) {
	for arg0, want := range map[string]string{
		"":                                       "tabula",
		"tabula":                                 "tabula",
		"/tmp/scale/tabula":                      "/tmp/scale/tabula",
		"/home/a b/tabula":                       "'/home/a b/tabula'",
		"/tmp/go-build1234/b001/exe/tabula":      "go run ./cmd/tabula",
		`C:\Temp\go-build99\b001\exe\tabula.exe`: "go run ./cmd/tabula",
	} {
		if got := invokedAs(arg0); got != want {
			t.Errorf("invokedAs(%q) = %q, want %q", arg0, got, want)
		}
	}
}
