package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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
// person would and checks what shows: the generation, the charts, the
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
	live := &fakeLive{g: selfplay.LiveGame{Game: "xiangqi", ID: 3, Moves: []string{"h3e3", "h10g8"}, Search: []*selfplay.MoveSearch{
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
	waitJS("the generation", `document.getElementById("generation").textContent === "2"`)
	waitJS("the phase", `document.getElementById("phase-name").textContent === "self-play" && document.getElementById("phase-bar").value === 0.25`)
	waitJS("four charts", `document.querySelectorAll("#charts img[data-loaded]").length >= 4`)
	waitJS("the match table", `document.querySelectorAll("#matches tbody tr").length === 6`)

	// The live game is selected first: Xiangqi's 90 points, the river,
	// the search before the first move.
	waitJS("the live Xiangqi board", `document.querySelectorAll("#board .pt").length === 90 && document.querySelector("#board .river") !== null`)
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
