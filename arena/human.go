package arena

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/tabula-zero/tabula/game"
)

// KindHuman is a person at the terminal: the board drawn, moves typed in
// the game's notation.
const KindHuman = "human"

// GameEnder is implemented by players that are shown how a game ended (a
// human at the terminal): the final position and the game's record.
type GameEnder interface {
	EndGame(final game.Position, rec Record)
}

// NewHumanSpec makes the spec of a person who reads the board from out and
// types moves into in. Players made from one spec share in (human against
// human takes turns at one keyboard).
func NewHumanSpec(gameName, name string, in io.Reader, out io.Writer) (*Spec, error) {
	if name == "" {
		name = KindHuman
	}
	con := &console{in: in, out: out}
	s, err := NewFuncSpec(name, gameName, func() (Player, error) { return &humanPlayer{name: name, con: con}, nil })
	if err == nil {
		s.interactive = true
	}
	return s, err
}

func parseHuman(text, rest, gameName string) (*Spec, error) {
	kv, pos, err := splitArgs(text, rest)
	if err != nil {
		return nil, err
	}
	name := kv["name"]
	delete(kv, "name")
	if len(kv) > 0 || len(pos) > 0 {
		return nil, fmt.Errorf("arena: player %q: human takes only name=", text)
	}
	return NewHumanSpec(gameName, name, os.Stdin, os.Stdout)
}

// console reads lines from a person in the background, so that a move
// being awaited still ends with the match's context.
type console struct {
	in    io.Reader
	out   io.Writer
	once  sync.Once
	lines chan string
	err   error // why the input ended; read after lines is closed
}

func (c *console) line(ctx context.Context) (string, error) {
	c.once.Do(func() {
		c.lines = make(chan string)
		go func() {
			sc := bufio.NewScanner(c.in)
			for sc.Scan() {
				c.lines <- sc.Text()
			}
			c.err = sc.Err()
			close(c.lines)
		}()
	})
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case l, ok := <-c.lines:
		if !ok {
			return "", errors.Join(errors.New("the input ended"), c.err)
		}
		return strings.TrimSpace(l), nil
	}
}

type humanPlayer struct {
	name string
	con  *console
}

func (h *humanPlayer) Name() string                        { return h.name }
func (h *humanPlayer) Close() error                        { return nil }
func (h *humanPlayer) NewGame(game.Position, uint64) error { return nil }

// Move shows the position and the opponent's last move, then reads until
// the person types a legal move: a malformed or illegal one is refused
// with the reason and asked for again.
func (h *humanPlayer) Move(ctx context.Context, p game.Position, moves []game.Move) (game.Move, error) {
	out := h.con.out
	if len(moves) > 0 {
		q := p.Clone()
		q.Unmake()
		fmt.Fprintf(out, "\nplayed: %s\n", q.FormatMove(moves[len(moves)-1]))
	}
	show(out, p)
	legal := p.GenerateMoves(nil)
	for {
		fmt.Fprintf(out, "%s, your move (e.g. %s; moves, board, resign): ", h.name, p.FormatMove(legal[0]))
		l, err := h.con.line(ctx)
		if err != nil {
			return game.NoMove, err
		}
		switch strings.ToLower(l) {
		case "":
			continue
		case "moves":
			var s []string
			for _, m := range legal {
				s = append(s, p.FormatMove(m))
			}
			fmt.Fprintf(out, "legal moves: %s\n", strings.Join(s, " "))
			continue
		case "board", "d":
			show(out, p)
			continue
		case "resign":
			return game.NoMove, fmt.Errorf("%w: %s resigns", ErrForfeit, h.name)
		}
		m, err := p.ParseMove(l)
		if err != nil {
			fmt.Fprintf(out, "refused: %v\n", err)
			continue
		}
		return m, nil
	}
}

// EndGame shows the final position and the result.
func (h *humanPlayer) EndGame(final game.Position, rec Record) {
	out := h.con.out
	if n := len(rec.Moves); n > 0 {
		fmt.Fprintf(out, "\nplayed: %s\n", rec.Moves[n-1])
	}
	show(out, final)
	winner := map[string]string{ResultFirstWins: rec.First + " wins", ResultSecondWins: rec.Second + " wins"}[rec.Result]
	if winner == "" {
		winner = "draw"
	}
	fmt.Fprintf(out, "game over: %s (%s)\n", winner, rec.Reason)
}

func show(out io.Writer, p game.Position) {
	if d, ok := p.(game.Diagrammer); ok {
		fmt.Fprint(out, d.Diagram())
		return
	}
	fmt.Fprintln(out, p.String())
}
