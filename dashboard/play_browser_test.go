package dashboard

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tabula-zero/tabula/models"
)

// TestPlayBrowser plays on the Play page in headless Chromium as a person
// would, by clicks: a whole Connect Four game against alpha-beta, a move
// refused with its reason on the page, and ten Xiangqi moves. No console
// errors. TABULA_SCREENSHOTS=DIR keeps play-connect4.png and
// play-xiangqi.png in DIR.
func TestPlayBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := chromium(t)
	srv, records := playServer(t)

	ctx, consoleErrors := startBrowser(t, bin, 1200, 900, 120*time.Second)
	eval := func(js string, v any) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, v)); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
	}
	// waitJS polls a condition in the page's own scripts' scope (where
	// chromedp.Poll does not look: it sees no top-level let).
	waitJS := func(what, cond string) {
		t.Helper()
		for end := time.Now().Add(60 * time.Second); ; {
			var ok bool
			eval(`(() => { try { return !!(`+cond+`); } catch (e) { return false; } })()`, &ok)
			if ok {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("%s: %s not reached", what, cond)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	click := func(sel string) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Click(sel, chromedp.ByQuery)); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}
	// point is the selector of the board's point at file f, rank r (from
	// the top).
	point := func(f, r int) string {
		return `#p-board .pt[data-file="` + itoa(f) + `"][data-rank="` + itoa(r) + `"]`
	}
	// ready waits for the page to answer and returns the number of moves.
	ready := func() (plies int) {
		t.Helper()
		waitJS("the page to answer", `state !== null && !busy`)
		eval(`state.moves.length`, &plies)
		return plies
	}
	shot := func(name string) {
		t.Helper()
		var b []byte
		if err := chromedp.Run(ctx, chromedp.FullScreenshot(&b, 100)); err != nil {
			t.Fatal(err)
		}
		if len(b) < 10000 {
			t.Errorf("screenshot %s of %d bytes", name, len(b))
		}
		dir := os.Getenv("TABULA_SCREENSHOTS")
		if dir == "" {
			dir = t.TempDir()
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Error(err)
		}
	}

	// Connect Four against alpha-beta at depth 2, the default game.
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS("the options", `document.getElementById("p-opponent").options.length > 0`)
	eval(`(() => { document.getElementById("p-game").value = "connect4"; document.getElementById("p-game").dispatchEvent(new Event("change"));
		document.getElementById("p-ab-value").value = "2"; return true; })()`, new(bool))
	click("#p-new")
	ready()
	waitJS("the Connect Four board", `document.querySelectorAll("#p-board .pt").length === 42`)

	// A full column is refused with the server's reason: fill column 1
	// (the engine may drop into it too), then click it again.
	for moves := 0; ; moves++ {
		var full, over bool
		eval(`!state.legal.includes("1")`, &full)
		eval(`state.over`, &over)
		if full || over || moves > 6 {
			if full && !over {
				click(point(0, 0))
				waitJS("the refusal", `!document.getElementById("p-error").hidden && document.getElementById("p-error").textContent.includes("column 1 is full")`)
			}
			break
		}
		n := ready()
		click(point(0, 5))
		waitJS("the reply", `state.moves.length > `+itoa(n)+` && !busy`)
	}
	// Then to the end: the first legal column, clicked at its top point.
	for range 42 {
		var over bool
		eval(`state.over`, &over)
		if over {
			break
		}
		var col int
		eval(`Number(state.legal[0]) - 1`, &col)
		n := ready()
		click(point(col, 0))
		waitJS("the reply", `state.moves.length > `+itoa(n)+` && !busy`)
	}
	var status string
	eval(`document.getElementById("p-status").textContent`, &status)
	if !strings.HasPrefix(status, "game over: ") {
		t.Fatalf("after the game: status %q", status)
	}
	var engine string
	eval(`document.getElementById("p-engine-summary") ? document.getElementById("p-engine-summary").textContent : ""`, &engine)
	var topRows int
	eval(`document.querySelectorAll("#p-top tr").length`, &topRows)
	if !strings.Contains(engine, "engine played ") || !strings.Contains(engine, " score ") || topRows < 2 {
		t.Errorf("engine panel %q with %d rows", engine, topRows)
	}
	waitJS("the saved record", `document.getElementById("p-saving").textContent.startsWith("saved to ")`)
	shot("play-connect4.png")
	if _, err := os.Stat(filepath.Join(records, "connect4", "arena", "play.jsonl")); err != nil {
		t.Error(err)
	}

	// Xiangqi: ten moves by clicks (a piece, then where it goes), with an
	// illegal one refused first. The reply searches with the classical
	// evaluation: the default, the shipped learned network, changes its
	// moves whenever a new network ships, and with them whether the
	// test's spread of moves lasts ten moves.
	eval(`(() => { document.getElementById("p-game").value = "xiangqi"; document.getElementById("p-game").dispatchEvent(new Event("change"));
		document.getElementById("p-ab-value").value = "1"; document.getElementById("p-eval").value = "classical"; return true; })()`, new(bool))
	click("#p-new")
	ready()
	waitJS("the Xiangqi board", `document.querySelectorAll("#p-board .pt").length === 90 && state.game === "xiangqi"`)
	click(point(0, 9)) // the rook at a1: blocked by the soldier at a4
	click(point(0, 4))
	waitJS("the refusal", `!document.getElementById("p-error").hidden && document.getElementById("p-error").textContent.includes("illegal move")`)
	for i := range 10 {
		n := ready()
		var over bool
		eval(`state.over`, &over)
		if over {
			t.Fatalf("the Xiangqi game ended after %d moves", i)
		}
		// A spread of the legal moves, so that the game goes somewhere.
		var sq []int
		eval(`(() => { const m = state.legal[(7 * `+itoa(i)+`) % state.legal.length]; const x = /^([a-i])(\d+)([a-i])(\d+)$/.exec(m);
			return [x[1].charCodeAt(0) - 97, 10 - Number(x[2]), x[3].charCodeAt(0) - 97, 10 - Number(x[4])]; })()`, &sq)
		click(point(sq[0], sq[1]))
		click(point(sq[2], sq[3]))
		waitJS("the reply", `state.moves.length > `+itoa(n)+` && !busy`)
	}
	var plies int
	eval(`state.moves.length`, &plies)
	if plies < 20 {
		t.Errorf("%d plies after ten moves each", plies)
	}
	var hasError bool
	eval(`!document.getElementById("p-error").hidden`, &hasError)
	if hasError {
		t.Errorf("an error shown after legal moves")
	}
	shot("play-xiangqi.png")

	// Alpha-Beta-Zero with Connect Four's shipped network: offered beside
	// alpha-beta and the network, its weight shown, and its reply's panel.
	s := New("", nil, nil, nil)
	s.SetPlay(PlayOptions{DefaultNetwork: func(g string) (string, bool) {
		m, ok := models.Lookup(g)
		return m.Game, ok
	}})
	shipped := httptest.NewServer(s.Handler())
	defer shipped.Close()
	if err := chromedp.Run(ctx, chromedp.Navigate(shipped.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS("the options", `document.getElementById("p-opponent").options.length > 0`)
	var offered []string
	eval(`(() => { document.getElementById("p-game").value = "connect4"; document.getElementById("p-game").dispatchEvent(new Event("change"));
		return [...document.getElementById("p-opponent").options].map((o) => o.value); })()`, &offered)
	if !slices.Equal(offered, []string{"ab", "net:connect4", "abzero:connect4"}) {
		t.Fatalf("Connect Four's opponents %q", offered)
	}
	var mShown bool
	eval(`(() => { const o = document.getElementById("p-opponent"); o.value = "abzero:connect4"; o.dispatchEvent(new Event("change"));
		document.getElementById("p-ab-value").value = "2"; document.getElementById("p-sims").value = "8";
		document.getElementById("p-side").value = "second"; return !document.getElementById("p-m-row").hidden; })()`, &mShown)
	if !mShown {
		t.Error("the blend's weight is not shown")
	}
	click("#p-new")
	waitJS("the blend's opening", `state !== null && !busy && state.moves.length === 1`)
	eval(`document.getElementById("p-engine-summary").textContent`, &engine)
	var name string
	eval(`state.engine`, &name)
	if !strings.Contains(engine, "blended score") || !strings.Contains(engine, "8 simulations") || name != "abzero:depth=2,m=1,net=connect4,sims=8" {
		t.Errorf("the blend's panel %q, engine %q", engine, name)
	}

	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
