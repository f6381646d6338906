//go:build unix

package engine

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// proc is `tabula engine` on pipes.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	exited chan error
}

func startEngine(t *testing.T) *proc {
	t.Helper()
	bin := tabulaBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	p := &proc{cmd: exec.CommandContext(ctx, bin, "engine"), lines: make(chan string, 4096), exited: make(chan error, 1)}
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.exited <- p.cmd.Wait()
	}()
	t.Cleanup(func() { p.cmd.Process.Kill() })
	return p
}

func (p *proc) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.stdin, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// until reads lines up to one that satisfies ok, and returns them.
func (p *proc) until(t *testing.T, ok func(string) bool) []string {
	t.Helper()
	var got []string
	deadline := time.After(time.Minute)
	for {
		select {
		case l, open := <-p.lines:
			if !open {
				t.Fatalf("the engine ended; its output:\n%s", strings.Join(got, "\n"))
			}
			got = append(got, l)
			if ok(l) {
				return got
			}
		case <-deadline:
			t.Fatalf("no expected line within a minute; the output:\n%s", strings.Join(got, "\n"))
		}
	}
}

// wait waits for the engine to exit (generously: to fail, not hang).
func (p *proc) wait(t *testing.T) error {
	t.Helper()
	for range p.lines {
	}
	select {
	case err := <-p.exited:
		return err
	case <-time.After(time.Minute):
		t.Fatal("the engine did not exit")
		return nil
	}
}

func is(s string) func(string) bool { return func(l string) bool { return l == s } }

// A Tablebase that is a FIFO, or /dev/stdin (the GUI's own pipe), is
// refused at once with the reason, isready is answered, and SIGTERM ends
// the engine. Before, opening the FIFO blocked for good (no readyok,
// SIGTERM ignored) and /dev/stdin read the GUI's commands as the table.
func TestBinaryTablebaseNotAFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "tb.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	p := startEngine(t)
	p.send(t, "uci", "setoption name UCI_Variant value lion", "setoption name Mover value tablebase",
		"setoption name Tablebase value "+fifo, "setoption name Tablebase value /dev/stdin", "isready")
	got := p.until(t, is("readyok"))
	var errs []string
	for _, l := range got {
		if strings.HasPrefix(l, "info string error") {
			errs = append(errs, l)
		}
	}
	if len(errs) != 2 || !strings.Contains(errs[0], fifo+" is a named pipe (FIFO), not a regular file") || !strings.Contains(errs[1], "/dev/stdin is a named pipe (FIFO), not a regular file") {
		t.Errorf("errors %q", errs)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(t); err == nil || !strings.Contains(err.Error(), "exit status") {
		t.Errorf("after SIGTERM: %v", err)
	}
}

// xboard: the network changed while the engine thinks with four threads
// is applied after the move (a ping behind it answers after the move),
// and quit or SIGTERM during the next search end the engine. Before, the
// change closed the evaluator under the search, which could spin for
// good with quit and SIGTERM ignored.
func TestBinaryNetworkChangeDuringSearch(t *testing.T) {
	for _, end := range []string{"quit", "SIGTERM"} {
		p := startEngine(t)
		p.send(t, "xboard", "protover 2")
		p.until(t, is("feature done=1"))
		p.send(t, "option Mover=mcts", "option Threads=4", "new")
		if end == "quit" {
			p.send(t, "st 1", "go", "option Network=xiangqi", "ping 1")
			got := p.until(t, is("pong 1"))
			if i := len(got) - 2; i < 0 || !strings.HasPrefix(got[i], "move ") {
				t.Fatalf("pong came before the move, or no move:\n%s", strings.Join(got, "\n"))
			}
			for _, l := range got {
				if strings.HasPrefix(l, "Error") {
					t.Error(l)
				}
			}
		}
		p.send(t, "st 30", "go", "ping 2")
		p.until(t, is("pong 2")) // the search runs
		if end == "quit" {
			p.send(t, "quit")
			if err := p.wait(t); err != nil {
				t.Errorf("quit during a search: %v", err)
			}
			continue
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
		if err := p.wait(t); err == nil || !strings.Contains(err.Error(), "exit status") {
			t.Errorf("SIGTERM during a search: %v", err)
		}
	}
}
