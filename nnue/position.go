package nnue

import (
	"fmt"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// MaxEval bounds Evaluate, so that no evaluation reaches the searchers'
// mate scores (alphabeta's start at 31000 - 128).
const MaxEval = 20000

// Position is a Xiangqi position evaluated by a network: it embeds the
// *xiangqi.Position, so it has every method package alphabeta asks for
// (InCheck, GenerateCaptures, MoveValues, RuleStatus, NullMoveOK,
// FewMoves, SEE, GenerateQuietChecks, ...), and overrides Evaluate and the
// methods that change the position (Make, Unmake, MakeNull, UnmakeNull)
// and Clone, so that its stack of accumulators follows them. Changing the
// embedded position directly (p.Position.Make) bypasses the stack: don't.
//
// The stack has an entry a ply made through this Position: the pieces
// the move changed (the mover's squares, the piece captured) and each
// perspective's accumulator, computed only when Evaluate needs it, from
// the nearest computed entry below by adding and subtracting rows, or
// from scratch for a perspective whose general moved on the way (its
// bucket or mirroring changed). Nothing allocates once the stack has
// grown to the search's depth.
type Position struct {
	*xiangqi.Position
	net   *Net
	k     *kernels
	eager bool
	top   int
	stack []entry
	accs  []int16 // entry i's perspective c at (2*i+c)*L1
	sc    *scratch
	// The rows of an update, here rather than on the stack: the kernels
	// are called through function values, which would move a local array
	// to the heap at every call.
	feats    [MaxActive]uint16
	add, sub [2]uint16
}

// entry is one ply of the stack: the move into it and which accumulators
// are up to date.
type entry struct {
	computed [2]bool
	null     bool
	mover    piece // the piece moved from -> to
	captured piece // on to before the move; zero for none
	from, to int8
}

// piece is a colour and a type (xiangqi.NoType: none).
type piece struct {
	color game.Color
	typ   int8
}

// initialEntries: the stack starts this deep and grows by doubling.
const initialEntries = 32

// New returns p evaluated by n (neither nil). The Position owns p from
// then on; Wrap is the checked form for positions of unknown kind.
func New(n *Net, p *xiangqi.Position) *Position {
	q := &Position{Position: p, net: n, k: activeKernels, sc: n.newScratch()}
	q.stack = make([]entry, initialEntries)
	q.accs = make([]int16, initialEntries*2*n.sizes.L1)
	return q
}

// Wrap returns p, which must be a Xiangqi position, evaluated by n; p is
// cloned, so the caller's position stays its own.
func Wrap(n *Net, p game.Position) (*Position, error) {
	if n == nil {
		return nil, fmt.Errorf("nnue: no network")
	}
	var xp *xiangqi.Position
	switch q := p.(type) {
	case *xiangqi.Position:
		xp = q
	case *Position:
		if q != nil {
			xp = q.Position
		}
	case nil:
	default:
		return nil, fmt.Errorf("nnue: a %s position, not a Xiangqi one", p.Game())
	}
	if xp == nil {
		return nil, fmt.Errorf("nnue: no position")
	}
	return New(n, xp.Copy()), nil
}

// Net returns the network that evaluates the position.
func (p *Position) Net() *Net { return p.net }

// SetLazy chooses when accumulators are computed: lazily at Evaluate (the
// default), or eagerly at every Make. The evaluations are the same; lazy
// skips the nodes that are never evaluated.
func (p *Position) SetLazy(lazy bool) { p.eager = !lazy }

// acc returns entry i's accumulator of perspective c.
func (p *Position) acc(i, c int) []int16 {
	l1 := p.net.sizes.L1
	return p.accs[(2*i+c)*l1 : (2*i+c+1)*l1]
}

// push starts the entry of a ply just made.
func (p *Position) push() *entry {
	p.top++
	if p.top == len(p.stack) {
		p.stack = append(p.stack, make([]entry, len(p.stack))...)
		p.accs = append(p.accs, make([]int16, len(p.accs))...)
	}
	e := &p.stack[p.top]
	*e = entry{}
	return e
}

// pop drops the entry of a ply just taken back. Below the first entry
// (a move made before the Position wrapped it) nothing is known: the
// first entry is recomputed when asked.
func (p *Position) pop() {
	if p.top > 0 {
		p.top--
		return
	}
	p.stack[0].computed = [2]bool{}
}

// Make plays m (legal here) and records the pieces it changes.
func (p *Position) Make(m game.Move) {
	from, to := xiangqi.From(m), xiangqi.To(m)
	mc, mt := p.Position.PieceAt(from)
	cc, ct := p.Position.PieceAt(to)
	p.Position.Make(m)
	e := p.push()
	e.mover = piece{mc, int8(mt)}
	e.captured = piece{cc, int8(ct)}
	e.from, e.to = int8(from), int8(to)
	if p.eager {
		p.update()
	}
}

// Unmake takes back the last move made.
func (p *Position) Unmake() {
	p.Position.Unmake()
	p.pop()
}

// MakeNull passes (null-move pruning): the accumulators stay those of the
// entry below.
func (p *Position) MakeNull() {
	p.Position.MakeNull()
	p.push().null = true
	if p.eager {
		p.update()
	}
}

// UnmakeNull takes back MakeNull.
func (p *Position) UnmakeNull() {
	p.Position.UnmakeNull()
	p.pop()
}

// Clone returns an independent copy, history included, sharing only the
// network (read-only). Its stack starts at the current ply, with the
// accumulators computed so far.
func (p *Position) Clone() game.Position {
	q := New(p.net, p.Position.Copy())
	q.eager = p.eager
	e := p.stack[p.top]
	q.stack[0].computed = e.computed
	for c := range 2 {
		if e.computed[c] {
			copy(q.acc(0, c), p.acc(p.top, c))
		}
	}
	return q
}

// Evaluate returns the network's evaluation in centi-units from the side
// to move's view, within +-MaxEval.
func (p *Position) Evaluate() int {
	p.update()
	us := int(p.SideToMove())
	v := p.net.forward(p.k, p.acc(p.top, us), p.acc(p.top, us^1), p.sc)
	return min(max(v, -MaxEval), MaxEval)
}

// update computes the current entry's accumulators.
func (p *Position) update() {
	for c := range 2 {
		if !p.stack[p.top].computed[c] {
			p.updatePerspective(c)
		}
	}
}

// updatePerspective computes the current entry's accumulator of
// perspective c from the nearest entry below it that has one, unless c's
// general moved on the way there (or none has one): then from scratch.
func (p *Position) updatePerspective(c int) {
	i := p.top
	for !p.stack[i].computed[c] {
		e := &p.stack[i]
		if i == 0 || (!e.null && e.mover.typ == xiangqi.King && int(e.mover.color) == c) {
			p.refresh(c)
			return
		}
		i--
	}
	// The general of c stood where it stands now at every entry above i.
	k := kingTab[c][p.GeneralSquare(game.Color(c))]
	add, sub := p.add[:1], p.sub[:]
	for j := i + 1; j <= p.top; j++ {
		e := &p.stack[j]
		src, dst := p.acc(j-1, c), p.acc(j, c)
		if e.null {
			copy(dst, src)
		} else {
			add[0] = featureOf(k, game.Color(c), e.mover.color, int(e.mover.typ), int(e.to))
			sub[0] = featureOf(k, game.Color(c), e.mover.color, int(e.mover.typ), int(e.from))
			ns := 1
			if e.captured.typ != xiangqi.NoType {
				sub[1] = featureOf(k, game.Color(c), e.captured.color, int(e.captured.typ), int(e.to))
				ns = 2
			}
			p.k.update(dst, src, p.net.ftW, add, sub[:ns])
		}
		e.computed[c] = true
	}
}

// refresh computes the current entry's accumulator of perspective c from
// its active features.
func (p *Position) refresh(c int) {
	fs := AppendFeatures(p.feats[:0], p.Position, game.Color(c))
	p.k.update(p.acc(p.top, c), p.net.ftB, p.net.ftW, fs, nil)
	p.stack[p.top].computed[c] = true
}
