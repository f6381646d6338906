package arena

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/pons"
	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/internal/cliflag/cliflagtest"
	"github.com/tabula-zero/tabula/internal/ponsdata"
	"github.com/tabula-zero/tabula/internal/testnet"
	"github.com/tabula-zero/tabula/rundir"
)

func runArgs(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func TestMatchJSON(t *testing.T) {
	runDir := t.TempDir()
	out, stderr, err := runArgs(t, "-variant", "connect4", "-a", "ab:depth=3", "-b", "random", "-games", "6",
		"-concurrency", "2", "-json", "-run", runDir, "-label", "m1")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(lastLine(out)), &res); err != nil {
		t.Fatalf("last line %q: %v", lastLine(out), err)
	}
	for _, k := range []string{"games", "wins", "draws", "losses", "score", "elo", "elo_ci95", "los"} {
		if _, ok := res[k]; !ok {
			t.Errorf("JSON lacks %s: %s", k, lastLine(out))
		}
	}
	if res["games"].(float64) != 6 || res["wins"].(float64) < 5 {
		t.Errorf("result %v", res)
	}
	if strings.Count(stderr, "game ") != 6 {
		t.Errorf("per-game lines:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(runDir, "arena", "m1.jsonl")); err != nil {
		t.Fatal(err)
	}
	// A second match into the same run, then the ratings over both.
	if _, _, err := runArgs(t, "-variant", "connect4", "-a", "ab:depth=1", "-b", "random", "-games", "6", "-q", "-run", runDir, "-label", "m2"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runArgs(t, "-variant", "connect4", "-a", "ab:depth=3", "-b", "ab:depth=1", "-games", "4", "-q", "-run", runDir, "-label", "m3", "-opening-plies", "6"); err != nil {
		t.Fatal(err)
	}
	out, _, err = runArgs(t, "-run", runDir, "-ratings")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out)
	if !strings.Contains(out, "16 games") || !strings.Contains(out, "anchor ab:depth=1") || !strings.Contains(out, "random") {
		t.Errorf("ratings:\n%s", out)
	}
	out, _, err = runArgs(t, "-run", runDir, "-ratings", "-anchor", "random", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var rt struct {
		Anchor  string
		Ratings []struct {
			Name string
			Elo  float64
		}
	}
	if err := json.Unmarshal([]byte(lastLine(out)), &rt); err != nil || rt.Anchor != "random" || len(rt.Ratings) != 3 {
		t.Fatalf("ratings JSON %q: %v", out, err)
	}
	if rt.Ratings[0].Name != "ab:depth=3" || rt.Ratings[2].Name != "random" || rt.Ratings[2].Elo != 0 {
		t.Errorf("ratings %+v", rt.Ratings)
	}
}

func TestMatchText(t *testing.T) {
	out, _, err := runArgs(t, "-variant", "connect4", "-a", "ab:depth=3", "-b", "random", "-games", "40", "-q", "-sprt", "0,200")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "stopped (sprt)") || !strings.Contains(out, "H1 accepted") || !strings.Contains(out, "LOS") {
		t.Errorf("output:\n%s", out)
	}
}

// Connect Four has 49 openings of two plies: a match of 60 pairs says its
// games repeat, the same match from four plies (the default) does not.
func TestRepeatedOpenings(t *testing.T) {
	out, _, err := runArgs(t, "-variant", "connect4", "-a", "ab:depth=2", "-b", "ab:depth=1", "-games", "120", "-q", "-opening-plies", "2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "openings: 49 distinct positions after 2 random plies for 60 pairs") {
		t.Errorf("output:\n%s", out)
	}
	out, _, err = runArgs(t, "-variant", "connect4", "-a", "ab:depth=2", "-b", "ab:depth=1", "-games", "120", "-q")
	if err != nil || strings.Contains(out, "openings:") || !strings.Contains(out, "120 games") {
		t.Errorf("four plies, 60 pairs: %v\n%s", err, out)
	}
}

// TestLionOracle: alpha-beta on the Lion oracle's embedded set prints its
// report; a wrong variant is refused.
func TestLionOracle(t *testing.T) {
	out, _, err := runArgs(t, "-variant", "lion", "-a", "ab:depth=2", "-lion-oracle", "embedded", "-positions", "30")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "on internal/liondata/positions.txt: 30 positions") || !strings.Contains(out, "ab:depth=2: optimal ") {
		t.Errorf("output:\n%s", out)
	}
	out, _, err = runArgs(t, "-variant", "lion", "-a", "random", "-lion-oracle", "embedded", "-positions", "30", "-json")
	var res map[string]any
	if err != nil || json.Unmarshal([]byte(lastLine(out)), &res) != nil || res["positions"].(float64) != 30 {
		t.Errorf("JSON %q: %v", out, err)
	}
	if _, _, err := runArgs(t, "-variant", "connect4", "-a", "random", "-lion-oracle", "embedded"); err == nil || !strings.Contains(err.Error(), "-variant lion") {
		t.Errorf("connect4: %v", err)
	}
}

// TestXiangqiSet: alpha-beta and a network on the Xiangqi set's embedded
// positions; the network's report has its raw policy, its search and its
// value head.
func TestXiangqiSet(t *testing.T) {
	out, _, err := runArgs(t, "-variant", "xiangqi", "-a", "ab:depth=1", "-xiangqi-set", "embedded", "-positions", "20")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "on arena/xqset/positions.txt: 20 positions") || !strings.Contains(out, "ab:depth=1: best ") {
		t.Errorf("output:\n%s", out)
	}
	out, _, err = runArgs(t, "-variant", "xiangqi", "-a", "net:xiangqi,sims=4", "-xiangqi-set", "embedded", "-positions", "20", "-json")
	var res struct {
		Positions int              `json:"positions"`
		Moves     []map[string]any `json:"moves"`
		Value     map[string]any   `json:"value"`
	}
	if err != nil || json.Unmarshal([]byte(lastLine(out)), &res) != nil || res.Positions != 20 || len(res.Moves) != 2 || res.Value["decided"] == nil {
		t.Errorf("JSON %q: %v", out, err)
	}
	if _, _, err := runArgs(t, "-variant", "lion", "-a", "random", "-xiangqi-set", "embedded"); err == nil || !strings.Contains(err.Error(), "-variant xiangqi") {
		t.Errorf("lion: %v", err)
	}
	if _, _, err := runArgs(t, "-variant", "xiangqi", "-xiangqi-set", "embedded"); err == nil || !strings.Contains(err.Error(), "-a SPEC") {
		t.Errorf("no player: %v", err)
	}
}

func TestPons(t *testing.T) {
	file, err := ponsdata.WriteTo(t.TempDir(), "Test_L3_R1")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runArgs(t, "-variant", "connect4", "-a", "ab:depth=20", "-pons", file, "-positions", "10")
	if err != nil {
		t.Fatal(err)
	}
	if lastLine(out) != "optimal: 10/10" {
		t.Errorf("output:\n%s", out)
	}
	out, _, err = runArgs(t, "-variant", "connect4", "-a", "random", "-pons", file, "-positions", "10", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(lastLine(out)), &res); err != nil || res["positions"].(float64) != 10 {
		t.Errorf("JSON %q: %v", out, err)
	}
	// A network's value head judged on every move's position: the JSON
	// carries what pons.MeasureValues finds for the same network.
	ck := testnet.Checkpoint(t, t.TempDir(), "connect4", 1)
	spec := "net:" + ck + ",sims=0"
	out, _, err = runArgs(t, "-variant", "connect4", "-a", spec, "-pons", file, "-positions", "10", "-pons-values", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var vals struct {
		GreedyOptimal int     `json:"value_greedy_optimal"`
		GreedyKept    int     `json:"value_greedy_kept"`
		Pairs         int     `json:"value_pairs"`
		Ordered       int     `json:"value_ordered"`
		Rate          float64 `json:"value_ordered_rate"`
	}
	if err := json.Unmarshal([]byte(lastLine(out)), &vals); err != nil {
		t.Fatalf("JSON %q: %v", out, err)
	}
	p, err := arena.ParsePlayer(spec, "connect4")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := p.Evaluator()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, err := pons.Read(f, 10)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pons.MeasureValues(context.Background(), ev, lines)
	if err != nil {
		t.Fatal(err)
	}
	if want.Pairs == 0 || vals.GreedyOptimal != want.GreedyOptimal || vals.GreedyKept != want.GreedyKept ||
		vals.Pairs != want.Pairs || vals.Ordered != want.Ordered || vals.Rate != want.OrderedRate() {
		t.Errorf("-pons-values JSON %+v, pons.MeasureValues %+v", vals, want)
	}
	if _, _, err := runArgs(t, "-variant", "connect4", "-a", "random", "-pons", file, "-pons-values"); err == nil || !strings.Contains(err.Error(), "needs a network player") {
		t.Errorf("-pons-values with random: %v", err)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-variant", "connect4", "-a", "random"}, "needs -a SPEC and -b SPEC"},
		{[]string{"-variant", "connect4", "-a", "random", "-b", "ab:depth=x"}, "not an integer"},
		{[]string{"-variant", "connect4", "-a", "random", "-b", "ab:depth=2", "-sprt", "5"}, "want elo0,elo1"},
		{[]string{"-variant", "connect4", "-a", "random", "-b", "ab:depth=2", "-sprt", "5,0"}, "elo0 < elo1"},
		{[]string{"-variant", "connect4", "-a", "random", "-b", "ab:depth=2", "-games", "0"}, "at least 1"},
		{[]string{"-variant", "connect4", "-a", "random", "-b", "ab:depth=2", "-rules", "x"}, "not key=value"},
		{[]string{"-variant", "connect4", "-a", "random", "-b", "ab:depth=2", "-rules", "Foo=1"}, `connect4: unknown option "Foo"`},
		{[]string{"-variant", "connect4", "-a", "random", "-b", "ab:depth=2", "-concurrency", "-2"}, "-concurrency -2: want 1 to 4096"},
		{[]string{"-variant", "connect4", "-a", "random", "-b", "ab:depth=2", "-opening-plies", "-1"}, "-opening-plies -1: want at least 0"},
		{[]string{"-variant", "connect4", "-a", "random", "-b", "ab:depth=2", "-ply-cap", "-1"}, "-ply-cap -1: want at least 0"},
		{[]string{"-variant", "connect4", "-a", "random", "-pons", "x", "-positions", "-3"}, "-positions -3: want at least 0"},
		{[]string{"-variant", "connect4", "-a", "random", "-b", "random"}, "both players are named"},
		{[]string{"-variant", "checkers", "-a", "random", "-b", "ab:depth=2"}, "unknown game"},
		{[]string{"-ratings"}, "needs -run"},
		{[]string{"-ratings", "-run", "/nonexistent"}, "no game records"},
		{[]string{"-variant", "xiangqi", "-a", "random", "-pons", "x"}, "needs -variant connect4"},
		{[]string{"-variant", "connect4", "-a", "random", "-b", "ab:depth=2", "-openings", "/nonexistent"}, "no such file"},
		{[]string{"stray"}, "unexpected arguments"},
	} {
		_, _, err := runArgs(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}

// -h is help, not an error (the command exits 0), and says what matters.
func TestHelp(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-h"}, &out, &errb)
	text := errb.String()
	cliflagtest.Help(t, err, text, "player specs", "uci:COMMAND", "-openings FILE")
}

// Without -variant the game comes from a player's network (a run
// directory here), then from -run; a network player's search work per move
// is its simulations (it once printed 0).
func TestVariantFromNetwork(t *testing.T) {
	cfg, _ := configs.Preset("lion")
	cfg.Network.Blocks, cfg.Network.Filters, cfg.Network.ValueHidden = 1, 4, 4
	p, err := rundir.FreshParams(cfg)
	if err != nil {
		t.Fatal(err)
	}
	run := rundir.Dir(t.TempDir())
	if _, err := run.Create(&checkpoints.Checkpoint{Params: p}); err != nil {
		t.Fatal(err)
	}
	// From the start: random opening plies can leave a win in one, which
	// the search takes without a simulation.
	out, stderr, err := runArgs(t, "-a", "random", "-b", "net:"+string(run)+",sims=8", "-games", "2", "-opening-plies", "0", "-json", "-q")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(lastLine(out)), &res); err != nil {
		t.Fatalf("last line %q: %v", lastLine(out), err)
	}
	if res["variant"] != "lion" {
		t.Errorf("variant %v, want lion (the network's game)", res["variant"])
	}
	if e, _ := res["effort_b"].(float64); e < 1 || e > 8 {
		t.Errorf("network player's work per move %v, want its simulations (1-8): %s", res["effort_b"], lastLine(out))
	}
	os.WriteFile(run.Config(), cfg.MarshalSealed(), 0o644)
	out, stderr, err = runArgs(t, "-run", string(run), "-a", "random", "-b", "ab:depth=1", "-games", "2", "-json", "-q")
	if err != nil {
		t.Fatal(err, stderr)
	}
	if !strings.Contains(lastLine(out), `"variant":"lion"`) {
		t.Errorf("-run's game not taken: %s", lastLine(out))
	}
}

// The embedded position sets are named from any working directory: Pons'
// by name or "embedded", the Lion oracle's and the Xiangqi set's as
// "embedded"; nothing lands in that directory.
func TestSetsByNameFromAnyDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, set := range []string{"embedded", "Test_L3_R1"} {
		out, _, err := runArgs(t, "-variant", "connect4", "-a", "ab:depth=20", "-pons", set, "-positions", "5")
		if err != nil || lastLine(out) != "optimal: 5/5" {
			t.Errorf("-pons %s from %s: %v\n%s", set, dir, err, out)
		}
	}
	if _, _, err := runArgs(t, "-variant", "connect4", "-a", "random", "-pons", "Test_L7_R1", "-positions", "5"); err == nil || !strings.Contains(err.Error(), "Test_L2_R1") {
		t.Errorf("-pons Test_L7_R1: %v, want an error naming the sets", err)
	}
	out, _, err := runArgs(t, "-variant", "lion", "-a", "random", "-lion-oracle", "embedded", "-positions", "5", "-json")
	if err != nil || !strings.Contains(lastLine(out), `"positions":5`) {
		t.Errorf("-lion-oracle embedded from %s: %v\n%s", dir, err, out)
	}
	out, _, err = runArgs(t, "-variant", "xiangqi", "-a", "random", "-xiangqi-set", "embedded", "-positions", "5", "-json")
	if err != nil || !strings.Contains(lastLine(out), `"positions":5`) {
		t.Errorf("-xiangqi-set embedded from %s: %v\n%s", dir, err, out)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("the working directory holds %v (%v)", entries, err)
	}
}
