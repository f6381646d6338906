package uci

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/kvlist"
)

// ErrEngineFailed marks a Player error caused by the engine: it crashed,
// hung, or played an illegal or no move. The arena scores it as a loss
// (arena/uciplayer wraps it as arena.ErrForfeit).
var ErrEngineFailed = errors.New("uci: engine failed")

// Player defaults.
const (
	// DefaultMoveTimeout bounds a `go depth N` or `go nodes N` search.
	DefaultMoveTimeout = 60 * time.Second
	// DefaultMoveMargin is added to movetime before the engine is
	// considered hung.
	DefaultMoveMargin = time.Second
	// stopGrace is how long a player waits for bestmove after `stop`.
	stopGrace = 500 * time.Millisecond
)

// SetOptionArg is one `setoption` a Player sends after the handshake.
type SetOptionArg struct{ Name, Value string }

// PlayerConfig describes an external engine playing one side of games.
// Exactly one of Depth, MoveTime and Nodes is normally set.
type PlayerConfig struct {
	Name    string   // the player's name in results
	Path    string   // the engine executable
	Args    []string // its arguments
	Variant string   // UCI_Variant to set; "" sets none
	Options []SetOptionArg

	Depth    int
	MoveTime time.Duration
	Nodes    uint64
	// TC is a clock (tc=; Base 0: none), the search's only limit: the
	// arena keeps both sides' clocks and calls MoveClock; Move alone
	// sends a full clock.
	TC TimeControl

	// ReplyTimeout bounds the handshake, setoption and isready replies
	// (0: DefaultReplyTimeout).
	ReplyTimeout time.Duration
	// MoveTimeout bounds a depth or nodes search (0: DefaultMoveTimeout).
	MoveTimeout time.Duration
	// Margin is added to MoveTime, or to the clock's time left, for the
	// bestmove deadline (0: DefaultMoveMargin).
	Margin time.Duration
}

// ParsePlayerSpec reads the part of a player spec after "uci:":
//
//	COMMAND[,variant=V,depth=N|movetime=MS|nodes=N|tc=TC,timeout=MS,Option=Value...]
//
// COMMAND is the executable, optionally followed by space-separated
// arguments. Keys other than name, variant, depth, movetime, nodes and
// timeout are engine options, sent with their case kept (Hash=16 sends
// `setoption name Hash value 16`). variant defaults to the game's
// UCIVariant (xiangqi for Xiangqi, none for the others); variant=none
// sends none.
// tc is a clock in cutechess-cli's form (ParseTimeControl: 40/60+0.6,
// 60+0.6, 10+0.1), which no other limit joins.
// Without depth, movetime, nodes or tc the engine searches to depth 1.
func ParsePlayerSpec(args, gameName string) (PlayerConfig, error) {
	var c PlayerConfig
	command, rest, _ := strings.Cut(args, ",")
	cmd := strings.Fields(command)
	if len(cmd) == 0 {
		return c, errors.New("uci player: missing engine command (uci:COMMAND[,key=value...])")
	}
	c.Path, c.Args = cmd[0], cmd[1:]
	c.Name = "uci:" + strings.TrimSpace(args)
	if g, err := game.Lookup(gameName); err == nil {
		c.Variant = g.UCIVariant
	}
	if strings.Contains(args, ",") && strings.TrimSpace(rest) == "" {
		return c, fmt.Errorf("uci player: empty key=value list after %q", command)
	}
	pairs, err := kvlist.Pairs(rest)
	if err != nil {
		return c, fmt.Errorf("uci player: %w", err)
	}
	for _, p := range pairs {
		k, v, lk := p.Key, p.Value, strings.ToLower(p.Key)
		num := func() (int64, error) {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 {
				return 0, fmt.Errorf("uci player: %s=%q is not a positive integer", k, v)
			}
			return n, nil
		}
		switch lk {
		case "name":
			if v == "" {
				return c, errors.New("uci player: empty name")
			}
			c.Name = v
		case "variant":
			c.Variant = v
			if strings.EqualFold(v, "none") {
				c.Variant = ""
			}
		case "depth":
			n, err := num()
			if err != nil {
				return c, err
			}
			c.Depth = int(min(n, 1000))
		case "nodes":
			n, err := num()
			if err != nil {
				return c, err
			}
			c.Nodes = uint64(n)
		case "movetime":
			n, err := num()
			if err != nil {
				return c, err
			}
			c.MoveTime = time.Duration(min(n, 86_400_000)) * time.Millisecond
		case "tc":
			tc, err := ParseTimeControl(v)
			if err != nil {
				return c, fmt.Errorf("uci player: tc=: %w", err)
			}
			c.TC = tc
		case "timeout":
			n, err := num()
			if err != nil {
				return c, err
			}
			c.MoveTimeout = time.Duration(min(n, 86_400_000)) * time.Millisecond
		default:
			if strings.ContainsAny(k+v, "\r\n") || strings.Contains(" "+k+" ", " value ") {
				return c, fmt.Errorf("uci player: bad option %q", k+"="+v)
			}
			c.Options = append(c.Options, SetOptionArg{Name: k, Value: v})
		}
	}
	if c.TC.Base > 0 && (c.Depth > 0 || c.MoveTime > 0 || c.Nodes > 0) {
		return c, errors.New("uci player: tc= is a clock, the search's only limit: not with depth, movetime or nodes")
	}
	if c.Depth == 0 && c.MoveTime == 0 && c.Nodes == 0 && c.TC.Base == 0 {
		c.Depth = 1
	}
	return c, nil
}

// Player plays games with an external engine. It follows the arena's
// Player contract (Name, NewGame, Move, Close) without importing the
// arena; errors caused by the engine wrap ErrEngineFailed. After a crash
// or a hang the engine is killed and started again at the next NewGame.
type Player struct {
	cfg   PlayerConfig
	c     *Client
	start game.Position // the game's start, untouched
	fen   string
}

// NewPlayer starts the engine and completes the handshake and options, so
// that a wrong command or option fails at once.
func NewPlayer(ctx context.Context, cfg PlayerConfig) (*Player, error) {
	if cfg.Path == "" {
		return nil, errors.New("uci player: no engine command")
	}
	if cfg.Name == "" {
		cfg.Name = "uci:" + cfg.Path
	}
	p := &Player{cfg: cfg}
	if err := p.startEngine(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// Name returns the player's name.
func (p *Player) Name() string { return p.cfg.Name }

// EngineName returns the engine's `id name` (empty before a handshake).
func (p *Player) EngineName() string {
	if p.c == nil {
		return ""
	}
	return p.c.Name()
}

func (p *Player) startEngine(ctx context.Context) error {
	c, err := Start(context.Background(), p.cfg.Path, p.cfg.Args...)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrEngineFailed, err)
	}
	if p.cfg.ReplyTimeout > 0 {
		c.ReplyTimeout = p.cfg.ReplyTimeout
	}
	fail := func(err error) error {
		c.Close()
		return fmt.Errorf("%w: %s: %w", ErrEngineFailed, p.cfg.Path, err)
	}
	if err := c.Handshake(ctx); err != nil {
		return fail(err)
	}
	if p.cfg.Variant != "" {
		if err := c.SetOption(ctx, variantOption, p.cfg.Variant); err != nil {
			return fail(err)
		}
	}
	for _, o := range p.cfg.Options {
		if err := c.SetOption(ctx, o.Name, o.Value); err != nil {
			return fail(err)
		}
	}
	p.c = c
	return nil
}

// kill closes the engine after a failure; the next NewGame starts it anew.
func (p *Player) kill() {
	if p.c != nil {
		p.c.ReplyTimeout = 200 * time.Millisecond
		p.c.Close()
		p.c = nil
	}
}

// NewGame starts a game from start: `ucinewgame` and `isready`, after
// restarting the engine if it failed in an earlier game.
func (p *Player) NewGame(start game.Position, _ uint64) error {
	p.start, p.fen = start.Clone(), start.String()
	ctx := context.Background()
	if p.c == nil {
		if err := p.startEngine(ctx); err != nil {
			return err
		}
	}
	if err := p.c.Send("ucinewgame"); err != nil {
		p.kill()
		return fmt.Errorf("%w: %w", ErrEngineFailed, err)
	}
	if err := p.c.IsReady(ctx); err != nil {
		p.kill()
		return fmt.Errorf("%w: %w", ErrEngineFailed, err)
	}
	return nil
}

// margin is added to a time limit for the bestmove deadline.
func (p *Player) margin() time.Duration {
	if p.cfg.Margin > 0 {
		return p.cfg.Margin
	}
	return DefaultMoveMargin
}

// goCommand returns the `go` command and the deadline for bestmove.
func (p *Player) goCommand() (string, time.Duration) {
	if tc := p.cfg.TC; tc.Base > 0 {
		return goClock(Clock{WTime: tc.Base, BTime: tc.Base, WInc: tc.Inc, BInc: tc.Inc, MovesToGo: tc.Moves}), tc.Base + p.margin()
	}
	timeout := p.cfg.MoveTimeout
	if timeout <= 0 {
		timeout = DefaultMoveTimeout
	}
	var parts []string
	if p.cfg.Depth > 0 {
		parts = append(parts, "depth", strconv.Itoa(p.cfg.Depth))
	}
	if p.cfg.Nodes > 0 {
		parts = append(parts, "nodes", strconv.FormatUint(p.cfg.Nodes, 10))
	}
	if p.cfg.MoveTime > 0 {
		parts = append(parts, "movetime", strconv.FormatInt(p.cfg.MoveTime.Milliseconds(), 10))
		if p.cfg.MoveTimeout <= 0 || p.cfg.Depth == 0 && p.cfg.Nodes == 0 {
			timeout = p.cfg.MoveTime + p.margin()
		}
	}
	return "go " + strings.Join(parts, " "), timeout
}

// PositionCommand returns `position fen START moves ...` for moves played
// from start.
func PositionCommand(start game.Position, moves []game.Move) (string, error) {
	q := start.Clone()
	var b strings.Builder
	b.WriteString("position fen ")
	b.WriteString(start.String())
	if len(moves) > 0 {
		b.WriteString(" moves")
	}
	for i, m := range moves {
		if !game.IsLegal(q, m) {
			return "", fmt.Errorf("uci player: move %d (%s) is not legal", i+1, q.FormatMove(m))
		}
		b.WriteByte(' ')
		b.WriteString(q.FormatMove(m))
		q.Make(m)
	}
	return b.String(), nil
}

func isBestMove(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "bestmove") }

// Move sends the game so far and reads the engine's bestmove. A crash, a
// missed deadline, or an illegal or missing move wraps ErrEngineFailed;
// a cancelled ctx stops the search and returns ctx's error.
func (p *Player) Move(ctx context.Context, pos game.Position, moves []game.Move) (game.Move, error) {
	goCmd, timeout := p.goCommand()
	return p.move(ctx, pos, moves, goCmd, timeout)
}

// TimeControl returns the player's clock (tc=; Base 0: none).
func (p *Player) TimeControl() TimeControl { return p.cfg.TC }

// MoveClock is Move under the clocks c, which the caller keeps: the
// engine is sent `go wtime btime winc binc [movestogo]`, and its bestmove
// is waited for as long as the side to move has left, and the margin.
// Whether the move came in time is the caller's to judge.
func (p *Player) MoveClock(ctx context.Context, pos game.Position, moves []game.Move, c Clock) (game.Move, error) {
	if p.cfg.TC.Base == 0 {
		return game.NoMove, errNoClock
	}
	left := c.WTime
	if pos.SideToMove() != game.First {
		left = c.BTime
	}
	return p.move(ctx, pos, moves, goClock(c), max(left, 0)+p.margin())
}

func (p *Player) move(ctx context.Context, pos game.Position, moves []game.Move, goCmd string, timeout time.Duration) (game.Move, error) {
	if p.start == nil {
		return game.NoMove, errors.New("uci player: Move before NewGame")
	}
	if p.c == nil {
		return game.NoMove, fmt.Errorf("%w: the engine failed earlier in this game", ErrEngineFailed)
	}
	posCmd, err := PositionCommand(p.start, moves)
	if err != nil {
		return game.NoMove, err
	}
	fail := func(err error) (game.Move, error) {
		p.kill()
		return game.NoMove, fmt.Errorf("%w: %w", ErrEngineFailed, err)
	}
	if err := p.c.Send(posCmd); err != nil {
		return fail(err)
	}
	if err := p.c.Send(goCmd); err != nil {
		return fail(err)
	}
	lines, err := p.c.ReadUntil(ctx, isBestMove, timeout)
	if err != nil {
		if ctx.Err() != nil {
			// Not the engine's fault: stop it and wait briefly for its
			// bestmove so the next search starts clean.
			p.c.Send("stop")
			if _, err := p.c.ReadUntil(context.Background(), isBestMove, stopGrace); err != nil {
				p.kill()
			}
			return game.NoMove, ctx.Err()
		}
		return fail(fmt.Errorf("%s: %w", p.cfg.Path, err))
	}
	f := strings.Fields(lines[len(lines)-1])
	if len(f) < 2 || f[0] != "bestmove" {
		return game.NoMove, fmt.Errorf("%w: malformed reply %q", ErrEngineFailed, clip(lines[len(lines)-1]))
	}
	m, err := pos.ParseMove(f[1])
	if err != nil {
		return game.NoMove, fmt.Errorf("%w: illegal bestmove %s after %s: %w", ErrEngineFailed, clip(f[1]), clipN(posCmd, 300), err)
	}
	return m, nil
}

// Close quits the engine.
func (p *Player) Close() error {
	if p.c == nil {
		return nil
	}
	err := p.c.Close()
	p.c = nil
	return err
}
