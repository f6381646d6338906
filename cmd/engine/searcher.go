package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/uci"
)

// searcher adapts alphabeta to the engine: UCI limits to alpha-beta
// limits, iterations to info lines, and the search options.
type searcher struct {
	opts    alphabeta.Options
	multiPV int
	s       *alphabeta.Searcher
	moverState
}

func newSearcher() *searcher {
	return &searcher{opts: alphabeta.DefaultOptions(), multiPV: 1, moverState: newMoverState()}
}

// Option names.
const (
	optAlgorithm = "Algorithm"
	optHash      = "Hash"
	optMultiPV   = "MultiPV"
)

func (s *searcher) SearchOptions() []game.Option {
	return append([]game.Option{
		{Name: optAlgorithm, Default: alphabeta.DefaultOptions().Algorithm, Values: alphabeta.Algorithms},
		{Name: optHash, Default: strconv.Itoa(alphabeta.DefaultOptions().HashMiB), Min: 1, Max: 65536},
		{Name: optMultiPV, Default: "1", Min: 1, Max: 500},
	}, moverOptions()...)
}

func (s *searcher) SetSearchOption(name, value string) error {
	if ok, err := s.setMoverOption(name, value); ok {
		return err
	}
	switch name {
	case optAlgorithm:
		s.opts.Algorithm = value
	case optHash:
		s.opts.HashMiB, _ = strconv.Atoi(value)
	case optMultiPV:
		s.multiPV, _ = strconv.Atoi(value)
		return nil
	default:
		return fmt.Errorf("unknown search option %s", name)
	}
	s.s = nil // rebuilt with the new options at the next search
	return nil
}

func (s *searcher) NewGame() {
	if s.s != nil {
		s.s.Clear()
	}
	s.newGame()
}

// ensureAB builds the alpha-beta searcher with the current options.
func (s *searcher) ensureAB() error {
	if s.s != nil {
		return nil
	}
	var err error
	s.s, err = alphabeta.New(s.opts)
	return err
}

// abInfo turns alpha-beta iterations into info lines.
func abInfo(p alphabeta.Position, info func(string)) func(alphabeta.Info) {
	return func(i alphabeta.Info) {
		nps := uint64(0)
		if i.Time > 0 {
			nps = uint64(float64(i.Nodes) / i.Time.Seconds())
		}
		info(fmt.Sprintf("depth %d seldepth %d score %s nodes %d nps %d time %d hashfull %d pv %s",
			i.Depth, i.SelDepth, alphabeta.FormatScore(i.Score), i.Nodes, nps, i.Time.Milliseconds(), i.Hashfull, movesText(p, i.PV)))
	}
}

func (s *searcher) Search(ctx context.Context, gp game.Position, lim uci.Limits, info func(string)) (uci.SearchResult, error) {
	if len(lim.SearchMoves) > 0 {
		return uci.SearchResult{}, fmt.Errorf("searchmoves is not supported")
	}
	if s.mover == moverMCTS {
		return s.searchMCTS(ctx, gp, lim, info)
	}
	p, ok := gp.(alphabeta.Position)
	if !ok {
		return uci.SearchResult{}, fmt.Errorf("game %s has no alpha-beta support", gp.Game())
	}
	if s.mover == moverABZero {
		return s.searchABZero(ctx, p, lim, info)
	}
	if err := s.ensureAB(); err != nil {
		return uci.SearchResult{}, err
	}
	al := alphabeta.Limits{Depth: lim.Depth, Nodes: lim.Nodes, Time: moveTime(lim, p.SideToMove()), MultiPV: s.multiPV > 1}
	if lim.Mate > 0 && (al.Depth == 0 || al.Depth > 2*lim.Mate-1) {
		al.Depth = 2*lim.Mate - 1
	}
	res := s.s.Search(ctx, p, al, abInfo(p, info))
	for k, rs := range res.RootScores {
		if k >= s.multiPV {
			break
		}
		info(fmt.Sprintf("depth %d multipv %d score %s pv %s", res.Depth, k+1, alphabeta.FormatScore(rs.Score), p.FormatMove(rs.Move)))
	}
	out := uci.SearchResult{Best: res.Move}
	if len(res.PV) > 1 {
		out.Ponder = res.PV[1]
	}
	return out, nil
}

// moveTime turns the limits into a time budget: movetime when given, else
// a share of the clock (remaining / moves to go, 30 by default, plus most
// of the increment), never more than half the clock.
func moveTime(lim uci.Limits, us game.Color) time.Duration {
	if lim.MoveTime > 0 {
		return lim.MoveTime
	}
	left := lim.Time[us]
	if left <= 0 {
		return 0
	}
	togo := lim.MovesToGo
	if togo <= 0 {
		togo = 30
	}
	t := left/time.Duration(togo) + lim.Inc[us]*3/4
	return max(min(t, left/2)-20*time.Millisecond, time.Millisecond)
}

// movesText writes a line of moves, playing them on p and taking them back.
func movesText(p game.Position, pv []game.Move) string {
	parts := make([]string, 0, len(pv))
	for _, m := range pv {
		parts = append(parts, p.FormatMove(m))
		p.Make(m)
	}
	for range pv {
		p.Unmake()
	}
	return strings.Join(parts, " ")
}
