package engine

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/testnet"
	"github.com/tabula-zero/tabula/rundir"
)

// readmeExample returns the commands and the flags of the README's UCI
// example: the line `(printf '...'; sleep N) | go run ./cmd/tabula engine FLAGS`.
func readmeExample(t *testing.T) (cmds, args []string) {
	t.Helper()
	b, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(l, "(printf '")
		if !ok || !strings.Contains(l, "| go run ./cmd/tabula engine") {
			continue
		}
		format, _, ok := strings.Cut(rest, "'")
		if !ok || strings.ContainsAny(format, `%"`) || strings.Contains(strings.ReplaceAll(format, `\n`, ""), `\`) {
			t.Fatalf("the README's example has a printf format this test does not read: %q", format)
		}
		_, tail, _ := strings.Cut(l, "| go run ./cmd/tabula engine")
		tail, _, _ = strings.Cut(tail, "#")
		return strings.Split(strings.TrimSuffix(format, `\n`), `\n`), strings.Fields(tail)
	}
	t.Fatal("no UCI example (printf ... | go run ./cmd/tabula engine) in README.md")
	return nil, nil
}

// The README's UCI example, exactly as written, answers a legal bestmove
// without an error. Its Network is a run directory that a trained run
// would leave: here one with a small untrained network of the example's
// variant, at the path the example names, under a temporary directory.
func TestReadmeUCIExample(t *testing.T) {
	cmds, args := readmeExample(t)
	variant := "xiangqi"
	for i, a := range args {
		if a == "-variant" && i+1 < len(args) {
			variant = args[i+1]
		}
	}
	network, position := "", ""
	for _, c := range cmds {
		if v, ok := strings.CutPrefix(c, "setoption name UCI_Variant value "); ok {
			variant = v
		}
		if v, ok := strings.CutPrefix(c, "setoption name Network value "); ok {
			network = v
		}
		if strings.HasPrefix(c, "position ") {
			position = c
		}
	}
	if position == "" || !strings.HasPrefix(cmds[len(cmds)-1], "go ") {
		t.Fatalf("the README's example sets no position or does not end in go: %q", cmds)
	}
	dir := t.TempDir()
	if network != "" {
		if filepath.IsAbs(network) {
			t.Fatalf("the README's example names a network outside the clone: %s", network)
		}
		c, err := checkpoints.Load(testnet.Checkpoint(t, t.TempDir(), variant, 1))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rundir.Dir(filepath.Join(dir, network)).Create(c); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(t.Context(), args, inR, outW); outW.Close() }()
	go io.WriteString(inW, strings.Join(cmds, "\n")+"\n")
	// Input stays open until bestmove, as the example's sleep keeps it.
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var out []string
	timeout := time.After(time.Minute)
wait:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				break wait
			}
			out = append(out, l)
			if strings.HasPrefix(l, "bestmove") {
				break wait
			}
		case <-timeout:
			t.Fatalf("no bestmove within a minute:\n%s", strings.Join(out, "\n"))
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatalf("engine: %v", err)
	}
	text := strings.Join(out, "\n")
	if strings.Contains(text, "error") || len(out) == 0 {
		t.Fatalf("the README's example (%q) answered:\n%s", cmds, text)
	}

	// The bestmove is legal in the example's position.
	g, err := game.Lookup(variant)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(position)
	var p game.Position
	moves := []string{}
	switch {
	case len(f) >= 2 && f[1] == "startpos":
		p, err = g.New(nil)
		if len(f) > 3 {
			moves = f[3:]
		}
	case len(f) >= 3 && f[1] == "fen":
		fen, ms, _ := strings.Cut(strings.Join(f[2:], " "), " moves")
		p, err = g.Parse(fen, nil)
		moves = strings.Fields(ms)
	default:
		t.Fatalf("position command %q", position)
	}
	if err != nil {
		t.Fatal(err)
	}
	best := strings.Fields(out[len(out)-1])
	if len(best) < 2 {
		t.Fatalf("last line %q", out[len(out)-1])
	}
	if err := game.Play(p, append(moves, best[1])...); err != nil {
		t.Errorf("bestmove %s after %q: %v\n%s", best[1], position, err, text)
	}
}
