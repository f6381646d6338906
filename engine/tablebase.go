package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
	"github.com/tabula-zero/tabula/uci"
)

// The tablebase mover plays Catch the Lion perfectly from the table file
// the Tablebase option names (game/lion/tablebase, built by tabula liontb):
// the quickest win, the slowest loss, or a drawing move, the first in
// move-generation order among equals (an engine has no game seed; the
// arena's tb: player draws among them). The file is opened when the
// option is set, so that a missing file or one that is not a Lion table
// is reported then.

const (
	optTablebase = "Tablebase"
	moverTB      = "tablebase"
)

// setTablebase opens the table file path ("" closes it).
func (m *moverState) setTablebase(path string) error {
	path = strings.TrimSpace(path)
	if m.tb != nil {
		m.tb.Close()
		m.tb, m.tbFile = nil, ""
	}
	if path == "" {
		return nil
	}
	t, err := tablebase.Open(path)
	if err != nil {
		return fmt.Errorf("option %s: %w", optTablebase, err)
	}
	m.tb, m.tbFile = t, path
	return nil
}

// tbScore is a result as a UCI score: mate in moves, or cp 0 for a draw.
func tbScore(r tablebase.Result) string {
	switch r.Outcome {
	case game.Win:
		return fmt.Sprintf("mate %d", (r.Plies+1)/2)
	case game.Loss:
		return fmt.Sprintf("mate -%d", r.Plies/2)
	}
	return "cp 0"
}

// searchTB is the tablebase mover: the best of the allowed moves (every
// legal move when allowed is nil) by the table.
func (s *Searcher) searchTB(_ context.Context, gp game.Position, allowed []game.Move, info func(string)) (uci.SearchResult, error) {
	p, ok := gp.(*lion.Position)
	if !ok {
		return uci.SearchResult{}, fmt.Errorf("mover %s plays Catch the Lion from its tablebase, not %s", moverTB, gp.Game())
	}
	if s.tb == nil {
		return uci.SearchResult{}, fmt.Errorf("mover %s needs the %s option (a table file; %s)", moverTB, optTablebase, tablebase.BuildHint)
	}
	moves, _, err := s.tb.Moves(p, nil)
	if err != nil {
		return uci.SearchResult{}, fmt.Errorf("mover %s: %s: %w", moverTB, s.tbFile, err)
	}
	best := -1
	for i, m := range moves {
		if allowed != nil && !slices.Contains(allowed, m.Move) {
			continue
		}
		if best < 0 || m.Result.Rank() > moves[best].Result.Rank() {
			best = i
		}
	}
	if best < 0 {
		return uci.SearchResult{}, fmt.Errorf("mover %s: no legal move", moverTB)
	}
	r := moves[best].Result
	info(fmt.Sprintf("depth %d score %s pv %s", r.Plies, tbScore(r), p.FormatMove(moves[best].Move)))
	return uci.SearchResult{Best: moves[best].Move}, nil
}
