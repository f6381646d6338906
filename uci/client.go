package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// DefaultReplyTimeout is a new Client's ReplyTimeout.
	DefaultReplyTimeout = 10 * time.Second
	// maxClientLine bounds one line of engine output; a longer line ends
	// the output with an error.
	maxClientLine = 1 << 20
	// stderrTail is how much of the engine's standard error is kept for
	// error messages.
	stderrTail = 2048
	// waitDelay bounds the wait for the engine's stderr to close after it
	// exits (a child process may hold it open).
	waitDelay = time.Second
)

// Client drives an external UCI engine running as a subprocess. One
// goroutine reads the engine's output line by line into a channel; every
// wait for a reply has a timeout or a context.
//
// Send may be called from any goroutine (for example `stop` while another
// goroutine waits in ReadUntil); the reading methods (ReadUntil, Handshake,
// IsReady, SetOption, Perft) must be called from one goroutine at a time.
type Client struct {
	// ReplyTimeout bounds the wait for the replies to uci, isready and
	// setoption, each Send, and the wait for the engine to exit in Close.
	// Start sets it to DefaultReplyTimeout; change it before use. Zero or
	// less means no limit but the context (Close then waits
	// DefaultReplyTimeout).
	ReplyTimeout time.Duration

	path   string
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *tailBuffer

	lines      chan string   // engine output, closed at its end
	readErr    error         // why the output ended; set before lines closes
	readerDone chan struct{} // closed when the reader goroutine has ended
	discard    chan struct{} // closed by Close: the reader drops lines
	exited     chan struct{} // closed when the process has been waited for
	waitErr    error         // the process's exit error; set before exited closes

	mu     sync.Mutex // guards stdin, last and closed
	last   string     // the last command sent, for error messages
	closed bool
	name   string // from "id name", after Handshake

	closeOnce sync.Once
	closeErr  error
}

// Start runs the engine at path with args. Cancelling ctx kills it. The
// caller must Close the client.
func Start(ctx context.Context, path string, args ...string) (*Client, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.WaitDelay = waitDelay
	ownProcessGroup(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("uci: start %s: %w", path, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("uci: start %s: %w", path, err)
	}
	stderr := &tailBuffer{max: stderrTail}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, stderr
	err = cmd.Start()
	// The child has its own copies of these ends now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("uci: start %s: %w", path, err)
	}
	c := &Client{
		ReplyTimeout: DefaultReplyTimeout,
		path:         path,
		cmd:          cmd,
		stdin:        inW,
		stdout:       outR,
		stderr:       stderr,
		lines:        make(chan string, 256),
		readerDone:   make(chan struct{}),
		discard:      make(chan struct{}),
		exited:       make(chan struct{}),
	}
	go c.read()
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// read is the one reader of the engine's output.
func (c *Client) read() {
	defer close(c.readerDone)
	sc := bufio.NewScanner(c.stdout)
	sc.Buffer(make([]byte, 0, 64<<10), maxClientLine)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		select {
		case c.lines <- line:
		case <-c.discard:
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("engine wrote a line longer than %d bytes", maxClientLine)
		}
		c.readErr = err
		// Nobody reads the rest: let the engine's writes fail instead of
		// block.
		c.stdout.Close()
	}
	close(c.lines)
}

// Name returns the engine's name from its `id name` line, once Handshake
// has succeeded.
func (c *Client) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// Send writes one command line to the engine.
func (c *Client) Send(cmd string) error {
	if strings.ContainsAny(cmd, "\r\n") {
		return fmt.Errorf("uci: send %q: the command contains a line break", cmd)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return fmt.Errorf("uci: send %q: the client is closed", cmd)
	}
	select {
	case <-c.exited:
		return fmt.Errorf("uci: send %q: %s", cmd, c.exitReason())
	default:
	}
	c.last = cmd
	if t := c.ReplyTimeout; t > 0 {
		c.stdin.SetWriteDeadline(time.Now().Add(t))
	}
	if _, err := io.WriteString(c.stdin, cmd+"\n"); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("uci: send %q: the engine did not read its input within %v", cmd, c.ReplyTimeout)
		}
		return fmt.Errorf("uci: send %q: %w", cmd, err)
	}
	return nil
}

// lastCommand returns the last command sent.
func (c *Client) lastCommand() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// ReadUntil reads engine output until a line satisfies pred and returns the
// lines read, that one included. It fails when timeout passes first (a
// timeout of zero or less waits as long as ctx allows), when ctx is done,
// or when the output ends; the lines read so far come with the error.
func (c *Client) ReadUntil(ctx context.Context, pred func(line string) bool, timeout time.Duration) ([]string, error) {
	if pred == nil {
		return nil, errors.New("uci: ReadUntil needs a predicate")
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	var got []string
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				return got, fmt.Errorf("uci: reply to %q: the engine's output ended: %s", c.lastCommand(), c.endReason())
			}
			got = append(got, line)
			if pred(line) {
				return got, nil
			}
		case <-expired:
			return got, fmt.Errorf("uci: no reply to %q within %v%s", c.lastCommand(), timeout, lastLine(got))
		case <-ctx.Done():
			return got, fmt.Errorf("uci: waiting for the reply to %q: %w%s", c.lastCommand(), ctx.Err(), lastLine(got))
		}
	}
}

// lastLine describes the output read before a timeout, for the error.
func lastLine(got []string) string {
	if len(got) == 0 {
		return " (no output)"
	}
	return fmt.Sprintf(" (%d lines read, the last %s)", len(got), clip(got[len(got)-1]))
}

// endReason explains why the output ended: a read error, or the process's
// exit status and the end of its stderr.
func (c *Client) endReason() string {
	<-c.readerDone
	if c.readErr != nil {
		return c.readErr.Error()
	}
	select {
	case <-c.exited:
		return c.exitReason()
	case <-time.After(time.Second):
		return "the engine closed its output"
	}
}

// exitReason describes how the process ended; exited must be closed.
func (c *Client) exitReason() string {
	s := "the engine exited"
	if c.waitErr != nil {
		s += ": " + c.waitErr.Error()
	}
	if tail := strings.TrimSpace(c.stderr.String()); tail != "" {
		s += "; stderr: " + oneLine(tail)
	}
	return s
}

// Handshake sends uci and waits for uciok, then isready and readyok.
func (c *Client) Handshake(ctx context.Context) error {
	if err := c.Send("uci"); err != nil {
		return err
	}
	lines, err := c.ReadUntil(ctx, isLine("uciok"), c.ReplyTimeout)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if name, ok := strings.CutPrefix(l, "id name "); ok {
			c.mu.Lock()
			c.name = strings.TrimSpace(name)
			c.mu.Unlock()
		}
	}
	return c.IsReady(ctx)
}

// IsReady sends isready and waits for readyok.
func (c *Client) IsReady(ctx context.Context) error {
	_, err := c.sync(ctx)
	return err
}

// sync sends isready and returns the lines read up to readyok.
func (c *Client) sync(ctx context.Context) ([]string, error) {
	if err := c.Send("isready"); err != nil {
		return nil, err
	}
	return c.ReadUntil(ctx, isLine("readyok"), c.ReplyTimeout)
}

// isLine matches a line equal to s up to surrounding spaces.
func isLine(s string) func(string) bool {
	return func(l string) bool { return strings.TrimSpace(l) == s }
}

// SetOption sets an engine option and waits until the engine is ready. A
// complaint before readyok (Fairy-Stockfish's "No such option", tabula's
// "info string error") makes it fail. An empty value sends a button press.
func (c *Client) SetOption(ctx context.Context, name, value string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("uci: setoption: empty option name")
	}
	cmd := "setoption name " + name
	if value != "" {
		cmd += " value " + value
	}
	if err := c.Send(cmd); err != nil {
		return err
	}
	lines, err := c.sync(ctx)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "No such option") || strings.HasPrefix(l, "info string error") {
			return fmt.Errorf("uci: setoption %s: the engine replied %s", name, clipN(l, 200))
		}
	}
	return nil
}

// Perft sends positionCmd (a full `position ...` command) and `go perft
// depth`, and returns the count below each root move and the total, as
// Fairy-Stockfish prints them (`move: count` lines, then `Nodes searched:
// total`). It checks that the counts sum to the total. It waits as long as
// ctx allows, since deep perfts take long: give ctx a deadline. After an
// error the engine may still be busy; close the client.
func (c *Client) Perft(ctx context.Context, positionCmd string, depth int) (map[string]uint64, uint64, error) {
	if depth < 1 {
		// Fairy-Stockfish starts a normal search on "go perft 0".
		return nil, 0, fmt.Errorf("uci: perft depth %d: must be at least 1", depth)
	}
	if f := strings.Fields(positionCmd); len(f) == 0 || f[0] != "position" {
		return nil, 0, fmt.Errorf("uci: perft: %q is not a position command", positionCmd)
	}
	// Drain anything left over from earlier commands.
	if _, err := c.sync(ctx); err != nil {
		return nil, 0, err
	}
	if err := c.Send(positionCmd); err != nil {
		return nil, 0, err
	}
	if err := c.Send(fmt.Sprintf("go perft %d", depth)); err != nil {
		return nil, 0, err
	}
	lines, err := c.ReadUntil(ctx, func(l string) bool {
		return strings.HasPrefix(l, "Nodes searched") || strings.HasPrefix(l, "info string error")
	}, 0)
	if err != nil {
		return nil, 0, err
	}
	last := lines[len(lines)-1]
	if strings.HasPrefix(last, "info string error") {
		return nil, 0, fmt.Errorf("uci: perft %d after %q: the engine replied %s", depth, positionCmd, clipN(last, 200))
	}
	v := strings.TrimSpace(strings.TrimLeft(strings.TrimPrefix(last, "Nodes searched"), " :"))
	total, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("uci: perft %d: bad total line %s", depth, clip(last))
	}
	divide := map[string]uint64{}
	var sum uint64
	for _, l := range lines[:len(lines)-1] {
		mv, n, ok := parseDivide(l)
		if !ok {
			continue
		}
		if _, dup := divide[mv]; dup {
			return nil, 0, fmt.Errorf("uci: perft %d: move %s listed twice", depth, clip(mv))
		}
		divide[mv] = n
		sum += n
	}
	if sum != total {
		return nil, 0, fmt.Errorf("uci: perft %d: %d divide lines sum to %d, but the engine reported %d nodes", depth, len(divide), sum, total)
	}
	return divide, total, nil
}

// parseDivide reads a `move: count` line.
func parseDivide(l string) (string, uint64, bool) {
	mv, count, ok := strings.Cut(l, ": ")
	if !ok || mv == "" || strings.ContainsAny(mv, " \t") {
		return "", 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(count), 10, 64)
	if err != nil {
		return "", 0, false
	}
	return mv, n, true
}

// Close sends quit and waits up to ReplyTimeout for the engine to exit,
// killing it after that. It returns an error when the engine had to be
// killed or exited with an error. Further calls return the same result.
func (c *Client) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.close() })
	return c.closeErr
}

func (c *Client) close() error {
	timeout := c.ReplyTimeout
	if timeout <= 0 {
		timeout = DefaultReplyTimeout
	}
	c.mu.Lock()
	c.closed = true
	c.stdin.SetWriteDeadline(time.Now().Add(timeout))
	io.WriteString(c.stdin, "quit\n") // the engine may be gone already
	c.stdin.Close()
	c.mu.Unlock()
	close(c.discard)

	var err error
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-c.exited:
		if c.waitErr != nil {
			err = fmt.Errorf("uci: engine %s: %s", c.path, c.exitReason())
		}
	case <-t.C:
		killGroup(c.cmd)
		<-c.exited
		err = fmt.Errorf("uci: engine %s did not exit within %v after quit; killed it", c.path, timeout)
	}
	// What the engine started and left behind goes with it.
	killGroup(c.cmd)
	// A child of the engine may still hold the output open.
	select {
	case <-c.readerDone:
	case <-time.After(100 * time.Millisecond):
		c.stdout.Close()
		<-c.readerDone
	}
	c.stdout.Close()
	return err
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
