package trainer

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/trainer/matches"
)

// promoteOnly is a gate that promotes the generations gens and no other,
// playing no games.
func promoteOnly(gens ...int) matches.Gate {
	return func(_ context.Context, _ *configs.Config, _ *net.Params, gen int, _ *net.Params, _ int) (matches.GateResult, error) {
		return matches.GateResult{Promote: slices.Contains(gens, gen)}, nil
	}
}

// wantKept is the retention rule worked out from the run's own records:
// the checkpoints its pointers name, the ones its evaluation lines
// measured and the newest keep up to latest.
func wantKept(t *testing.T, run string, names []string, keep int) []string {
	t.Helper()
	want := map[string]bool{}
	for _, p := range []string{rundir.Best, rundir.Latest} {
		path, err := rundir.Dir(run).Pointer(p)
		if err != nil {
			t.Fatal(err)
		}
		want[filepath.Base(path)] = true
	}
	for _, m := range metricsOfKind(t, run, "evaluation") {
		if m.Checkpoint == "" {
			t.Fatalf("an evaluation line names no checkpoint: %+v", m)
		}
		want[m.Checkpoint] = true
	}
	for _, n := range names[max(0, len(names)-keep):] {
		want[n] = true
	}
	return slices.Sorted(maps.Keys(want))
}

// Retention keeps exactly the best network, the evaluated checkpoints and
// the newest N, and the run resumes after it; the self-play counts go on
// across the resume (checked against the samples the replay shards hold);
// the summary names the best network's evaluation and what changed since
// the first, with no placeholder figure.
func TestRetentionAndResume(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t)
	// At the start and where the run stops: the untrained generation 0 is
	// measured, and with generation 2 the best from then on, neither it
	// nor generation 0 is among the newest.
	cfg.Evaluation = configs.Evaluation{Every: time.Hour, AtStart: true, Matches: []configs.GateMatch{{Opponent: "random", Games: 2}}}
	keep := 2
	var out bytes.Buffer
	opts := Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: 6, KeepCheckpoints: &keep, Out: &out,
		NewForwarder: newFwd, Gate: promoteOnly(2)}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// Every checkpoint the run wrote, by its generation lines (and the
	// first): what was there before retention.
	all := func() []string {
		names := []string{checkpoints.Name(0, 0)}
		for _, m := range metricsOfKind(t, run, "generation") {
			names = append(names, m.Checkpoint)
		}
		return names
	}
	list := func() []string {
		l, err := rundir.Dir(run).List()
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	names := all()
	if len(names) != 7 {
		t.Fatalf("%d checkpoints written: %v", len(names), names)
	}
	want := wantKept(t, run, names, keep)
	if got := list(); !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v\n%s", got, want, out.String())
	}
	// Generation 0 (measured at the start) and 2 (the best, measured at
	// the stop) are kept besides the newest two: the rule was put to work.
	if !slices.Equal(want, []string{names[0], names[2], names[5], names[6]}) {
		t.Fatalf("kept %v", want)
	}
	if !strings.Contains(out.String(), "generation 3 is not promoted: the best network stays generation 2") ||
		!strings.Contains(out.String(), "generation 2 becomes the best network") {
		t.Errorf("the generation lines do not say what became of each:\n%s", out.String())
	}
	firstGames := metricsOfKind(t, run, "generation")[5].SelfPlayGames

	// Resumed for one more generation, promoted: retention goes on from
	// the resumed run's records.
	out.Reset()
	opts.Config, opts.MaxGenerations, opts.Gate = nil, 1, promoteOnly(7)
	if err := Run(context.Background(), opts); err != nil {
		t.Fatalf("resume: %v\n%s", err, out.String())
	}
	names = all()
	if got, want := list(), wantKept(t, run, names, keep); !slices.Equal(got, want) || len(names) != 8 {
		t.Fatalf("after the resume kept %v, want %v (of %v)", got, want, names)
	}
	gens := metricsOfKind(t, run, "generation")
	last := gens[len(gens)-1]
	if last.Generation != 7 || last.SelfPlayGames <= firstGames {
		t.Fatalf("resumed generation %d counts %d games, the first invocation ended at %d", last.Generation, last.SelfPlayGames, firstGames)
	}
	// The samples the shards hold are the run's total, both invocations'.
	shards, _ := filepath.Glob(filepath.Join(run, "replay", "*.shard"))
	var samples int64
	for _, s := range shards {
		_, ss, err := data.Read(s)
		if err != nil {
			t.Fatal(err)
		}
		samples += int64(len(ss))
	}
	if samples != last.SelfPlaySamples {
		t.Errorf("the replay shards hold %d samples, the metrics count %d", samples, last.SelfPlaySamples)
	}
	said := regexp.MustCompile(`\((\d+) games in this run so far\)`).FindAllStringSubmatch(out.String(), -1)
	if len(said) == 0 {
		t.Fatalf("no self-play line:\n%s", out.String())
	}
	if n, _ := strconv.ParseInt(said[len(said)-1][1], 10, 64); n != last.SelfPlayGames {
		t.Errorf("the self-play line says %d games, the metrics %d", n, last.SelfPlayGames)
	}

	// The summary: the best network's latest evaluation, the run's first
	// to compare with, and figures only where the games give them.
	s, err := Summarize(run)
	if err != nil {
		t.Fatal(err)
	}
	text := s.Text()
	evals := metricsOfKind(t, run, "evaluation")
	best := evals[len(evals)-1]
	if best.Best != 7 {
		t.Fatalf("the final evaluation measured generation %d", best.Best)
	}
	r := best.Matches[0]
	for _, want := range []string{
		"the best network: generation 7, " + rundir.Dir(run).Checkpoint(names[7]),
		"its latest evaluation, at ",
		fmt.Sprintf("vs random: won %d, drew %d, lost %d", r.Wins, r.Draws, r.Losses),
		"since the first evaluation (generation 0 at ",
		"since the run began: 7 generations, " + strconv.FormatInt(last.SelfPlayGames, 10) + " self-play games",
		"training loss from step ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q:\n%s", want, text)
		}
	}
	noPlaceholders(t, text)
}

// noPlaceholders fails on the figures that stood for "unknown": a +- of
// 1000 or 0 (an interval open on one side, or none) and an Elo of -1000.
func noPlaceholders(t *testing.T, text string) {
	t.Helper()
	if m := regexp.MustCompile(`(±|\+-) ?(1000|0)(\.0+)?([^.\d]|$)|-1000`).FindString(text); m != "" {
		t.Errorf("a placeholder figure %q in:\n%s", m, text)
	}
}

// A summary of a run whose best network was not measured (stopped before
// its evaluation) says so and shows the latest evaluation as another
// network's; a run without evaluations says when the first comes.
func TestSummaryWithoutBestEvaluation(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t)
	cfg.Evaluation = configs.Evaluation{Every: time.Hour, AtStart: true, Matches: []configs.GateMatch{{Opponent: "random", Games: 2}}}
	opts := Options{Run: run, Config: cfg, SelfPlay: true, MaxGenerations: 1, Out: &bytes.Buffer{}, NewForwarder: newFwd}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	// The final evaluation's line dropped, as a Ctrl-C before it leaves
	// the records.
	path := rundir.Dir(run).Metrics()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	if !strings.Contains(lines[len(lines)-1], `"kind":"evaluation"`) {
		t.Fatalf("the last line is not the final evaluation: %s", lines[len(lines)-1])
	}
	os.WriteFile(path, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644)
	s, err := Summarize(run)
	if err != nil {
		t.Fatal(err)
	}
	text := s.Text()
	for _, want := range []string{"the best network: generation 1, ", "it has not been evaluated yet", "the latest evaluation, of generation 0 at "} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q:\n%s", want, text)
		}
	}
	noPlaceholders(t, text)

	// A run whose config measures nothing says so.
	run = t.TempDir()
	opts = Options{Run: run, Config: tinyConfig(t), SelfPlay: true, MaxGenerations: 1, Out: &bytes.Buffer{}, NewForwarder: newFwd}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if s, err = Summarize(run); err != nil || !strings.Contains(s.Text(), "it has not been evaluated: the run's config has no evaluation section") {
		t.Errorf("a run without evaluations: %v\n%s", err, s.Text())
	}
}
