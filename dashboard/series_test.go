package dashboard

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/metrics/charts"
)

// metricLines reads a run's metrics lines of kind (all: "") straight from
// its file, as the tests' independent account of what the trainer wrote.
func metricLines(t *testing.T, run, kind string) []metrics.Metric {
	t.Helper()
	f, err := os.Open(filepath.Join(run, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []metrics.Metric
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m metrics.Metric
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if kind == "" || m.Kind == kind {
			out = append(out, m)
		}
	}
	return out
}

// /api/series compares runs: each chart holds every run's series,
// labelled with the run's name, the loss being each run's own train lines;
// titles are distinct; the anchors' levels span only their run's data; a
// run without charts is named with the reason (its path hidden) while
// the others are served.
func TestSeries(t *testing.T) {
	parent := t.TempDir()
	a := trainTinyIn(t, filepath.Join(parent, "a"), 0, 2)
	b := trainTinyIn(t, filepath.Join(parent, "b"), 99, 3)
	broken := filepath.Join(parent, "broken")
	os.Mkdir(broken, 0o755)
	s := New(a, nil, nil, nil)
	s.Compare(b, broken)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	var ans Series
	if r := get(t, srv, "/api/series", &ans); r.StatusCode != http.StatusOK {
		t.Fatalf("/api/series: %d", r.StatusCode)
	}
	if len(ans.Runs) != 3 || ans.Runs[0].Name != "a" || ans.Runs[1].Name != "b" || ans.Runs[0].Game != "connect4" || ans.Runs[0].Error != "" {
		t.Fatalf("runs %+v", ans.Runs)
	}
	if e := ans.Runs[2].Error; e == "" || strings.Contains(e, parent) || !strings.Contains(e, "RUN") {
		t.Errorf("the broken run's error %q", e)
	}
	titles := map[string]bool{}
	by := map[string]SeriesChart{}
	for _, c := range ans.Charts {
		if titles[c.Title] {
			t.Errorf("title %q twice", c.Title)
		}
		titles[c.Title], by[c.Name] = true, c
		if len(c.Runs) != len(c.Series) {
			t.Errorf("%s: %d runs for %d series", c.Name, len(c.Runs), len(c.Series))
		}
	}
	for _, n := range []string{"strength", "strength-gen", "strength-cpu", "loss", "gate", "window"} {
		if _, ok := by[n]; !ok {
			t.Errorf("no chart %s", n)
		}
	}
	for i, run := range []string{a, b} {
		name := ans.Runs[i].Name
		var steps, loss []float64
		for _, m := range metricLines(t, run, "train") {
			steps, loss = append(steps, float64(m.Step)), append(loss, m.Loss)
		}
		loss0 := by["loss"]
		k := slices.IndexFunc(loss0.Series, func(s charts.Series) bool { return s.Label == name+": total" })
		if k < 0 || loss0.Runs[k] != i || !slices.Equal(loss0.Series[k].X, steps) || !slices.Equal(loss0.Series[k].Y, loss) {
			t.Errorf("run %s's loss: series %d of %+v, want steps %v losses %v", name, k, loss0.Series, steps, loss)
		}
	}
	for _, n := range []string{"strength", "strength-gen", "strength-cpu"} {
		c := by[n]
		for i := range ans.Runs[:2] {
			var lo, hi float64
			found := false
			for k, s := range c.Series {
				if c.Runs[k] == i && !s.Level {
					lo, hi, found = slices.Min(s.X), slices.Max(s.X), true
				}
			}
			for k, s := range c.Series {
				if c.Runs[k] == i && s.Level && (slices.Min(s.X) < lo || slices.Max(s.X) > hi) {
					t.Errorf("%s: level %s spans %v beyond the data's %g to %g", n, s.Label, s.X, lo, hi)
				}
			}
			if !found {
				t.Errorf("%s: no best network of run %d", n, i)
			}
		}
	}
	// Asked again with its tag, the same series are not sent again.
	req, _ := http.NewRequest("GET", srv.URL+"/api/series", nil)
	first, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	first.Body.Close()
	tag := first.Header.Get("ETag")
	req.Header.Set("If-None-Match", tag)
	again, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if tag == "" || again.StatusCode != http.StatusNotModified {
		t.Errorf("asked again with ETag %s: %d", tag, again.StatusCode)
	}
	// Each run's status, matches and games, by name; the first's without
	// one.
	var names []string
	get(t, srv, "/api/runs", &names)
	if !slices.Equal(names, []string{"a", "b", "broken"}) {
		t.Errorf("/api/runs: %q", names)
	}
	for i, run := range []string{a, b} {
		q := "?run=" + ans.Runs[i].Name
		gens := metricLines(t, run, "generation")
		var st Status
		get(t, srv, "/api/status"+q, &st)
		if last := gens[len(gens)-1]; st.Run != ans.Runs[i].Name || st.Generation != last.Generation || st.Step != last.Step || st.Best != last.Best {
			t.Errorf("status of %s: %+v, its last generation line %d at step %d", run, st, last.Generation, last.Step)
		}
		matches := 0
		for _, m := range metricLines(t, run, "") {
			if m.Kind == "generation" || m.Kind == "evaluation" {
				matches += len(m.Matches)
			}
		}
		var rows []MatchRow
		get(t, srv, "/api/matches"+q, &rows)
		if len(rows) != matches {
			t.Errorf("matches of %s: %d rows, %d in its metrics", run, len(rows), matches)
		}
		var refs []GameRef
		get(t, srv, "/api/games"+q, &refs)
		if len(refs) == 0 {
			t.Fatalf("no games of %s", run)
		}
		var rep Replay
		if r := get(t, srv, "/api/game"+q+"&source="+refs[0].Source+"&index="+itoa(refs[0].Index), &rep); r.StatusCode != http.StatusOK || len(rep.Moves) != refs[0].Plies {
			t.Errorf("game %+v of %s: %d, %d moves", refs[0], run, r.StatusCode, len(rep.Moves))
		}
		if r := get(t, srv, "/api/chart/loss.svg"+q, nil); r.StatusCode != http.StatusOK {
			t.Errorf("loss.svg of %s: %d", run, r.StatusCode)
		}
	}
	var own Status
	get(t, srv, "/api/status", &own)
	if own.Run != "a" {
		t.Errorf("the status without a run is %q's", own.Run)
	}
	if r := get(t, srv, "/api/status?run=nope", nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown run's status: %d", r.StatusCode)
	}

	// One run: series keep their own labels.
	one := httptest.NewServer(New(a, nil, nil, nil).Handler())
	defer one.Close()
	var single Series
	get(t, one, "/api/series", &single)
	for _, c := range single.Charts {
		for _, s := range c.Series {
			if strings.HasPrefix(s.Label, "a: ") {
				t.Errorf("%s: a single run's series labelled %q", c.Name, s.Label)
			}
		}
	}
}

// Runs are named by as much of their path as tells them apart.
func TestRunNames(t *testing.T) {
	s := New("", nil, nil, nil)
	s.Compare("/x/runs/c4", "/y/runs/c4", "/x/runs/lion", "/x/runs/lion")
	var names []string
	for _, r := range s.runs {
		names = append(names, r.name)
	}
	if want := []string{"x/runs/c4", "y/runs/c4", "x/runs/lion", "x/runs/lion (2)"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	s = New("", nil, nil, nil)
	s.Compare("/r/a", "/r/b")
	if s.runs[0].name != "a" || s.runs[1].name != "b" {
		t.Errorf("names %+v", s.runs)
	}
}

// Runs lists the run directories under a parent, and refuses a directory
// with none.
func TestRuns(t *testing.T) {
	parent := t.TempDir()
	for _, d := range []string{"b", "a", "notarun"} {
		os.Mkdir(filepath.Join(parent, d), 0o755)
	}
	os.WriteFile(filepath.Join(parent, "a", "config.yaml"), nil, 0o644)
	os.WriteFile(filepath.Join(parent, "b", "config.yaml"), nil, 0o644)
	got, err := Runs(parent)
	if want := []string{filepath.Join(parent, "a"), filepath.Join(parent, "b")}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Runs: %q %v, want %q", got, err, want)
	}
	if _, err := Runs(filepath.Join(parent, "notarun")); err == nil || !strings.Contains(err.Error(), "no run directories") {
		t.Errorf("a directory of no runs: %v", err)
	}
}

// The status's self-play rate is the last generation's samples over its
// self-play phase, as the trainer's log line says it, not over the whole
// time between two generation lines; the generation is the newest
// checkpoint's and best the best network's.
func TestStatusRates(t *testing.T) {
	run := trainTiny(t)
	srv := httptest.NewServer(New(run, nil, nil, nil).Handler())
	defer srv.Close()
	var st Status
	get(t, srv, "/api/status", &st)
	gens := metricLines(t, run, "generation")
	a, b := gens[len(gens)-2], gens[len(gens)-1]
	samples := b.SelfPlaySamples - a.SelfPlaySamples
	if st.SelfPlaySamples != samples || st.SelfPlaySeconds != b.GatherSeconds || st.SelfPlay != float64(samples)/b.GatherSeconds ||
		st.Evals != float64(b.SelfPlayEvals-a.SelfPlayEvals)/b.GatherSeconds {
		t.Errorf("status self-play %d samples in %g s, %g/s, evals %g/s; the metrics say %d samples in %g s",
			st.SelfPlaySamples, st.SelfPlaySeconds, st.SelfPlay, st.Evals, samples, b.GatherSeconds)
	}
	if between := b.Time.Sub(a.Time).Seconds(); st.SelfPlay <= float64(samples)/between {
		t.Errorf("self-play %g samples/s is not above the rate over the generation's whole time (%g/s)", st.SelfPlay, float64(samples)/between)
	}
	if st.Generation != b.Generation || st.Best != b.Best {
		t.Errorf("status generation %d best %d, the last generation line %d and %d", st.Generation, st.Best, b.Generation, b.Best)
	}
}

// The vendored uPlot is the files its README names, byte for byte (their
// SHA-256 sums there), and the page loads that version.
func TestVendoredUPlot(t *testing.T) {
	readme, err := assets.ReadFile("assets/vendor/uplot/README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([^`]+)` \\| `([0-9a-f]{64})` \\|$").FindAllStringSubmatch(string(readme), -1)
	if len(rows) != 3 {
		t.Fatalf("%d sums in the README", len(rows))
	}
	for _, r := range rows {
		b, err := assets.ReadFile("assets/vendor/uplot/" + r[1])
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != r[2] {
			t.Errorf("%s: SHA-256 %x, the README says %s", r[1], sum, r[2])
		}
	}
	page, _ := assets.ReadFile("assets/index.html")
	for _, f := range []string{"vendor/uplot/uPlot.iife.min.js", "vendor/uplot/uPlot.min.css"} {
		if !strings.Contains(string(page), f) {
			t.Errorf("the page does not load %s", f)
		}
	}
}
