package engine

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
)

var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// tabulaBinary builds tabula once for the tests that run it as a GUI
// does, skipping them with -short or without a go tool.
func tabulaBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the engine")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build the engine with")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "tabula-engine-test"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "tabula")
		built.out, built.err = exec.Command(goTool, "build", "-o", built.bin, "github.com/tabula-zero/tabula/cmd/tabula").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// TestBinaryUCCI builds tabula and plays UCCI with `tabula engine`
// through pipes, as a GUI does.
func TestBinaryUCCI(t *testing.T) {
	bin := tabulaBinary(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "engine")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	until := func(prefix string) []string {
		t.Helper()
		var got []string
		for sc.Scan() {
			got = append(got, sc.Text())
			if strings.HasPrefix(sc.Text(), prefix) {
				return got
			}
		}
		t.Fatalf("no %q in:\n%s", prefix, strings.Join(got, "\n"))
		return nil
	}
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send("ucci")
	until("ucciok")
	send("setoption hashsize 1")
	send("isready")
	until("readyok")
	send("position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves h2e2 h7e7")
	send("go depth 3")
	out := until("bestmove")
	g, _ := game.Lookup("xiangqi")
	p, err := g.Parse("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", game.Options{"Notation": "iccs"})
	if err != nil {
		t.Fatal(err)
	}
	if err := game.Play(p, "h2e2", "h7e7", strings.Fields(out[len(out)-1])[1]); err != nil {
		t.Fatalf("%q: %v", out[len(out)-1], err)
	}
	send("quit")
	until("bye")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("engine exit: %v", err)
	}
}
