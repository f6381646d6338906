package arena

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
)

// KindTB is the perfect Catch the Lion player: tb:FILE plays from the
// tablebase file (game/lion/tablebase, built by tabula liontb).
const KindTB = "tb"

func init() { RegisterKind(KindTB, builtin(KindTB, (*Spec).parseTB)) }

// parseTB reads tb:FILE (or tb:file=FILE). The table is opened here, so
// that a missing file or one that is not a Lion table is an error of the
// spec, not of the match; its memory map is shared by the spec's players
// (a Table is safe for concurrent use) and stays open for the process.
func (s *Spec) parseTB(g game.Game, kv map[string]string, pos []string) error {
	if g.Name != lion.Name {
		return fmt.Errorf("arena: player %q: tb plays Catch the Lion from its tablebase, not %s", s.Text, g.Name)
	}
	if err := s.keys(kv, "file"); err != nil {
		return err
	}
	file, hasFile := kv["file"]
	switch {
	case len(pos) == 1 && !hasFile:
		file = pos[0]
	case len(pos) == 0 && hasFile:
	case len(pos) == 0:
		return fmt.Errorf("arena: player %q: tb needs a tablebase file (tb:FILE; %s)", s.Text, tablebase.BuildHint)
	default:
		return fmt.Errorf("arena: player %q: unexpected argument %q", s.Text, pos[len(pos)-1])
	}
	t, err := tablebase.Open(file)
	if err != nil {
		return fmt.Errorf("arena: player %q: %w", s.Text, err)
	}
	s.table = t
	return nil
}

// tbPlayer plays an optimal move of the table: the quickest win, the
// slowest loss, or a drawing move. Among the optimal moves it draws one
// from the game's seed, so games are reproducible and a match's pairs
// still differ.
type tbPlayer struct {
	name string
	t    *tablebase.Table
	rng  *rand.Rand
	buf  []game.Move
}

func (p *tbPlayer) Name() string { return p.name }
func (p *tbPlayer) Close() error { return nil }

func (p *tbPlayer) NewGame(_ game.Position, seed uint64) error {
	p.rng = rand.New(rand.NewPCG(seed, 0x7462))
	return nil
}

func (p *tbPlayer) Move(_ context.Context, gp game.Position, _ []game.Move) (game.Move, error) {
	lp, ok := gp.(*lion.Position)
	if !ok {
		return game.NoMove, fmt.Errorf("arena: %s: the tablebase plays Catch the Lion, not %s", p.name, gp.Game())
	}
	if p.rng == nil {
		p.rng = rand.New(rand.NewPCG(0, 0x7462))
	}
	var err error
	p.buf, _, err = p.t.BestMoves(lp, p.buf)
	if err != nil {
		return game.NoMove, fmt.Errorf("arena: %s: %s: %w", p.name, lp, err)
	}
	if len(p.buf) == 0 {
		return game.NoMove, fmt.Errorf("arena: %s: no legal move in %s", p.name, lp)
	}
	return p.buf[p.rng.IntN(len(p.buf))], nil
}
