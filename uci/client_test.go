package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeEngineEnv makes the test binary act as an engine subprocess; its
// value names the behaviour (see fakeEngine).
const fakeEngineEnv = "TABULA_UCI_FAKE_ENGINE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEngineEnv); mode != "" {
		os.Exit(fakeEngine(mode))
	}
	os.Exit(m.Run())
}

// fakeEngine runs in the re-executed test binary and returns its exit code.
//
//	tabula    this package's Engine on stdin/stdout, starting with "count"
//	exit      prints an id line and a complaint on stderr, exits with 3
//	garbage   answers every command with junk, never uciok or readyok
//	hang      reads commands and never answers, not even quit
//	stubborn  answers uci and isready but ignores quit
//	longline  answers uci with a 2 MiB line without a line break
//	badsum    answers go perft with counts that do not add up
//	badtotal  answers go perft with an unreadable total
//	dupmove   answers go perft with a move listed twice
//	crash     answers go perft with one line and exits with 2
//	parent    starts a child that hangs, names its pid, then acts as hang
func fakeEngine(mode string) int {
	if mode == "parent" {
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), fakeEngineEnv+"=hang")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("child %d\n", child.Process.Pid)
		mode = "hang"
	}
	if mode == "tabula" {
		e, err := NewEngine(os.Stdin, os.Stdout, WithVariant("count"))
		if err == nil {
			err = e.Run(context.Background())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	if mode == "exit" {
		fmt.Println("id name early bird")
		fmt.Fprintln(os.Stderr, "fatal: out of cheese")
		return 3
	}
	out := bufio.NewWriter(os.Stdout)
	say := func(lines ...string) {
		for _, l := range lines {
			out.WriteString(l + "\n")
		}
		out.Flush()
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		cmd := sc.Text()
		switch {
		case mode == "hang":
		case mode == "garbage":
			say("\x00\x01 garbage \u2603", "uciokay", " readyok?", "")
			if cmd == "quit" {
				return 0
			}
		case mode == "stubborn" && cmd == "quit":
		case cmd == "quit":
			return 0
		case cmd == "uci" && mode == "longline":
			say(strings.Repeat("x", 2<<20))
		case cmd == "uci":
			say("id name "+mode, "id author nobody", "uciok")
		case cmd == "isready":
			say("readyok")
		case strings.HasPrefix(cmd, "go perft"):
			switch mode {
			case "badsum":
				say("a: 1", "b: 2", "", "Nodes searched: 5")
			case "badtotal":
				say("a: 1", "", "Nodes searched: lots")
			case "dupmove":
				say("a: 1", "a: 1", "", "Nodes searched: 2")
			case "crash":
				say("a: 1")
				return 2
			}
		}
	}
	if mode == "hang" || mode == "stubborn" {
		time.Sleep(time.Hour)
	}
	return 0
}

// startFake starts the test binary as the fake engine of the given mode.
func startFake(t *testing.T, ctx context.Context, mode string, replyTimeout time.Duration) *Client {
	t.Helper()
	t.Setenv(fakeEngineEnv, mode)
	c, err := Start(ctx, os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	c.ReplyTimeout = replyTimeout
	t.Cleanup(func() { c.Close() })
	return c
}

// wantErr fails unless err's message contains every part.
func wantErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want one containing %q", what, parts)
	}
	if !strings.HasPrefix(err.Error(), "uci: ") {
		t.Errorf("%s: error %q does not start with \"uci: \"", what, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not contain %q", what, err, p)
		}
	}
}

func TestClientAgainstOwnEngine(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := startFake(t, ctx, "tabula", 10*time.Second)
	if err := c.Handshake(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Name() != "tabula" {
		t.Errorf("Name() = %q", c.Name())
	}
	for d := 1; d <= 8; d++ {
		divide, total, err := c.Perft(ctx, "position startpos", d)
		if err != nil {
			t.Fatal(err)
		}
		if want := brute(0, 10, 2, d); total != want {
			t.Errorf("perft %d = %d, want %d", d, total, want)
		}
		if want := map[string]uint64{"1": brute(1, 10, 2, d-1), "2": brute(2, 10, 2, d-1)}; fmt.Sprint(divide) != fmt.Sprint(want) {
			t.Errorf("divide %d = %v, want %v", d, divide, want)
		}
	}
	if err := c.SetOption(ctx, "Steps", "long"); err != nil {
		t.Fatal(err)
	}
	if _, total, err := c.Perft(ctx, "position fen 4 b moves 3", 6); err != nil || total != brute(7, 10, 3, 6) {
		t.Errorf("perft 6 from 7 with long steps = %d, %v; want %d", total, err, brute(7, 10, 3, 6))
	}
	wantErr(t, "bad option", c.SetOption(ctx, "Steps", "medium"), `setoption Steps: the engine replied "info string error: setoption: count: option Steps`)
	_, _, err := c.Perft(ctx, "position startpos moves 9", 2)
	wantErr(t, "bad position", err, `perft 2 after "position startpos moves 9": the engine replied "info string error: position: move 1`)
	_, _, err = c.Perft(ctx, "position startpos", 0)
	wantErr(t, "depth 0", err, "perft depth 0: must be at least 1")
	_, _, err = c.Perft(ctx, "go depth 3", 1)
	wantErr(t, "not a position command", err, `perft: "go depth 3" is not a position command`)
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	wantErr(t, "send after close", c.Send("isready"), `send "isready": the client is closed`)
}

func TestClientFairyStockfish(t *testing.T) {
	const path = "/usr/games/fairy-stockfish"
	if _, err := os.Stat(path); err != nil {
		t.Skip("fairy-stockfish not installed: ", err, " (apt-get install fairy-stockfish)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := Start(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Handshake(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Name(), "Fairy-Stockfish") {
		t.Errorf("Name() = %q", c.Name())
	}
	if err := c.SetOption(ctx, "UCI_Variant", "xiangqi"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "unknown option", c.SetOption(ctx, "NoSuchOption", "1"), `the engine replied "No such option: NoSuchOption"`)
	// Xiangqi perft from the start (published counts).
	for i, want := range []uint64{44, 1920, 79666} {
		d := i + 1
		divide, total, err := c.Perft(ctx, "position startpos", d)
		if err != nil {
			t.Fatal(err)
		}
		if total != want {
			t.Errorf("perft %d = %d, want %d", d, total, want)
		}
		var sum uint64
		for _, n := range divide {
			sum += n
		}
		if len(divide) != 44 || sum != total {
			t.Errorf("perft %d: %d divide lines summing to %d, want 44 lines summing to %d", d, len(divide), sum, total)
		}
		// Two entries checked by hand against Fairy-Stockfish's own output.
		if d == 2 && (divide["h3e3"] != 45 || divide["b3b10"] != 41) {
			t.Errorf("perft 2: h3e3 %d, b3b10 %d; want 45 and 41", divide["h3e3"], divide["b3b10"])
		}
	}
	_, total, err := c.Perft(ctx, "position startpos moves h3e3 h8e8", 1)
	if err != nil || total != 35 {
		t.Errorf("perft 1 after h3e3 h8e8 = %d, %v; want 35", total, err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

func TestClientGarbage(t *testing.T) {
	ctx := context.Background()
	c := startFake(t, ctx, "garbage", 300*time.Millisecond)
	err := c.Handshake(ctx)
	wantErr(t, "handshake", err, `no reply to "uci" within 300ms`, "lines read, the last")
	c.ReplyTimeout = 10 * time.Second // the engine does quit, if slowly under -race
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

func TestClientEarlyExit(t *testing.T) {
	ctx := context.Background()
	c := startFake(t, ctx, "exit", 5*time.Second)
	err := c.Handshake(ctx)
	wantErr(t, "handshake", err, `reply to "uci": the engine's output ended: the engine exited: exit status 3; stderr: fatal: out of cheese`)
	wantErr(t, "send", c.Send("isready"), `send "isready": the engine exited: exit status 3`)
	wantErr(t, "close", c.Close(), "exit status 3", "out of cheese")
}

func TestClientHang(t *testing.T) {
	ctx := context.Background()
	c := startFake(t, ctx, "hang", 200*time.Millisecond)
	wantErr(t, "handshake", c.Handshake(ctx), `no reply to "uci" within 200ms (no output)`)
	wantErr(t, "close", c.Close(), "did not exit within 200ms after quit; killed it")
	// A context ends a wait too, and says so.
	c = startFake(t, ctx, "hang", time.Second)
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	err := c.Handshake(cctx)
	wantErr(t, "handshake", err, `waiting for the reply to "uci"`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v is not context.DeadlineExceeded", err)
	}
	// Cancelling the context of Start kills the engine.
	sctx, scancel := context.WithCancel(ctx)
	c = startFake(t, sctx, "hang", 5*time.Second)
	scancel()
	_, err = c.ReadUntil(ctx, isLine("never"), 5*time.Second)
	wantErr(t, "read after kill", err, "the engine's output ended", "killed")
}

func TestClientStubborn(t *testing.T) {
	ctx := context.Background()
	c := startFake(t, ctx, "stubborn", 300*time.Millisecond)
	if err := c.Handshake(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Name() != "stubborn" {
		t.Errorf("Name() = %q", c.Name())
	}
	wantErr(t, "close", c.Close(), "did not exit within 300ms after quit; killed it")
}

func TestClientLongLine(t *testing.T) {
	ctx := context.Background()
	c := startFake(t, ctx, "longline", 5*time.Second)
	wantErr(t, "handshake", c.Handshake(ctx), "engine wrote a line longer than 1048576 bytes")
	// The engine's blocked write fails once the client stops reading, so
	// it exits on quit: Close need not wait for the timeout and kill it.
	if err := c.Close(); err != nil && strings.Contains(err.Error(), "killed") {
		t.Errorf("Close = %v", err)
	}
}

func TestClientBadPerft(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct{ mode, msg string }{
		{"badsum", "perft 1: 2 divide lines sum to 3, but the engine reported 5 nodes"},
		{"badtotal", `perft 1: bad total line "Nodes searched: lots"`},
		{"dupmove", `perft 1: move "a" listed twice`},
		{"crash", `reply to "go perft 1": the engine's output ended: the engine exited: exit status 2`},
	} {
		cl := startFake(t, ctx, c.mode, 5*time.Second)
		if err := cl.Handshake(ctx); err != nil {
			t.Fatal(err)
		}
		_, _, err := cl.Perft(ctx, "position startpos", 1)
		wantErr(t, c.mode, err, c.msg)
	}
}

func TestClientMisuse(t *testing.T) {
	ctx := context.Background()
	c := startFake(t, ctx, "tabula", 5*time.Second)
	wantErr(t, "line break", c.Send("isready\nquit"), "the command contains a line break")
	_, err := c.ReadUntil(ctx, nil, time.Second)
	wantErr(t, "nil predicate", err, "ReadUntil needs a predicate")
	wantErr(t, "empty option", c.SetOption(ctx, " ", "1"), "setoption: empty option name")

	_, err = Start(ctx, "/nonexistent/engine")
	wantErr(t, "missing binary", err, "start /nonexistent/engine")
	if _, err := exec.LookPath("true"); err == nil {
		// An engine that exits at once with success: Close reports nothing.
		c, err := Start(ctx, "true")
		if err != nil {
			t.Fatal(err)
		}
		wantErr(t, "handshake", c.Handshake(ctx))
		if err := c.Close(); err != nil {
			t.Errorf("Close = %v", err)
		}
	}
}

// Killing an engine that does not quit kills what it started too: the
// engine runs in a process group of its own.
func TestClientKillsEngineChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	ctx := context.Background()
	c := startFake(t, ctx, "parent", 200*time.Millisecond)
	ls, err := c.ReadUntil(ctx, func(l string) bool { return strings.HasPrefix(l, "child ") }, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimPrefix(ls[len(ls)-1], "child "))
	alive := func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		// A zombie waiting for a reaper is dead too.
		return err == nil && !strings.Contains(string(b), ") Z ")
	}
	if pid == 0 || !alive() {
		t.Fatalf("no running child (line %q)", ls[len(ls)-1])
	}
	wantErr(t, "close", c.Close(), "killed it")
	deadline := time.Now().Add(5 * time.Second)
	for alive() {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the engine's child outlived the engine")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
