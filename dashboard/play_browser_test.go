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
// would, by clicks: a whole Connect Four game against alpha-beta (the
// last disc and the winning four marked), Xiangqi (an illegal move
// refused with its reason in words, a piece's legal targets shown as the
// server lists them, ten moves with the last one marked, the board turned
// when the person plays second, the Latin letters switch), Catch the
// Lion (an illegal step explained, how its pieces move, moves and drops
// by clicks), and each game at a phone's width without sideways scroll.
// No console errors. TABULA_SCREENSHOTS=DIR keeps play-GAME.png and
// play-GAME-phone.png in DIR (docs/images holds them).
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

	// phone keeps the viewport (a phone's screen) as play-GAME-phone.png.
	phone := func(g string) {
		t.Helper()
		var b []byte
		if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&b)); err != nil {
			t.Fatal(err)
		}
		dir := os.Getenv("TABULA_SCREENSHOTS")
		if dir == "" {
			dir = t.TempDir()
		}
		if err := os.WriteFile(filepath.Join(dir, "play-"+g+"-phone.png"), b, 0o644); err != nil {
			t.Error(err)
		}
	}

	// lastMarked: the board marks the last move's cells, as the game's
	// last move names them.
	lastMarked := func(what string) {
		t.Helper()
		var n, want int
		eval(`document.querySelectorAll("#p-board .last").length`, &n)
		eval(`(() => { const m = state.moves[state.moves.length - 1]; return !m ? 0 : state.board.style === "xiangqi" && /^[a-z]\d+[a-z]\d+$/.test(m) ? 2 : 1; })()`, &want)
		if want == 0 || n < want {
			t.Errorf("%s: %d marks of the last move, want %d", what, n, want)
		}
	}
	games := map[string]string{} // a game of each kind, by id, for the phone's view

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
	// A win is marked by its four and said in words; a draw says the board
	// is full.
	var winner string
	var lineDiscs, winLines int
	eval(`state.winner`, &winner)
	eval(`document.querySelectorAll("#p-board .win").length`, &lineDiscs)
	eval(`document.querySelectorAll("#p-board .win-line").length`, &winLines)
	switch {
	case winner == "draw" && !strings.Contains(status, "the board is full"):
		t.Errorf("draw: status %q", status)
	case winner != "draw" && (lineDiscs < 4 || winLines != 1 || !strings.Contains(status, "four in a row")):
		t.Errorf("%s won: %d discs and %d lines marked, status %q", winner, lineDiscs, winLines, status)
	}
	lastMarked("Connect Four")
	var id string
	eval(`state.id`, &id)
	games["connect4"] = id
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
	click(point(0, 9)) // the chariot at a1: blocked by the soldier at a4
	click(point(0, 4)) // a6
	waitJS("the refusal", `!document.getElementById("p-error").hidden && document.getElementById("p-error").textContent === 'illegal move "a1a6": the chariot is blocked at a4'`)
	// A piece selected shows where it may go: the targets are the server's
	// legal moves from its point.
	click(point(1, 9)) // the horse at b1
	var targets, legalFrom int
	eval(`document.querySelectorAll("#p-board .target").length`, &targets)
	eval(`state.legal.filter((m) => m.startsWith("b1")).length`, &legalFrom)
	if targets != legalFrom || targets == 0 {
		t.Errorf("the horse at b1 shows %d targets, the server lists %d moves", targets, legalFrom)
	}
	click(point(1, 9)) // unselected
	// The form shows only what applies: alpha-beta has no simulations.
	var simsShown bool
	eval(`getComputedStyle(document.getElementById("p-sims-row")).display !== "none"`, &simsShown)
	if simsShown {
		t.Error("the simulations field shows for alpha-beta")
	}
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
	lastMarked("Xiangqi")
	// Red's pieces in their traditional characters: the general 帥.
	var general string
	eval(`[...document.querySelectorAll("#p-board .pt")].find((g) => g.dataset.piece === "K").querySelector(".glyph").textContent`, &general)
	if general != "帥" {
		t.Errorf("Red's general drawn as %q", general)
	}
	// Analysis: the engine thinks about the position, the game unchanged;
	// its best move drawn as an arrow.
	var plyBefore, plyAfter int
	eval(`state.moves.length`, &plyBefore)
	eval(`(() => { document.getElementById("p-analyse-ms").value = "1000"; return true; })()`, new(bool))
	click("#p-analyse")
	waitJS("the analysis", `document.getElementById("p-analysis-summary") && document.getElementById("p-analysis-summary").textContent.startsWith("analysed: depth ")`)
	var arrows, analysed int
	eval(`document.querySelectorAll("#p-board .hint").length`, &arrows)
	eval(`document.querySelectorAll("#p-analysis-top tr").length`, &analysed)
	eval(`state.moves.length`, &plyAfter)
	if arrows != 1 || analysed < 2 || plyAfter != plyBefore {
		t.Errorf("analysis: %d arrows, %d rows, %d plies before and %d after", arrows, analysed, plyBefore, plyAfter)
	}

	// The shot shows a piece's targets: the first legal move's piece.
	var from []int
	eval(`(() => { const x = /^([a-i])(\d+)/.exec(state.legal[0]); return [x[1].charCodeAt(0) - 97, 10 - Number(x[2])]; })()`, &from)
	click(point(from[0], from[1]))
	eval(`state.id`, &id)
	games["xiangqi"] = id
	shot("play-xiangqi.png")

	// Playing second, the board is turned: Red's general at the top, and
	// the files run from i on the left. Turn board turns it back.
	eval(`(() => { document.getElementById("p-side").value = "second"; return true; })()`, new(bool))
	click("#p-new")
	waitJS("the engine's opening", `state !== null && !busy && state.human === "second" && state.moves.length === 1`)
	above := func() (redAbove bool) {
		eval(`(() => { const y = (p) => Number([...document.querySelectorAll("#p-board .pt")].find((g) => g.dataset.piece === p).dataset.y); return y("K") < y("k"); })()`, &redAbove)
		return redAbove
	}
	var firstFile string
	eval(`[...document.querySelectorAll("#p-board .coord.file")].sort((a, b) => a.getAttribute("x") - b.getAttribute("x"))[0].textContent`, &firstFile)
	if !above() || firstFile != "i" {
		t.Errorf("playing second: Red above %v, leftmost file %q", above(), firstFile)
	}
	click("#p-flip")
	if above() {
		t.Error("Turn board left Red above")
	}
	// Latin letters, remembered by the browser.
	click("#p-latin")
	eval(`[...document.querySelectorAll("#p-board .pt")].find((g) => g.dataset.piece === "K").querySelector(".glyph").textContent + localStorage.getItem("tabula.pieces")`, &general)
	if general != "Klatin" {
		t.Errorf("Latin letters: the general %q", general)
	}
	click("#p-latin")
	eval(`(() => { document.getElementById("p-side").value = "first"; return true; })()`, new(bool))

	// A game from a position pasted, Red in check from the chariot on
	// e9: the general marked, the status saying so, a move that ignores
	// the check refused with the reason.
	eval(`(() => { document.getElementById("p-start").value = "4k4/4r4/9/9/9/R8/9/9/9/4K4 w"; return true; })()`, new(bool))
	click("#p-new")
	waitJS("the game from the position", `state !== null && !busy && state.start.startsWith("4k4/4r4/9/9/9/R8/9/9/9/4K4 w") && state.moves.length === 0`)
	var pieces, checks int
	eval(`[...document.querySelectorAll("#p-board .pt")].filter((g) => g.dataset.piece).length`, &pieces)
	eval(`document.querySelectorAll("#p-board .check").length`, &checks)
	eval(`document.getElementById("p-status").textContent`, &status)
	if pieces != 4 || checks != 1 || !strings.Contains(status, "you are in check") {
		t.Errorf("the position in check: %d pieces, %d checks marked, status %q", pieces, checks, status)
	}
	click(point(0, 5)) // the chariot at a5
	click(point(0, 4)) // a6
	waitJS("the refusal in check", `document.getElementById("p-error").textContent === 'illegal move "a5a6": your general is in check, and that move leaves it attacked by the chariot'`)
	eval(`(() => { document.getElementById("p-start").value = ""; return true; })()`, new(bool))

	// Catch the Lion: a step the lion cannot make, explained; how each
	// piece moves (a dot a step on every piece, the legend); moves and
	// drops by clicks until a piece has been dropped or ten moves.
	eval(`(() => { document.getElementById("p-game").value = "lion"; document.getElementById("p-game").dispatchEvent(new Event("change"));
		document.getElementById("p-ab-limit").value = "depth"; document.getElementById("p-ab-value").value = "1"; return true; })()`, new(bool))
	click("#p-new")
	ready()
	waitJS("the Catch the Lion board", `state.game === "lion" && document.querySelectorAll("#p-board .pt").length === 12`)
	click(point(1, 3)) // the lion at b1
	click(point(1, 1)) // b3, two steps away
	waitJS("the lion's refusal", `!document.getElementById("p-error").hidden && document.getElementById("p-error").textContent.includes("a lion cannot step from b1 to b3")`)
	var steps, legend int
	eval(`document.querySelectorAll("#p-board .pt .step").length`, &steps)
	eval(`document.querySelectorAll("#p-legend figure").length`, &legend)
	// The start's pieces: 2 lions (8 steps each), giraffes (4), elephants
	// (4), chicks (1).
	if steps != 2*(8+4+4+1) || legend != 5 {
		t.Errorf("Catch the Lion: %d step dots, %d pieces in the legend", steps, legend)
	}
	click(point(1, 3)) // unselect the lion
	dropped := false
	for i := 0; i < 10 && !dropped; i++ {
		n := ready()
		var over bool
		eval(`state.over`, &over)
		if over {
			break
		}
		// A drop when there is one, else a capture, else a spread.
		var mv string
		eval(`state.legal.find((m) => m.includes("*")) || state.legal.find((m) => { const x = /^([a-c]\d)([a-c]\d)$/.exec(m); return x && state.board.cells[cellOf(x[2])] !== ""; }) || state.legal[(5 * `+itoa(i)+`) % state.legal.length]`, &mv)
		to := mv[len(mv)-2:]
		sq := func(s string) string { return point(int(s[0]-'a'), 4-int(s[1]-'0')) }
		if strings.Contains(mv, "*") {
			click(`#p-board .hand-pc[data-side="0"][data-letter="` + mv[:1] + `"]`)
			dropped = true
		} else {
			click(sq(mv[:2]))
		}
		click(sq(to))
		waitJS("the reply", `(state.moves.length > `+itoa(n)+` || state.over) && !busy`)
		eval(`document.getElementById("p-error").hidden`, new(bool))
	}
	ready()
	lastMarked("Catch the Lion")
	eval(`state.id`, &id)
	games["lion"] = id
	shot("play-lion.png")

	// At a phone's width each game fits without sideways scroll.
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"connect4", "xiangqi", "lion"} {
		if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/play.html?view="+g+"#"+games[g])); err != nil {
			t.Fatal(err)
		}
		waitJS("the game at a phone's width", `state !== null && state.id === "`+games[g]+`" && !busy`)
		var wide []int
		eval(`[document.documentElement.scrollWidth, window.innerWidth]`, &wide)
		if wide[0] > wide[1] {
			t.Errorf("%s at 390 px: the page is %d px wide in a %d px window", g, wide[0], wide[1])
		}
		var boardW float64
		eval(`document.getElementById("p-board").getBoundingClientRect().width`, &boardW)
		if boardW < 250 {
			t.Errorf("%s at 390 px: the board is %.0f px wide", g, boardW)
		}
		if err := chromedp.Run(ctx, chromedp.ScrollIntoView("#p-board", chromedp.ByID)); err != nil {
			t.Fatal(err)
		}
		phone(g)
	}
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1200, 900)); err != nil {
		t.Fatal(err)
	}

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
