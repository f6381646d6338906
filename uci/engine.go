package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/tabula-zero/tabula/game"
)

const (
	engineName   = "tabula"
	engineAuthor = "tabula developers"

	// DefaultMaxLineBytes is the default limit on the length of an input
	// line; a longer line is answered with an error and skipped.
	DefaultMaxLineBytes = 1 << 20

	// maxQueuedBytes bounds the commands waiting for a running job; more
	// are answered with an error and dropped.
	maxQueuedBytes = 16 << 20
)

// Engine is the engine side of the protocol: a UCI command loop over the
// registered games. Create it with NewEngine and start it with Run.
//
// Commands run in the order they arrive. While a job (`go perft`, a search)
// runs in the background, `isready` is answered at once (unless commands
// other than go, position and stop are queued: then it queues behind
// them) and `stop` ends the job (or, once the job has been stopped or has
// answered, the go queued behind it); every other command waits in a
// queue until the job is over, so replies never come out of order. `quit`
// and the end of the input also stop a running search at once, but let a
// perft finish, as Fairy-Stockfish does: send `stop` to end a perft
// early. A search that has not returned within quitGrace of quit, the
// end of the input or the end of Run is abandoned, so that no searcher
// can keep the engine from ending.
type Engine struct {
	in             io.Reader
	out            *output
	searcher       Searcher
	maxLine        int
	defaultVariant string
	running        atomic.Bool

	// The state below belongs to the goroutine running Run.
	game  game.Game
	rules map[string]game.Options // rule options set by the user, per game name
	opts  game.Options            // the resolved options of the current game
	// pos is nil after a rejected position command (cmdPosition), which
	// posErr holds.
	pos      game.Position
	posErr   error
	job      *job
	proto    protocol      // UCI until a ucci command switches to UCCI
	overhead time.Duration // MoveOverheadOption
	// UCCI only: the time unit of go is milliseconds (usemillisec, on by
	// default) or seconds; banned are the moves banmoves forbids in pos.
	millis bool
	banned []game.Move
}

// EngineOption configures NewEngine.
type EngineOption func(*engineConfig)

type engineConfig struct {
	variant  string
	rules    game.Options
	searcher Searcher
	maxLine  int
}

// WithVariant selects the game the engine starts with (the default of the
// UCI_Variant option). Without it the engine starts with game.EngineDefault:
// the first registered game GUIs know by a UCI variant name (xiangqi),
// otherwise the first registered game by name.
func WithVariant(name string) EngineOption {
	return func(c *engineConfig) { c.variant = name }
}

// WithRuleOptions sets rule options of the initial game, as if sent with
// setoption; they are checked against the game's declared options.
func WithRuleOptions(opts game.Options) EngineOption {
	return func(c *engineConfig) { c.rules = opts }
}

// WithSearcher sets the search behind `go`. Without one, `go` answers that
// search is not available (`go perft` works regardless).
func WithSearcher(s Searcher) EngineOption {
	return func(c *engineConfig) { c.searcher = s }
}

// WithMaxLineBytes sets the longest accepted input line in bytes, without
// the line break (default DefaultMaxLineBytes).
func WithMaxLineBytes(n int) EngineOption {
	return func(c *engineConfig) { c.maxLine = n }
}

// NewEngine returns an engine that reads commands from in and writes
// replies to out. It fails on an unknown variant or invalid rule options.
func NewEngine(in io.Reader, out io.Writer, opts ...EngineOption) (*Engine, error) {
	if in == nil || out == nil {
		return nil, errors.New("uci: NewEngine needs an input and an output")
	}
	cfg := engineConfig{maxLine: DefaultMaxLineBytes}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.maxLine < 1 {
		return nil, fmt.Errorf("uci: line limit %d must be at least 1 byte", cfg.maxLine)
	}
	names := game.Names()
	variant := cfg.variant
	if variant == "" {
		if len(names) == 0 {
			return nil, errors.New("uci: no games are registered")
		}
		variant = game.EngineDefault()
	}
	g, err := game.Lookup(variant)
	if err != nil {
		return nil, fmt.Errorf("uci: unknown variant %q (known: %s)", variant, strings.Join(names, ", "))
	}
	user := game.Options{}
	for name, v := range cfg.rules {
		o, ok := g.Option(name)
		if !ok {
			return nil, fmt.Errorf("uci: %s has no option %q", g.Name, name)
		}
		user[o.Name] = v
	}
	resolved, pos, err := startPosition(g, user)
	if err != nil {
		return nil, fmt.Errorf("uci: %w", err)
	}
	if gs, ok := cfg.searcher.(GameSetter); ok {
		if err := gs.SetGame(g.Name); err != nil {
			return nil, fmt.Errorf("uci: %w", err)
		}
	}
	return &Engine{
		in:             in,
		out:            &output{w: bufio.NewWriter(out)},
		searcher:       cfg.searcher,
		maxLine:        cfg.maxLine,
		defaultVariant: g.Name,
		game:           g,
		rules:          map[string]game.Options{g.Name: user},
		opts:           resolved,
		pos:            pos,
		overhead:       DefaultMoveOverhead,
	}, nil
}

// startPosition resolves user options for g and returns them with g's start
// position under them.
func startPosition(g game.Game, user game.Options) (game.Options, game.Position, error) {
	resolved, err := g.Resolve(user)
	if err != nil {
		return nil, nil, err
	}
	pos, err := g.New(resolved)
	if err != nil {
		return nil, nil, err
	}
	return resolved, pos, nil
}

// Run reads and answers commands until `quit` or the end of the input, and
// then returns nil. Before that, a running search is stopped and a running
// perft finishes, and the commands queued behind them run. When ctx is
// cancelled, Run stops any job at once and returns ctx.Err(). It returns an
// error when reading the input or writing the output fails. Run must not be
// called again while it runs.
//
// The goroutine reading the input ends when a pending Read returns; Run
// does not wait for it, since a Read on a terminal or pipe cannot be
// interrupted.
func (e *Engine) Run(ctx context.Context) error {
	if !e.running.CompareAndSwap(false, true) {
		return errors.New("uci: Run is already running")
	}
	defer e.running.Store(false)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines := make(chan Line)
	go ReadLines(ctx, e.in, e.maxLine, lines)
	defer e.stopJob()

	// queue holds the commands waiting for the running job, at most
	// maxQueuedBytes of them.
	var queue []Line
	queued := 0
	push := func(l Line) {
		if queued+queueCost(l) > maxQueuedBytes {
			e.out.errorf("too much input while a job runs: %s dropped", clip(l.command()))
			return
		}
		queue = append(queue, l)
		queued += queueCost(l)
	}
	eof := false
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
	drain:
		for len(queue) > 0 {
			l := queue[0]
			if e.job != nil {
				// A queued command started a job: the stop and isready
				// queued right behind it act now, as if they arrived
				// while it ran; a queued quit stops a search.
				switch cmd := l.command(); {
				case cmd == "stop":
					e.job.stop()
				case cmd == "isready":
					e.out.lines("readyok")
				case e.isQuit(cmd) && e.job.search:
					e.job.stop()
					fallthrough
				default:
					break drain
				}
				queue, queued = queue[1:], queued-queueCost(l)
				continue
			}
			queue, queued = queue[1:], queued-queueCost(l)
			if quit := e.execute(ctx, l); quit {
				return e.out.Err()
			}
			if eof && e.job != nil && e.job.search {
				// No stop can come any more: a search queued behind the
				// end of the input ends at once, like one running then.
				e.job.stop()
			}
		}
		if err := e.out.Err(); err != nil {
			return err
		}
		if eof && e.job == nil {
			return nil
		}
		var jobDone <-chan struct{}
		if e.job != nil {
			jobDone = e.job.done
		}
		var input <-chan Line
		if !eof {
			input = lines
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-jobDone:
			e.job = nil
		case <-e.giveUp(eof, queue):
			// A searcher that ignores its context must not keep the
			// engine from quitting: its move is abandoned.
			e.out.errorf("the search did not stop within %v of quit: quitting without its move", quitGrace)
			return e.out.Err()
		case l, ok := <-input:
			switch {
			case !ok:
				eof = true
				if e.job != nil && e.job.search {
					e.job.stop()
				}
			case l.Err != nil:
				return fmt.Errorf("uci: read input: %w", l.Err)
			case e.job == nil:
				push(l)
			default:
				// A job runs: isready and stop act now, quit (bye in
				// UCCI) stops a search, everything else waits.
				switch l.command() {
				case "isready":
					// A queued go (or position, or stop) is no work
					// readyok must wait for: it may wait for a stop
					// that comes after this isready.
					if !slices.ContainsFunc(queue, func(q Line) bool { return !readyWaitsNot[q.command()] }) {
						e.out.lines("readyok")
					} else {
						push(l)
					}
				case "stop":
					// stop ends the latest go. That is the running job
					// unless it has been stopped or has answered already:
					// then it is a go still in the queue (the job ended
					// and its stop came before), or none.
					switch {
					case !e.job.stopped && !e.job.answered.Load():
						e.job.stop()
					case slices.ContainsFunc(queue, func(q Line) bool { return q.command() == "go" }):
						push(l)
					}
				default:
					if e.isQuit(l.command()) && e.job.search {
						e.job.stop()
					}
					push(l)
				}
			}
		}
	}
}

// readyWaitsNot are the queued commands that isready does not wait for
// while a job runs: they hold no work to finish (a go's search is
// started, not finished, by the time a queued isready would run).
var readyWaitsNot = map[string]bool{"go": true, "stop": true, "position": true, "isready": true}

// quitGrace is how long quit, the end of the input or the end of Run
// waits for a stopped search to return before the engine goes on
// without it. A search returns within milliseconds of its stop; this
// only bounds a searcher that ignores its context.
var quitGrace = 2 * time.Second

// giveUp returns a channel that fires when the running search, stopped by
// quit or the end of the input (eof), has had quitGrace to return, or nil
// when nothing waits to quit.
func (e *Engine) giveUp(eof bool, queue []Line) <-chan time.Time {
	j := e.job
	if j == nil || !j.search || !j.stopped ||
		!eof && !slices.ContainsFunc(queue, func(q Line) bool { return e.isQuit(q.command()) }) {
		return nil
	}
	if j.stoppedAt.IsZero() {
		j.stoppedAt = time.Now()
	}
	return time.After(time.Until(j.stoppedAt.Add(quitGrace)))
}

// execute runs one command line and reports whether it was `quit`. Every
// problem is answered on the output.
func (e *Engine) execute(ctx context.Context, l Line) (quit bool) {
	if l.TooLong {
		e.out.errorf("line longer than %d bytes ignored", e.maxLine)
		return false
	}
	f := strings.Fields(l.Text)
	if len(f) == 0 {
		return false
	}
	if e.proto == protoUCCI {
		return e.executeUCCI(ctx, f)
	}
	var err error
	switch f[0] {
	case "ucci":
		err = e.cmdUCCI()
	case "uci":
		e.cmdUCI()
	case "isready":
		e.out.lines("readyok")
	case "debug", "ponderhit", "stop":
		// Accepted without effect: there is no debug output, no pondering,
		// and no job runs here (stop during a job is handled by Run).
	case "setoption":
		err = e.cmdSetOption(f[1:])
	case "ucinewgame":
		err = e.cmdNewGame()
	case "position":
		err = e.cmdPosition(f[1:])
	case "go":
		err = e.cmdGo(ctx, f[1:])
	case "d":
		err = e.cmdDisplay()
	case "quit":
		return true
	default:
		err = fmt.Errorf("unknown command %s", clip(f[0]))
	}
	if err != nil {
		e.out.errorf("%v", err)
	}
	return false
}

// job is a command running in the background: a perft or a search.
type job struct {
	cancel context.CancelFunc
	done   chan struct{}
	search bool // quit and the end of input stop a search, not a perft
	// answered is set by the job before it writes its last reply
	// (bestmove, the perft's total): a stop that comes after is not for it.
	answered atomic.Bool
	// stopped: a stop, quit or the end of the input has cancelled it, at
	// stoppedAt (set when something waits for it to end). The command
	// loop alone reads and writes them.
	stopped   bool
	stoppedAt time.Time
}

// stop cancels the job.
func (j *job) stop() {
	j.cancel()
	j.stopped = true
}

// startJob runs fn in a goroutine under a context that stop and the end of
// Run cancel, and quit too for a search.
func (e *Engine) startJob(ctx context.Context, search bool, fn func(ctx context.Context, j *job)) {
	ctx, cancel := context.WithCancel(ctx)
	j := &job{cancel: cancel, done: make(chan struct{}), search: search}
	go func() {
		defer close(j.done)
		defer cancel()
		fn(ctx, j)
	}()
	e.job = j
}

// stopJob cancels the running job, if any, and waits for it, at most
// quitGrace: Run returns even if a searcher ignores its context.
func (e *Engine) stopJob() {
	if e.job != nil {
		e.job.stop()
		select {
		case <-e.job.done:
		case <-time.After(quitGrace):
		}
		e.job = nil
	}
}

// Line is one line of input read by ReadLines, or the read error that
// ended the input.
type Line struct {
	Text    string // without the line break
	TooLong bool   // longer than the limit: Text is empty
	Err     error
}

// queueCost is what l counts against maxQueuedBytes: its text plus the
// queue entry.
func queueCost(l Line) int { return len(l.Text) + 64 }

// command returns the first word of the line.
func (l Line) command() string {
	if l.TooLong {
		return ""
	}
	f := strings.Fields(l.Text)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// ReadLines sends the lines of r to out until the end of the input or ctx
// is done, then closes out. A read error other than io.EOF is sent as the
// last item. A line longer than max bytes is skipped up to its end and
// reported as TooLong, so memory stays bounded by max whatever the input.
func ReadLines(ctx context.Context, r io.Reader, max int, out chan<- Line) {
	defer close(out)
	send := func(l Line) bool {
		select {
		case out <- l:
			return true
		case <-ctx.Done():
			return false
		}
	}
	// emit sends the collected line and resets the collection.
	var line []byte
	tooLong := false
	emit := func() bool {
		s := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
		l := Line{Text: s, TooLong: tooLong || len(s) > max}
		if l.TooLong {
			l.Text = ""
		}
		line, tooLong = line[:0], false
		return send(l)
	}
	br := bufio.NewReaderSize(r, min(max+2, 64<<10))
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			// max plus room for "\r\n": longer can only be too long.
			if len(line)+len(chunk) > max+2 {
				tooLong, line = true, line[:0]
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			if !emit() {
				return
			}
		case errors.Is(err, bufio.ErrBufferFull):
			// The line goes on.
		case errors.Is(err, io.EOF):
			if len(line) > 0 || tooLong {
				emit()
			}
			return
		default:
			if (len(line) > 0 || tooLong) && !emit() {
				return
			}
			send(Line{Err: err})
			return
		}
	}
}

// output writes whole lines and flushes after each call; it is shared by
// the command loop and the running job. The first write error sticks.
type output struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
	// ucci: messages go out as `info message` (UCCI has no `info string`).
	ucci bool
}

// setUCCI switches error lines to UCCI's `info message`.
func (o *output) setUCCI() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ucci = true
}

// lines writes each line with a line break and flushes.
func (o *output) lines(ls ...string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return
	}
	for _, l := range ls {
		o.w.WriteString(l)
		o.w.WriteByte('\n')
	}
	if err := o.w.Flush(); err != nil {
		o.err = fmt.Errorf("uci: write output: %w", err)
	}
}

// printf writes one formatted line.
func (o *output) printf(format string, args ...any) {
	o.lines(fmt.Sprintf(format, args...))
}

// errorf reports an error to the GUI as `info string error: ...` (`info
// message error: ...` in UCCI), on one line whatever the message holds.
func (o *output) errorf(format string, args ...any) {
	o.message("error: " + fmt.Sprintf(format, args...))
}

// message writes text for the user: `info string ...`, or `info message
// ...` in UCCI, on one line.
func (o *output) message(text string) {
	o.mu.Lock()
	kind := "string"
	if o.ucci {
		kind = "message"
	}
	o.mu.Unlock()
	o.lines("info " + kind + " " + oneLine(text))
}

// Err returns the first write error.
func (o *output) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// maxMessage bounds the length of a message written to the output, since
// messages may quote input of up to a megabyte.
const maxMessage = 1000

// oneLine makes s safe to print as one line: control characters become
// spaces, invalid UTF-8 becomes '?', and text longer than maxMessage bytes
// is cut at a character boundary and ends in "...", maxMessage bytes in
// all. oneLine(oneLine(s)) == oneLine(s).
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u0085' || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	if len(s) > maxMessage {
		cut := maxMessage - len("...")
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// clip quotes a token from the input for an error message, shortened to a
// readable length.
func clip(s string) string { return clipN(s, 40) }

// clipN quotes s, shortened to n bytes.
func clipN(s string, n int) string {
	if len(s) > n {
		return fmt.Sprintf("%q...", s[:n])
	}
	return fmt.Sprintf("%q", s)
}
