package arena

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/uci"
)

// clocked plays the first legal move under a clock, recording the clocks
// it is told; sleep makes each move take at least that long.
type clocked struct {
	name       string
	moves      int
	base, inc  time.Duration
	sleep      time.Duration
	mu         *sync.Mutex
	seen       *[]seenClock
	plainMoves *int
	games      *int
}

type seenClock struct {
	game int
	side game.Color
	c    Clock
}

func (p *clocked) Name() string { return p.name }
func (p *clocked) Close() error { return nil }
func (p *clocked) NewGame(game.Position, uint64) error {
	p.mu.Lock()
	*p.games++
	p.mu.Unlock()
	return nil
}
func (p *clocked) TimeControl() uci.TimeControl {
	return uci.TimeControl{Moves: p.moves, Base: p.base, Inc: p.inc}
}
func (p *clocked) Move(ctx context.Context, pos game.Position, moves []game.Move) (game.Move, error) {
	p.mu.Lock()
	*p.plainMoves++
	p.mu.Unlock()
	return firstLegal(pos), nil
}
func (p *clocked) MoveClock(ctx context.Context, pos game.Position, moves []game.Move, c Clock) (game.Move, error) {
	p.mu.Lock()
	*p.seen = append(*p.seen, seenClock{*p.games, pos.SideToMove(), c})
	p.mu.Unlock()
	time.Sleep(p.sleep)
	return firstLegal(pos), nil
}

func clockedSpec(t *testing.T, p clocked) (*Spec, *[]seenClock, *int) {
	t.Helper()
	var seen []seenClock
	var plain, games int
	p.mu, p.seen, p.plainMoves, p.games = new(sync.Mutex), &seen, &plain, &games
	s, err := NewFuncSpec(p.name, "connect4", func() (Player, error) { q := p; return &q, nil })
	if err != nil {
		t.Fatal(err)
	}
	return s, &seen, &plain
}

// A clocked player is told both clocks through MoveClock, never Move; its
// time goes down by what its moves take, up by the increment, and by the
// base again when the time control's moves are played; the unclocked
// opponent's clock is sent as the mover's own.
func TestClockKept(t *testing.T) {
	const base, inc = 1000 * time.Second, 100 * time.Second
	a, seen, plain := clockedSpec(t, clocked{name: "clocked", moves: 2, base: base, inc: inc})
	res, err := RunMatch(context.Background(), Match{Game: "connect4", A: a, B: spec(t, "random", "connect4"), Games: 2, Concurrency: 1, PlyCap: 12})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		if strings.Contains(r.Reason, "time") {
			t.Errorf("game %d: %s", r.Index, r.Reason)
		}
	}
	byGame := map[int][]seenClock{}
	for _, s := range *seen {
		byGame[s.game] = append(byGame[s.game], s)
	}
	if *plain != 0 || len(byGame) != 2 || len(byGame[1]) < 3 || len(byGame[2]) < 3 {
		t.Fatalf("%d moves through Move, through MoveClock %v; want none and some of each game", *plain, *seen)
	}
	for g, game := range byGame {
		for k, s := range game {
			own, other := s.c.Time[s.side], s.c.Time[s.side.Other()]
			if own != other || s.c.Inc[0] != inc || s.c.Inc[1] != inc {
				t.Errorf("game %d move %d: clocks %+v, want the mover's own on both sides", g, k, s.c)
			}
			if want := 2 - k%2; s.c.MovesToGo != want {
				t.Errorf("game %d move %d: movestogo %d, want %d", g, k, s.c.MovesToGo, want)
			}
			if k == 0 {
				if own != base {
					t.Errorf("game %d: the first move's clock %v, want %v", g, own, base)
				}
				continue
			}
			prev := game[k-1].c.Time[game[k-1].side]
			// A move takes some time (less than an increment): the clock
			// gains under inc, and under inc + base after a control.
			gain := inc
			if k%2 == 0 {
				gain += base
			}
			if d := own - prev; d > gain || d <= gain-inc {
				t.Errorf("game %d move %d: clock %v after %v, want a gain in (%v, %v]", g, k, own, prev, gain-inc, gain)
			}
		}
	}
}

// A player whose move takes longer than its clock has left loses on time,
// recorded as such; a sleep past the clock is past it however fast the
// machine.
func TestLossOnTime(t *testing.T) {
	a, _, _ := clockedSpec(t, clocked{name: "slow", base: time.Millisecond, sleep: 50 * time.Millisecond})
	res, err := RunMatch(context.Background(), Match{Game: "connect4", A: a, B: spec(t, "random", "connect4"), Games: 2, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Losses != 2 {
		t.Errorf("slow: %s, want two losses", res.Score)
	}
	for _, r := range res.Records {
		if !strings.Contains(r.Reason, "slow loses on time (tc=0.001: ") {
			t.Errorf("game %d: reason %q", r.Index, r.Reason)
		}
	}
}

func firstLegal(pos game.Position) game.Move {
	for _, m := range pos.GenerateMoves(nil) {
		if game.IsLegal(pos, m) {
			return m
		}
	}
	return game.NoMove
}
