package engine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// xboardSetup finds the tools of an xboard test (skipping it where one is
// missing), builds the engine into a temporary directory and starts a
// virtual display. It returns the tools' paths, the engine binary, the
// directory and the display.
func xboardSetup(t *testing.T, ctx context.Context, names ...string) (tools map[string]string, bin, dir, display string) {
	t.Helper()
	tools = map[string]string{}
	for _, name := range append([]string{"xboard", "Xvfb", "go"}, names...) {
		p, err := exec.LookPath(name)
		if err != nil {
			p, err = exec.LookPath(filepath.Join("/usr/games", name))
		}
		if err != nil {
			t.Skipf("%s not installed (apt install xboard xvfb fairy-stockfish): skipping the xboard test", name)
		}
		tools[name] = p
	}
	dir = t.TempDir()
	// xboard starts the engine as a GUI user would: "tabula engine".
	tabula := filepath.Join(dir, "tabula")
	if out, err := exec.Command(tools["go"], "build", "-o", tabula, "github.com/tabula-zero/tabula/cmd/tabula").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	bin = tabula + " engine"
	// A display of our own: Xvfb picks a free number and writes it.
	r, w, _ := os.Pipe()
	xvfb := exec.CommandContext(ctx, tools["Xvfb"], "-displayfd", "3", "-screen", "0", "1024x768x24", "-nolisten", "tcp")
	xvfb.ExtraFiles = []*os.File{w}
	if err := xvfb.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { xvfb.Process.Kill(); xvfb.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb gave no display: %v", err)
	}
	return tools, bin, dir, ":" + strings.TrimSpace(line)
}

// xboardGame is one run of xboard: a one-game match saved as pgn, with
// the engines' talk in the debug log.
type xboardGame struct {
	env        []string
	pgn, debug string
	mu         sync.Mutex
	out        strings.Builder
	exited     chan error
}

func (g *xboardGame) Write(b []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.out.Write(b)
}

// startXboard starts xboard on display with args (a one-game match is
// -mg 1), with the files of the game named name in dir. xboard saves no settings: it would
// write them to the user's ~/.xboardrc and read them in the next run.
func startXboard(t *testing.T, ctx context.Context, xboard, display, dir, name string, args ...string) *xboardGame {
	t.Helper()
	g := &xboardGame{pgn: filepath.Join(dir, name+".pgn"), debug: filepath.Join(dir, name+".debug"), exited: make(chan error, 1)}
	xb := exec.CommandContext(ctx, xboard, append([]string{"-variant", "xiangqi",
		"-sgf", g.pgn, "-debug", "-nameOfDebugFile", g.debug, "-popupExitMessage", "false", "-saveSettingsOnExit", "false",
		// No sounds: without a sound card each one floods the output with ALSA errors.
		"-soundProgram", "true"}, args...)...)
	g.env = append(os.Environ(), "DISPLAY="+display)
	xb.Env, xb.Dir, xb.Stdout, xb.Stderr = g.env, dir, g, g
	if err := xb.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { g.exited <- xb.Wait() }()
	return g
}

// tail is xboard's output and the end of its debug log, which holds the
// engines' talk, for a failure message.
func (g *xboardGame) tail() string {
	b, _ := os.ReadFile(g.debug)
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return fmt.Sprintf("xboard's output:\n%s\nthe end of its debug log:\n%s", g.out.String(), b)
}

// wait waits for xboard to end the match, and returns the saved game.
func (g *xboardGame) wait(t *testing.T, ctx context.Context) string {
	t.Helper()
	select {
	case err := <-g.exited:
		if err != nil {
			t.Fatalf("xboard: %v\n%s", err, g.tail())
		}
	case <-ctx.Done():
		<-g.exited // killed by the context; its output is complete
		t.Fatalf("the game did not end in time\n%s", g.tail())
	}
	// A game lost on time at the first move is not saved: the log says.
	if log, _ := os.ReadFile(g.debug); timeLoss.Match(log) {
		t.Fatalf("xboard saw a loss on time: %s\n%s", timeLoss.Find(log), g.tail())
	}
	game, err := os.ReadFile(g.pgn)
	if err != nil {
		t.Fatalf("no PGN saved: %v\n%s", err, g.tail())
	}
	return string(game)
}

// timeLoss is how xboard announces a fallen flag.
var timeLoss = regexp.MustCompile(`(White|Black) wins on time|(White's|Black's|Both) flags? fell`)

// checkGame checks a saved game's tags, that it has a result and at least
// minMoves moves, that neither side lost on time, and that xboard saw no
// illegal move or error from the engines whose debug-log names are given
// (first, second). It returns the result and the number of moves.
func checkGame(t *testing.T, g *xboardGame, text string, tags []string, minMoves int, ours ...string) (string, int) {
	t.Helper()
	for _, tag := range append([]string{`[Variant "xiangqi"]`}, tags...) {
		if !strings.Contains(text, tag) {
			t.Errorf("PGN lacks %s:\n%s", tag, text)
		}
	}
	res := regexp.MustCompile(`\[Result "(1-0|0-1|1/2-1/2)"\]`).FindStringSubmatch(text)
	moves := regexp.MustCompile(`\b(\d+)\. `).FindAllStringSubmatch(text, -1)
	if res == nil || len(moves) < minMoves {
		t.Fatalf("PGN without a result or with %d moves:\n%s\n%s", len(moves), text, g.tail())
	}
	if m := timeLoss.FindString(text); m != "" {
		t.Errorf("PGN records a loss on time (%s):\n%s", m, text)
	}
	log, _ := os.ReadFile(g.debug)
	for _, l := range strings.Split(string(log), "\n") {
		for _, name := range ours {
			if strings.Contains(l, "<"+name) && (strings.Contains(l, "Illegal") || strings.Contains(l, "Error")) {
				t.Errorf("xboard saw from our engine: %s", l)
			}
		}
	}
	return res[1], len(moves)
}

// TestXboardGUI hosts the built engine in GNU xboard, as a user would,
// on a virtual display (Xvfb): xiangqi mode, the engine as Red against
// Fairy-Stockfish, a game played to the end at 10 s a side. It checks the
// saved PGN (variant, players, a result, a real game) and that xboard saw
// no illegal move or error from our engine, and saves a screenshot of
// the board mid-game (TABULA_SCREENSHOTS=DIR keeps it). It runs where
// xboard, Xvfb and fairy-stockfish are installed (.ci/run installs them)
// and skips elsewhere.
func TestXboardGUI(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole game in xboard")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	tools, bin, dir, display := xboardSetup(t, ctx, "fairy-stockfish")
	g := startXboard(t, ctx, tools["xboard"], display, dir, "game", "-mg", "1",
		"-fcp", bin, "-scp", tools["fairy-stockfish"], "-tc", "0:10", "-inc", "0", "-adjudicateDrawMoves", "0", "-autoCallFlag", "false")

	// The screenshot, a few seconds into the game: early, because a quick
	// mate by Fairy-Stockfish can end the game in under ten seconds.
	shot := filepath.Join(dir, "xboard-xiangqi.png")
	select {
	case <-time.After(3 * time.Second):
		if imp, err := exec.LookPath("import"); err == nil {
			c := exec.CommandContext(ctx, imp, "-window", "root", shot)
			c.Env = g.env
			if out, err := c.CombinedOutput(); err != nil {
				t.Errorf("screenshot: %v\n%s", err, out)
			}
		} else {
			t.Log("no ImageMagick import: no screenshot")
		}
	case err := <-g.exited:
		t.Fatalf("xboard ended within 3 s: %v\n%s", err, g.tail())
	}
	text := g.wait(t, ctx)
	if keep := os.Getenv("TABULA_SCREENSHOTS"); keep != "" {
		if b, err := os.ReadFile(shot); err == nil {
			os.WriteFile(filepath.Join(keep, "xboard-xiangqi.png"), b, 0o644)
		}
	}
	if st, err := os.Stat(shot); err == nil && st.Size() < 10000 {
		t.Errorf("screenshot of %d bytes: nothing drawn", st.Size())
	}
	res, moves := checkGame(t, g, text, []string{`[White "tabula"]`, `[Black "fairy-stockfish"]`}, 3, "first")
	t.Logf("xboard game: %s after %d moves; screenshot %s", res, moves, shot)
}

// TestXboardTimeControls plays the engine against itself in xboard with
// xboard calling flags (-autoCallFlag), alpha-beta against the shipped
// network (-secondOptions Mover=mcts, as the README's first steps): a match at a fixed second a move
// (-st 0:01, which xboard sends as st 1 and holds as a hard limit: a move
// a few milliseconds late lost the game) and one on a clock of 2 s plus
// 1 s a move (-tc 0:02 -inc 1, sent as level, time and otim). Games are
// adjudicated drawn after 8 moves; neither side may lose on time. Where
// xboard and Xvfb are installed; skipped elsewhere.
func TestXboardTimeControls(t *testing.T) {
	if testing.Short() {
		t.Skip("plays games in xboard")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	tools, bin, dir, display := xboardSetup(t, ctx)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"st", []string{"-st", "0:01"}},
		// Four seconds and an increment: with two, a side on a machine
		// whose cores other tests fill could lose on time with a second
		// left, which says nothing of how the engine keeps its clock.
		{"tc-inc", []string{"-tc", "0:04", "-inc", "1"}},
	} {
		// A MoveOverhead of 250 ms (sent by xboard's option command), what a
		// user of a loaded machine sets: the tests of other packages share
		// its cores, and at the default 50 ms a move that takes 960 ms of
		// a 1 s limit can lose on time to the scheduler.
		g := startXboard(t, ctx, tools["xboard"], display, dir, c.name, append([]string{
			"-mg", "1", "-fcp", bin, "-scp", bin, "-firstOptions", "MoveOverhead=250", "-secondOptions", "MoveOverhead=250,Mover=mcts",
			"-autoCallFlag", "true", "-adjudicateDrawMoves", "8"}, c.args...)...)
		text := g.wait(t, ctx)
		res, moves := checkGame(t, g, text, []string{`[White "tabula"]`, `[Black "tabula"]`}, 5, "first", "second")
		t.Logf("%s %q: %s after %d moves", c.name, c.args, res, moves)
	}
}

// TestXboardAnalysis opens the engine in xboard's analysis mode (-mode
// Analysis, with periodic updates, so that xboard sends . as well as
// analyze) on a virtual display, and waits for the debug log to show
// xboard's analyze, the engine's thinking lines (ply score time nodes pv,
// as xboard reads them) and a stat01 answer, with no error or illegal
// move from the engine. Where xboard and Xvfb are installed; skipped
// elsewhere.
func TestXboardAnalysis(t *testing.T) {
	if testing.Short() {
		t.Skip("runs xboard")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	tools, bin, dir, display := xboardSetup(t, ctx)
	xctx, stop := context.WithCancel(ctx)
	g := startXboard(t, xctx, tools["xboard"], display, dir, "analysis",
		"-fcp", bin, "-mode", "Analysis", "-periodicUpdates", "true")
	defer func() { stop(); <-g.exited }()
	thinking := regexp.MustCompile(`(?m)<first : \d+ -?\d+ \d+ \d+ [a-i]\d[a-i]\d`)
	for {
		log, _ := os.ReadFile(g.debug)
		if strings.Contains(string(log), ">first : analyze") && thinking.Match(log) && strings.Contains(string(log), "<first : stat01: ") {
			for _, l := range strings.Split(string(log), "\n") {
				if strings.Contains(l, "<first") && (strings.Contains(l, "Illegal") || strings.Contains(l, "Error") || strings.HasPrefix(strings.TrimSpace(l[strings.Index(l, ":")+1:]), "move ")) {
					t.Errorf("xboard saw from our engine in analysis: %s", l)
				}
			}
			t.Logf("xboard's log: %s ... %s", thinking.Find(log), regexp.MustCompile(`<first : stat01: .*`).Find(log))
			return
		}
		select {
		case err := <-g.exited:
			t.Fatalf("xboard ended during the analysis: %v\n%s", err, g.tail())
		case <-ctx.Done():
			t.Fatalf("no analysis seen in xboard's log\n%s", g.tail())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
