// Package uciplayer makes external UCI engines arena players. Importing it
// registers the player kind "uci" with arena.ParsePlayer:
//
//	uci:COMMAND[,variant=V,depth=N|movetime=MS|nodes=N|tc=TC,timeout=MS,name=NAME,Option=Value...]
//
// for example uci:/usr/games/fairy-stockfish,depth=1,Hash=16. tc= plays
// under a clock in cutechess-cli's form (40/60+0.6, 60+0.6, 10+0.1) that
// the arena keeps (arena.ClockedPlayer): the engine is sent `go wtime
// btime winc binc [movestogo]` and loses on time when a move takes longer
// than its clock has left. The engine
// runs as a subprocess per match worker and is sent `position fen START
// moves ...` from the game's start before each `go`. An engine that
// crashes, misses its deadline (movetime plus a margin, or timeout for
// depth and nodes searches, 60 s by default) or plays an illegal move
// forfeits the game; the reason is recorded and the match goes on (a
// crashed engine is restarted for the next game). See uci.ParsePlayerSpec
// for the keys.
package uciplayer

import (
	"context"
	"errors"
	"fmt"
	"os/exec"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/uci"
)

// Kind is the spec prefix of external engines.
const Kind = "uci"

func init() { arena.RegisterKind(Kind, Parse) }

// Parse reads a "uci:..." spec (args is the text after the colon) for the
// named game. It checks the command exists but does not start it.
func Parse(spec, args, gameName string) (*arena.Spec, error) {
	cfg, err := uci.ParsePlayerSpec(args, gameName)
	if err != nil {
		return nil, fmt.Errorf("arena: player %q: %w", spec, err)
	}
	if _, err := exec.LookPath(cfg.Path); err != nil {
		return nil, fmt.Errorf("arena: player %q: %w", spec, err)
	}
	return NewSpec(cfg, gameName)
}

// NewSpec makes a spec whose players run the engine cfg describes.
func NewSpec(cfg uci.PlayerConfig, gameName string) (*arena.Spec, error) {
	s, err := arena.NewFuncSpec(cfg.Name, gameName, func() (arena.Player, error) {
		p, err := uci.NewPlayer(context.Background(), cfg)
		if err != nil {
			return nil, err
		}
		return player{p}, nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

var _ arena.ClockedPlayer = player{}

// player turns engine failures into forfeits and plays under the
// arena's clock when its spec has tc=.
type player struct{ *uci.Player }

func (p player) Move(ctx context.Context, pos game.Position, moves []game.Move) (game.Move, error) {
	return forfeits(p.Player.Move(ctx, pos, moves))
}

// MoveClock sends the arena's clocks, white being the first player.
func (p player) MoveClock(ctx context.Context, pos game.Position, moves []game.Move, c arena.Clock) (game.Move, error) {
	return forfeits(p.Player.MoveClock(ctx, pos, moves, uci.Clock{
		WTime: c.Time[game.First], BTime: c.Time[game.Second],
		WInc: c.Inc[game.First], BInc: c.Inc[game.Second], MovesToGo: c.MovesToGo}))
}

func forfeits(m game.Move, err error) (game.Move, error) {
	if err != nil && errors.Is(err, uci.ErrEngineFailed) {
		return game.NoMove, forfeit{err}
	}
	return m, err
}

// forfeit is an engine failure that loses the game.
type forfeit struct{ err error }

func (f forfeit) Error() string   { return f.err.Error() }
func (f forfeit) Unwrap() []error { return []error{arena.ErrForfeit, f.err} }
