package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/selfplay"
)

// chromium finds a Chromium or Chrome binary.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium to drive (apt install chromium): skipping the browser test")
	return ""
}

// TestBrowser loads the dashboard of a tiny run in headless Chromium as a
// person would and checks what shows: the generation, the charts (their
// values on hover: checkCharts), the
// board's points, a replayed move changing the board, the live game (a
// Xiangqi board on its 90 points with the river), Catch the Lion's hands,
// the phase bar, and no console errors. It saves a screenshot
// (TABULA_SCREENSHOTS=DIR keeps it).
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := chromium(t)
	run := trainTiny(t)
	prog := progress.New()
	prog.Begin("self-play", "samples", 1000)
	prog.Set(250)
	// The live game is played by the run's best network (the gate may
	// have kept generation 1), begun under generation 0.
	gens := metricLines(t, run, "generation")
	best := gens[len(gens)-1].Best
	live := &fakeLive{g: selfplay.LiveGame{Game: "xiangqi", ID: 3, Generation: 0, Network: best, Moves: []string{"h3e3", "h10g8"}, Search: []*selfplay.MoveSearch{
		{Top: []selfplay.MoveShare{{Move: "h3e3", Share: 0.6}, {Move: "b3e3", Share: 0.3}}, Value: 0.1}, nil}}}
	srv := httptest.NewServer(New(run, prog, live, nil).Handler())
	// Closed after the browser (cleanups run last first): its live stream
	// would hold Close until the browser's timeout.
	t.Cleanup(srv.Close)

	ctx, consoleErrors := startBrowser(t, bin, 1300, 1700, 90*time.Second)

	// waitJS polls a JavaScript condition.
	waitJS := func(what, cond string) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Poll(cond, nil, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(js string, v any) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, v)); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	waitJS("the generation", `document.getElementById("generation").textContent === "generation 2"`)
	waitJS("the phase", `document.getElementById("phase-name").textContent === "self-play" && document.getElementById("phase-bar").value === 0.25`)
	waitJS("four charts", `document.querySelectorAll("#charts .chart .uplot").length >= 4`)
	waitJS("the match table", `document.querySelectorAll("#matches tbody tr").length === 6`)
	checkCharts(t, ctx, 1)

	// The live game is selected first: Xiangqi's 90 points, the river,
	// the search before the first move.
	waitJS("the live Xiangqi board", `document.querySelectorAll("#board .pt").length === 90 && document.querySelector("#board .river") !== null`)
	// The live game names its network as the status names the best one.
	var bestText, title string
	eval(`document.getElementById("best").textContent`, &bestText)
	eval(`document.getElementById("replay-title").textContent`, &title)
	if want := fmt.Sprintf("generation %d", best); !strings.HasPrefix(bestText, want) ||
		!strings.Contains(title, fmt.Sprintf("the best network of %s (begun by generation 0)", want)) {
		t.Errorf("status best network %q, live game %q, want both %s", bestText, title, want)
	}
	var xq []byte
	if err := chromedp.Run(ctx, chromedp.Screenshot("#viewer", &xq, chromedp.ByID), chromedp.Click("#first", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	var searchText string
	eval(`document.getElementById("search").textContent`, &searchText)
	if !strings.Contains(searchText, "next: h3e3") || !strings.Contains(searchText, "h3e3 60%, b3e3 30%") {
		t.Errorf("search panel at the start of the live game: %q", searchText)
	}

	// An arena game: the board has Connect Four's 42 points, stepping
	// through the moves changes it.
	eval(`(() => { const s = document.getElementById("game-list"); const o = [...s.options].find(o => o.value.startsWith("arena/")); s.value = o.value; s.dispatchEvent(new Event("change")); return o.value; })()`, new(string))
	waitJS("the Connect Four board", `document.querySelectorAll("#board .pt").length === 42 && document.getElementById("ply").textContent.startsWith("ply 0 ")`)
	stones := func() (n int) {
		eval(`[...document.querySelectorAll("#board .pt")].filter(e => e.dataset.piece !== "").length`, &n)
		return n
	}
	if n := stones(); n != 0 {
		t.Fatalf("%d stones at ply 0", n)
	}
	if err := chromedp.Run(ctx, chromedp.Click("#next", chromedp.ByID), chromedp.Click("#next", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	if n := stones(); n != 2 {
		t.Errorf("%d stones after two moves", n)
	}
	var plies int
	eval(`current.boards.length - 1`, &plies)
	if err := chromedp.Run(ctx, chromedp.Click("#last", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	if n := stones(); n != plies {
		t.Errorf("%d stones after the last of %d moves", n, plies)
	}

	// Catch the Lion's board with pieces in hand, drawn by the page.
	g, _ := game.Lookup("lion")
	p, err := g.Parse("gle/1c1/3/ELG w c 3", nil) // Black took the chick
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p.(game.Boarder).Board())
	var hands string
	eval(fmt.Sprintf(`(() => { drawBoard(document.getElementById("board"), %s, "lion");
		return [...document.querySelectorAll("#board .hand")].map(e => (e.dataset.side === "0" ? "first: " : "second: ") + (e.dataset.hand || "-")).join("|"); })()`, b), &hands)
	var cells int
	eval(`document.querySelectorAll("#board .pt").length`, &cells)
	if cells != 12 || hands != "first: -|second: c" {
		t.Errorf("lion board: %d cells, hands %q", cells, hands)
	}

	var shot []byte
	if err := chromedp.Run(ctx, chromedp.Click("#last", chromedp.ByID), chromedp.FullScreenshot(&shot, 90)); err != nil {
		t.Fatal(err)
	}
	if len(shot) < 20000 {
		t.Errorf("screenshot of %d bytes", len(shot))
	}
	dir := os.Getenv("TABULA_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	os.WriteFile(filepath.Join(dir, "dashboard.jpg"), shot, 0o644)
	os.WriteFile(filepath.Join(dir, "dashboard-xiangqi.png"), xq, 0o644)
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestBrowserCompare loads a dashboard comparing two tiny runs (trained
// from two seeds): every chart holds both runs' lines, titles distinct,
// values on hover; choosing the second run shows its status and matches;
// no console errors. It saves a screenshot of the charts with the
// hovered values (TABULA_SCREENSHOTS=DIR keeps it).
func TestBrowserCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := chromium(t)
	parent := t.TempDir()
	a := trainTinyIn(t, filepath.Join(parent, "seed-1"), 0, 2)
	b := trainTinyIn(t, filepath.Join(parent, "seed-99"), 99, 3)
	s := New(a, nil, nil, nil)
	s.Compare(b)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	ctx, consoleErrors := startBrowser(t, bin, 1300, 1000, 90*time.Second)
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	checkCharts(t, ctx, 2)
	var runs string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("charts-runs").textContent`, &runs)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(runs, "seed-1 (connect4)") || !strings.Contains(runs, "seed-99 (connect4)") {
		t.Errorf("the runs compared: %q", runs)
	}
	// The screenshot: the charts at the top of the window, the loss chart
	// hovered.
	var shot []byte
	var box struct{ X, Y, W, H float64 }
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1300, 1900),
		chromedp.Evaluate(`document.getElementById("charts-panel").scrollIntoView(true)`, nil),
		chromedp.Evaluate(`(() => { const r = document.querySelector('.chart[data-name="loss"] .u-over').getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height}; })()`, &box)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, box.X+box.W*0.45, box.Y+box.H*0.4), chromedp.CaptureScreenshot(&shot)); err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("TABULA_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	os.WriteFile(filepath.Join(dir, "dashboard-charts.png"), shot, 0o644)

	// Choosing the second run shows its status and matches (three
	// generations where the first has two).
	matches := 0
	for _, m := range metricLines(t, b, "") {
		if m.Kind == "generation" || m.Kind == "evaluation" {
			matches += len(m.Matches)
		}
	}
	if err := chromedp.Run(ctx, chromedp.SetValue("#run-select", "seed-99", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("run-select").dispatchEvent(new Event("change"))`, nil),
		chromedp.Poll(fmt.Sprintf(`document.getElementById("generation").textContent === "generation 3" && document.querySelectorAll("#matches tbody tr").length === %d`, matches),
			nil, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Errorf("the second run's status and %d matches: %v", matches, err)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// checkCharts checks the dashboard's charts in the page of ctx, runs
// runs compared: at least four drawn, their titles distinct, each line
// of every run in the legend, and hovering over the loss chart shows its
// step and values in the legend where "--" stood.
func checkCharts(t *testing.T, ctx context.Context, runs int) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Poll(`document.querySelectorAll("#charts .chart .uplot").length >= 4`, nil,
		chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("the charts: %v", err)
	}
	var titles []string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll("#charts .chart-title")].map(e => e.textContent)`, &titles)); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ti := range titles {
		if seen[ti] || ti == "" {
			t.Errorf("chart title %q twice or empty among %q", ti, titles)
		}
		seen[ti] = true
	}
	var legend []string
	legendJS := `[...document.querySelectorAll('.chart[data-name="loss"] .u-legend .u-series:not(.u-band-edge)')].map(e => e.textContent.trim())`
	if err := chromedp.Run(ctx, chromedp.Evaluate(legendJS, &legend)); err != nil {
		t.Fatal(err)
	}
	// The step, then total, value and policy of each run.
	if len(legend) != 1+3*runs {
		t.Errorf("loss legend %q, want the step and 3 lines for each of %d runs", legend, runs)
	}
	for _, l := range legend {
		if !strings.HasSuffix(l, "--") {
			t.Errorf("legend entry %q shows a value before any hover", l)
		}
	}
	var box struct{ X, Y, W, H float64 }
	if err := chromedp.Run(ctx, chromedp.ScrollIntoView(`.chart[data-name="loss"]`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => { const r = document.querySelector('.chart[data-name="loss"] .u-over').getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height}; })()`, &box)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, box.X+box.W*0.5, box.Y+box.H*0.5)); err != nil {
		t.Fatal(err)
	}
	valueJS := legendJS + `.every(t => /[0-9]$/.test(t))`
	if err := chromedp.Run(ctx, chromedp.Poll(valueJS, nil, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		chromedp.Run(ctx, chromedp.Evaluate(legendJS, &legend))
		t.Fatalf("hovering over the loss chart: the legend shows %q: %v", legend, err)
	}
	// The gradient norm is over steps too: its legend reads the same step.
	var steps []string
	stepJS := `[...document.querySelectorAll('.chart[data-name="loss"] .u-legend .u-series:first-child .u-value, .chart[data-name="gradnorm"] .u-legend .u-series:first-child .u-value')].map(e => e.textContent)`
	if err := chromedp.Run(ctx, chromedp.Evaluate(stepJS, &steps)); err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || steps[0] != steps[1] || steps[0] == "--" {
		t.Errorf("the loss and gradient norm charts' cursors at steps %q, want one step", steps)
	}

	// Dragging from a quarter to three quarters of the width zooms the X
	// axis into that range; a double-click zooms out to the data's ends.
	var before, zoomed, after [2]float64
	scaleJS := `(() => { const x = chartBoxes.get("loss").plot.scales.x; return [x.min, x.max]; })()`
	y := box.Y + box.H*0.5
	if err := chromedp.Run(ctx, chromedp.Evaluate(scaleJS, &before),
		chromedp.MouseEvent(input.MouseMoved, box.X+box.W*0.25, y),
		chromedp.MouseEvent(input.MousePressed, box.X+box.W*0.25, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseMoved, box.X+box.W*0.5, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseMoved, box.X+box.W*0.75, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseReleased, box.X+box.W*0.75, y, chromedp.ButtonLeft),
		chromedp.Evaluate(scaleJS, &zoomed)); err != nil {
		t.Fatal(err)
	}
	span := before[1] - before[0]
	if want := [2]float64{before[0] + span/4, before[0] + span*3/4}; math.Abs(zoomed[0]-want[0]) > span/20 || math.Abs(zoomed[1]-want[1]) > span/20 {
		t.Errorf("dragging across the middle half of %v zoomed to %v, want about %v", before, zoomed, want)
	}
	if err := chromedp.Run(ctx, chromedp.DoubleClick(`.chart[data-name="loss"] .u-over`, chromedp.ByQuery), chromedp.Evaluate(scaleJS, &after)); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("a double-click zoomed out to %v, want %v", after, before)
	}
	// The other charts' cursors follow the next move (a zoom leaves them
	// where its drag ended).
	if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, box.X+box.W*0.5, box.Y+box.H*0.5)); err != nil {
		t.Fatal(err)
	}
}

// startBrowser starts headless Chromium (bin) with a window of w x h,
// bounded by timeout, and records the page's console errors and uncaught
// exceptions; consoleErrors returns those seen so far.
func startBrowser(t *testing.T, bin string, w, h int, timeout time.Duration) (ctx context.Context, consoleErrors func() []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.WindowSize(w, h))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelT)
	var mu sync.Mutex
	var errs []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value))
				}
				errs = append(errs, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			errs = append(errs, e.ExceptionDetails.Error())
		}
	})
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(errs)
	}
}
