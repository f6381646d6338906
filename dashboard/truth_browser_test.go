package dashboard

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tabula-zero/tabula/game/lion/tablebase"
)

// TestPlayTruthBrowser turns "exact values" on in headless Chromium: a
// Connect Four position of Pons' set shows every legal move's value in
// words, the best marked in the list and on the board, the same as the
// server's stream; a move played replaces them with the next position's.
// Catch the Lion without a table offers no toggle and says how to get
// one; with the full table at $TABULA_LION_TB its values show too. Then
// alpha-beta at a strength: the Elo's scale said, the game's engine
// ab:elo=300,eval=learned. No console errors. TABULA_SCREENSHOTS=DIR keeps play-truth-connect4.png
// (and play-truth-lion.png with the table).
func TestPlayTruthBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := chromium(t)
	var table *tablebase.Table
	if path := os.Getenv(tablebase.EnvFile); path != "" {
		var err error
		if table, err = OpenLionTablebase(path); err != nil {
			t.Fatal(err)
		}
		defer table.Close()
	}
	s := New("", nil, nil, nil)
	s.SetPlay(PlayOptions{LionTablebase: table})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	ctx, consoleErrors := startBrowser(t, bin, 1200, 900, 120*time.Second)
	eval := func(js string, v any) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, v)); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
	}
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
	shot := func(name string) {
		t.Helper()
		var b []byte
		if err := chromedp.Run(ctx, chromedp.FullScreenshot(&b, 100)); err != nil {
			t.Fatal(err)
		}
		dir := os.Getenv("TABULA_SCREENSHOTS")
		if dir == "" {
			dir = t.TempDir()
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Error(err)
		}
	}
	// start begins a game of gameName from position, the person playing
	// side.
	start := func(gameName, position, side string) {
		t.Helper()
		eval(`(() => { const g = document.getElementById("p-game"); g.value = "`+gameName+`"; g.dispatchEvent(new Event("change"));
			document.getElementById("p-ab-value").value = "2"; document.getElementById("p-side").value = "`+side+`";
			document.getElementById("p-start").value = "`+position+`"; return true; })()`, new(bool))
		click("#p-new")
		waitJS("the game", `state !== null && !busy && state.game === "`+gameName+`" && state.to_move === "human"`)
	}
	words := regexp.MustCompile(`^(wins in \d+|draws|loses in \d+)$`)
	// shown checks the panel against the server's answer: every legal
	// move once, each with its words, the best starred and marked.
	shown := func(what string) {
		t.Helper()
		waitJS(what+": the values", `truthShown && truthShown.position === state.position && truthShown.info.done`)
		var rows [][]string
		eval(`[...document.querySelectorAll("#p-truth-moves tr")].slice(1).map((r) => [...r.cells].map((c) => c.textContent).concat([r.className]))`, &rows)
		var legal, best, marks int
		eval(`state.legal.length`, &legal)
		eval(`truthShown.info.moves.filter((m) => m.best).length`, &best)
		eval(`document.querySelectorAll("#p-board .truth-mark").length`, &marks)
		if len(rows) != legal || best == 0 || marks < best {
			t.Fatalf("%s: %d rows for %d legal moves, %d best, %d marks on the board", what, len(rows), legal, best, marks)
		}
		starred := 0
		for _, r := range rows {
			if !words.MatchString(r[1]) {
				t.Errorf("%s: row %q", what, r)
			}
			if r[2] == "best" {
				starred++
			}
		}
		if starred != best {
			t.Errorf("%s: %d rows marked best, the server's %d", what, starred, best)
		}
		var summary string
		eval(`document.getElementById("p-truth-summary").textContent`, &summary)
		if !regexp.MustCompile(`^exact values \(the (solver|tablebase)\): you (win in \d+|draw|lose in \d+) with best play$`).MatchString(summary) {
			t.Errorf("%s: summary %q", what, summary)
		}
	}

	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/play.html")); err != nil {
		t.Fatal(err)
	}
	waitJS("the options", `document.getElementById("p-opponent").options.length > 0`)
	eval(`localStorage.removeItem("tabula.truth"), true`, new(bool))

	// Connect Four from a position of Pons' middle-game set (the second
	// player to move wins).
	start("connect4", "5554224333234511764415115", "second")
	var hidden bool
	eval(`document.getElementById("p-truth-row").hidden || !document.getElementById("p-truth").hidden`, &hidden)
	if hidden {
		t.Fatal("Connect Four: the toggle not offered, or values shown before it is on")
	}
	click("#p-truth-on")
	shown("Connect Four")
	var first string
	eval(`truthShown.info.moves[0].words`, &first)
	if !regexp.MustCompile(`^wins in \d+$`).MatchString(first) {
		t.Errorf("Connect Four: the best move %q in a won position", first)
	}
	shot("play-truth-connect4.png")

	// A move: the next position's values replace them.
	var before string
	eval(`state.position`, &before)
	var col string
	eval(`truthShown.info.moves[0].move`, &col)
	click(`#p-board .pt[data-file="` + itoa(int(col[0]-'1')) + `"][data-rank="0"]`)
	waitJS("the reply", `!busy && state.position !== "`+before+`"`)
	if eval(`state.over`, &hidden); !hidden {
		shown("Connect Four after a move")
	}

	// Catch the Lion.
	start("lion", "", "first")
	if table == nil {
		var hint string
		eval(`document.getElementById("p-truth-row").hidden && !document.getElementById("p-truth-hint").hidden`, &hidden)
		eval(`document.getElementById("p-truth-hint").textContent`, &hint)
		if !hidden || !regexp.MustCompile(`liontb -out .*-lion-tablebase`).MatchString(hint) {
			t.Errorf("Catch the Lion without a table: toggle hidden %v, hint %q", hidden, hint)
		}
		t.Logf("Catch the Lion's values need the full table at $%s: %s", tablebase.EnvFile, tablebase.BuildHint)
	} else {
		// The toggle stays on from Connect Four (the browser keeps it).
		shown("Catch the Lion")
		shot("play-truth-lion.png")
	}
	// The strength: alpha-beta limited to an Elo, the scale said in
	// words, the depth's row hidden (the Elo alone bounds the search).
	eval(`(() => { const g = document.getElementById("p-game"); g.value = "xiangqi"; g.dispatchEvent(new Event("change"));
		const s = document.getElementById("p-strength"); s.value = "elo"; s.dispatchEvent(new Event("change"));
		document.getElementById("p-elo").value = "300"; document.getElementById("p-side").value = "second";
		document.getElementById("p-start").value = ""; return true; })()`, new(bool))
	var scale string
	eval(`document.getElementById("p-ab-row").hidden ? document.getElementById("p-elo-hint").textContent : ""`, &scale)
	if !regexp.MustCompile(`ladder`).MatchString(scale) {
		t.Errorf("Xiangqi's strength: the hint %q (or the depth shown)", scale)
	}
	click("#p-new")
	waitJS("the limited engine's first move", `state !== null && !busy && state.game === "xiangqi" && state.moves.length === 1`)
	var engine string
	eval(`state.engine`, &engine)
	if engine != "ab:elo=300,eval=learned" {
		t.Errorf("the limited engine is %q", engine)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
