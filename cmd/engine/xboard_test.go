package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

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
	tools := map[string]string{}
	for _, name := range []string{"xboard", "Xvfb", "fairy-stockfish", "go"} {
		p, err := exec.LookPath(name)
		if err != nil {
			p, err = exec.LookPath(filepath.Join("/usr/games", name))
		}
		if err != nil {
			t.Skipf("%s not installed (apt install xboard xvfb fairy-stockfish): skipping the xboard test", name)
		}
		tools[name] = p
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "engine")
	if out, err := exec.Command(tools["go"], "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()

	// A display of our own: Xvfb picks a free number and writes it.
	r, w, _ := os.Pipe()
	xvfb := exec.CommandContext(ctx, tools["Xvfb"], "-displayfd", "3", "-screen", "0", "1024x768x24", "-nolisten", "tcp")
	xvfb.ExtraFiles = []*os.File{w}
	if err := xvfb.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	defer func() { xvfb.Process.Kill(); xvfb.Wait() }()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb gave no display: %v", err)
	}
	display := ":" + strings.TrimSpace(line)

	pgn, debug := filepath.Join(dir, "game.pgn"), filepath.Join(dir, "xboard.debug")
	xb := exec.CommandContext(ctx, tools["xboard"], "-variant", "xiangqi",
		"-fcp", bin, "-scp", tools["fairy-stockfish"],
		"-mg", "1", "-tc", "0:10", "-inc", "0", "-sgf", pgn, "-debug", "-nameOfDebugFile", debug,
		"-popupExitMessage", "false",
		// No sounds: without a sound card each one floods the output with ALSA errors.
		"-soundProgram", "true")
	xb.Env = append(os.Environ(), "DISPLAY="+display)
	xb.Dir = dir
	var xbOut strings.Builder
	xb.Stdout, xb.Stderr = &xbOut, &xbOut
	if err := xb.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- xb.Wait() }()

	// xboard's own output says little; its debug log holds the engines' talk.
	debugTail := func() string {
		b, _ := os.ReadFile(debug)
		if len(b) > 3000 {
			b = b[len(b)-3000:]
		}
		return fmt.Sprintf("xboard's output:\n%s\nthe end of its debug log:\n%s", xbOut.String(), b)
	}

	// The screenshot, a few seconds into the game: early, because a quick
	// mate by Fairy-Stockfish can end the game in under ten seconds.
	shot := filepath.Join(dir, "xboard-xiangqi.png")
	select {
	case <-time.After(3 * time.Second):
		if imp, err := exec.LookPath("import"); err == nil {
			c := exec.CommandContext(ctx, imp, "-window", "root", shot)
			c.Env = xb.Env
			if out, err := c.CombinedOutput(); err != nil {
				t.Errorf("screenshot: %v\n%s", err, out)
			}
		} else {
			t.Log("no ImageMagick import: no screenshot")
		}
	case err := <-exited:
		t.Fatalf("xboard ended within 3 s: %v\n%s", err, debugTail())
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("xboard: %v\n%s", err, debugTail())
		}
	case <-ctx.Done():
		<-exited // killed by the context; its output is complete
		t.Fatalf("the game did not end in time\n%s", debugTail())
	}
	if keep := os.Getenv("TABULA_SCREENSHOTS"); keep != "" {
		if b, err := os.ReadFile(shot); err == nil {
			os.WriteFile(filepath.Join(keep, "xboard-xiangqi.png"), b, 0o644)
		}
	}
	if st, err := os.Stat(shot); err == nil && st.Size() < 10000 {
		t.Errorf("screenshot of %d bytes: nothing drawn", st.Size())
	}

	game, err := os.ReadFile(pgn)
	if err != nil {
		t.Fatalf("no PGN saved: %v\n%s", err, debugTail())
	}
	text := string(game)
	for _, tag := range []string{`[Variant "xiangqi"]`, `[White "tabula"]`, `[Black "fairy-stockfish"]`} {
		if !strings.Contains(text, tag) {
			t.Errorf("PGN lacks %s:\n%s", tag, text)
		}
	}
	res := regexp.MustCompile(`\[Result "(1-0|0-1|1/2-1/2)"\]`).FindStringSubmatch(text)
	moves := regexp.MustCompile(`\b(\d+)\. `).FindAllStringSubmatch(text, -1)
	if res == nil || len(moves) < 3 {
		t.Fatalf("PGN without a result or with %d moves:\n%s\n%s", len(moves), text, debugTail())
	}
	log, _ := os.ReadFile(debug)
	for _, l := range strings.Split(string(log), "\n") {
		if strings.Contains(l, "<first") && (strings.Contains(l, "Illegal") || strings.Contains(l, "Error")) {
			t.Errorf("xboard saw from our engine: %s", l)
		}
	}
	t.Log(fmt.Sprintf("xboard game: %s after %d moves; screenshot %s", res[1], len(moves), shot))
}
