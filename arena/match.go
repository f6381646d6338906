package arena

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/uci"
)

// Match describes a match between two players. Games come in pairs from
// the same opening: in game 2k player A plays the first colour (Red in
// Xiangqi), in game 2k+1 player B does.
type Match struct {
	Game  string
	Rules game.Options
	A, B  *Spec
	// Games is the number of games (an odd number ends with half a pair).
	Games int
	// Concurrency is the number of games played at once (at least 1).
	Concurrency int
	// Openings, when set, are used in turn, one per pair; otherwise each
	// pair starts from OpeningPlies uniformly random plies from the
	// game's start, drawn from Seed and the pair's number, distinct where
	// the game has enough of them (DistinctOpenings).
	Openings     []Opening
	OpeningPlies int
	// Seed makes the openings and the players' randomness reproducible.
	Seed uint64
	// PlyCap draws a game after this many plies (openings included);
	// 0 leaves it to the rules.
	PlyCap int
	// SPRT, if set, stops the match as soon as it decides.
	SPRT *SPRT
	// RecordDir, if set, receives the game records: LABEL.jsonl (one
	// Record a line, in the order games finish) and for Xiangqi LABEL.pgn.
	RecordDir string
	Label     string
	// OnGame, if set, is called from one goroutine after each game with
	// its record and the score so far.
	OnGame func(Record, Score)
}

// Opening is a start position: Text in the game's position format ("" for
// the game's start), then Moves from it.
type Opening struct {
	Text  string
	Moves []string
}

// String writes the opening as an openings-file line.
func (o Opening) String() string {
	if len(o.Moves) == 0 {
		return o.Text
	}
	if o.Text == "" {
		return "moves " + strings.Join(o.Moves, " ")
	}
	return o.Text + " moves " + strings.Join(o.Moves, " ")
}

// ReadOpenings reads an openings file: one opening a line, either a
// position text (FEN for Xiangqi, the moves string for Connect Four),
// "moves M1 M2 ..." from the game's start, or "TEXT moves M1 M2 ...".
// Blank lines and lines starting with # are skipped.
func ReadOpenings(r io.Reader) ([]Opening, error) {
	var out []Opening
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		var o Opening
		switch {
		case s == "moves" || strings.HasPrefix(s, "moves "):
			o.Moves = strings.Fields(s)[1:]
		case strings.Contains(s, " moves "):
			text, moves, _ := strings.Cut(s, " moves ")
			o.Text, o.Moves = strings.TrimSpace(text), strings.Fields(moves)
		default:
			o.Text = s
		}
		out = append(out, o)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("arena: openings: after line %d: %w", line, err)
	}
	return out, nil
}

// LoadOpenings reads an openings file and checks every line against the
// game's rules.
func LoadOpenings(path, gameName string, rules game.Options) ([]Opening, error) {
	f, _, err := inputfile.Open(path, "openings file", maxTextFile)
	if err != nil {
		return nil, fmt.Errorf("arena: openings: %w", err)
	}
	defer f.Close()
	ops, err := ReadOpenings(f)
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("arena: openings: %s holds no opening", path)
	}
	g, err := game.Lookup(gameName)
	if err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	for i, o := range ops {
		if _, _, err := o.start(g, rules); err != nil {
			return nil, fmt.Errorf("arena: openings: %s: opening %d: %w", path, i+1, err)
		}
	}
	return ops, nil
}

// start returns the opening's start position and the position after its
// moves.
func (o Opening) start(g game.Game, rules game.Options) (start, pos game.Position, err error) {
	if start, err = g.Start(o.Text, rules); err != nil {
		return nil, nil, err
	}
	pos = start.Clone()
	if err := game.Play(pos, o.Moves...); err != nil {
		return nil, nil, err
	}
	if st := pos.Status(); st.Over() {
		return nil, nil, fmt.Errorf("the game is already over (%s)", st.Reason)
	}
	return start, pos, nil
}

// Result is the outcome of a match.
type Result struct {
	Score
	// Records are the finished games in game order.
	Records []Record
	// SPRT is the test's state after the last game (nil without SPRT).
	SPRT *SPRTState
	// Stopped says why the match ended before its last game: "sprt" or
	// "cancelled" ("" when every game was played).
	Stopped string
	// DistinctOpenings counts the different positions the random
	// openings reach (0 when the match has Openings or no opening plies):
	// fewer than the pairs means deterministic players repeat games.
	DistinctOpenings int
}

// Passes reports whether A passed a gate: by the SPRT's decision when it
// decided, else by the score reaching minScore.
func (r Result) Passes(minScore float64) bool {
	if r.SPRT != nil && r.SPRT.Decision != "" {
		return r.SPRT.Decision == AcceptH1
	}
	return r.Games() > 0 && r.Score.Score() >= minScore
}

type job struct{ index int }

// RunMatch plays the match. When ctx ends it stops promptly and returns
// the games finished so far with ctx's error; games in progress are
// dropped. An SPRT decision stops it the same way, without error.
func RunMatch(ctx context.Context, m Match) (Result, error) {
	g, err := game.Lookup(m.Game)
	if err != nil {
		return Result{}, fmt.Errorf("arena: %w", err)
	}
	if m.A == nil || m.B == nil {
		return Result{}, errors.New("arena: match needs two players")
	}
	if m.A.Game != g.Name || m.B.Game != g.Name {
		return Result{}, fmt.Errorf("arena: players are for %s and %s, the match is %s", m.A.Game, m.B.Game, g.Name)
	}
	if m.A.Name() == m.B.Name() {
		return Result{}, fmt.Errorf("arena: both players are named %q (give one a name=)", m.A.Name())
	}
	if m.Games < 1 {
		return Result{}, fmt.Errorf("arena: %d games", m.Games)
	}
	if m.OpeningPlies < 0 || m.PlyCap < 0 {
		return Result{}, fmt.Errorf("arena: negative opening plies or ply cap")
	}
	if m.SPRT != nil {
		if err := m.SPRT.Check(); err != nil {
			return Result{}, err
		}
	}
	if _, err := g.New(m.Rules); err != nil {
		return Result{}, fmt.Errorf("arena: %w", err)
	}
	distinct := 0
	if len(m.Openings) == 0 && m.OpeningPlies > 0 {
		if m.Openings, distinct, err = DistinctOpenings(g, m.Rules, m.OpeningPlies, (m.Games+1)/2, m.Seed); err != nil {
			return Result{}, err
		}
	}
	k := min(max(m.Concurrency, 1), m.Games)
	if m.A.interactive || m.B.interactive {
		k = 1 // one game at a time in front of a person
	}
	var rw *recordWriter
	if m.RecordDir != "" {
		if rw, err = newRecordWriter(m.RecordDir, m.Label, g.Name); err != nil {
			return Result{}, err
		}
		defer rw.close()
	}

	// stop ends the match early (the SPRT decided); a failing worker ends
	// it through the group.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	eg, egCtx := errgroup.WithContext(runCtx)
	jobs := make(chan job)
	results := make(chan Record)
	eg.Go(func() error { // feeder
		defer close(jobs)
		for i := range m.Games {
			select {
			case jobs <- job{i}:
			case <-egCtx.Done():
				return nil
			}
		}
		return nil
	})
	for range k {
		eg.Go(func() error {
			w, err := newWorker(g, &m)
			if err != nil {
				return err
			}
			defer w.close()
			for j := range jobs {
				rec, err := w.play(egCtx, j.index)
				if err != nil {
					if egCtx.Err() != nil {
						return nil // the match is over; its cause is reported
					}
					return err
				}
				select {
				case results <- rec:
				case <-egCtx.Done():
					return nil
				}
			}
			return nil
		})
	}
	var playErr error
	go func() {
		playErr = eg.Wait()
		close(results)
	}()

	res := Result{DistinctOpenings: distinct}
	if m.SPRT != nil {
		st := m.SPRT.State(Score{})
		res.SPRT = &st
	}
	var writeErr error
	for rec := range results {
		if runCtx.Err() != nil || writeErr != nil {
			continue // drain: the match is over
		}
		if rw != nil {
			if writeErr = rw.write(rec); writeErr != nil {
				stop()
				continue
			}
		}
		res.Records = append(res.Records, rec)
		res.Score.add(rec.ScoreA())
		if m.OnGame != nil {
			m.OnGame(rec, res.Score)
		}
		if m.SPRT != nil {
			st := m.SPRT.State(res.Score)
			res.SPRT = &st
			if st.Decision != "" {
				res.Stopped = "sprt"
				stop()
			}
		}
	}
	slices.SortFunc(res.Records, func(a, b Record) int { return a.Index - b.Index })
	if err := cmp.Or(writeErr, playErr); err != nil {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		res.Stopped = "cancelled"
		return res, err
	}
	return res, nil
}

// worker owns one player of each side and plays games one at a time.
type worker struct {
	g    game.Game
	m    *Match
	a, b Player
}

func newWorker(g game.Game, m *Match) (*worker, error) {
	a, err := m.A.New()
	if err != nil {
		return nil, err
	}
	b, err := m.B.New()
	if err != nil {
		a.Close()
		return nil, err
	}
	return &worker{g: g, m: m, a: a, b: b}, nil
}

func (w *worker) close() {
	w.a.Close()
	w.b.Close()
}

// mix64 is SplitMix64's finaliser: seeds for games and openings.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// opening returns the start position and opening moves of a pair.
func (w *worker) opening(pair int) (game.Position, []game.Move, error) {
	if len(w.m.Openings) > 0 {
		o := w.m.Openings[pair%len(w.m.Openings)]
		start, _, err := o.start(w.g, w.m.Rules)
		if err != nil {
			return nil, nil, fmt.Errorf("arena: opening %q: %w", o, err)
		}
		q := start.Clone()
		var moves []game.Move
		for _, s := range o.Moves {
			mv, err := q.ParseMove(s)
			if err != nil {
				return nil, nil, fmt.Errorf("arena: opening %q: %w", o, err)
			}
			q.Make(mv)
			moves = append(moves, mv)
		}
		return start, moves, nil
	}
	// Without openings (RunMatch draws them for opening plies) games
	// start at the game's start.
	start, err := w.g.New(w.m.Rules)
	if err != nil {
		return nil, nil, fmt.Errorf("arena: %w", err)
	}
	return start, nil, nil
}

// openingRNG is the source of pair's random opening.
func openingRNG(seed uint64, pair int) *rand.Rand {
	return rand.New(rand.NewPCG(mix64(seed^mix64(uint64(pair)+1)), 0x6f70656e696e67))
}

// maxOpeningDraws bounds the draws for one pair's distinct opening: past
// it the openings of that length are taken to be used up.
const maxOpeningDraws = 100

// DistinctOpenings returns the random openings of plies plies for a match
// of pairs pairs with this seed, as a Match without Openings plays them:
// a pair whose opening leads to a position an earlier pair's did draws
// again (up to 100 times). It also returns the number of distinct
// positions among them. Players that choose their moves deterministically
// play the same two games from the same opening, so a match of 100 pairs
// from Connect Four's 49 two-ply openings holds at most 98 different games.
func DistinctOpenings(g game.Game, rules game.Options, plies, pairs int, seed uint64) ([]Opening, int, error) {
	start, err := g.New(rules)
	if err != nil {
		return nil, 0, fmt.Errorf("arena: %w", err)
	}
	seen := map[uint64]bool{}
	out := make([]Opening, 0, pairs)
	for pair := range pairs {
		rng := openingRNG(seed, pair)
		var o Opening
		var key uint64
		for range maxOpeningDraws {
			moves, err := game.RandomOpening(start, plies, rng)
			if err != nil {
				return nil, 0, fmt.Errorf("arena: %w", err)
			}
			q := start.Clone()
			o = Opening{Moves: make([]string, len(moves))}
			for i, mv := range moves {
				o.Moves[i] = q.FormatMove(mv)
				q.Make(mv)
			}
			if key = q.Key(); !seen[key] {
				break
			}
		}
		seen[key] = true
		out = append(out, o)
	}
	return out, len(seen), nil
}

// play plays game index i of the match.
func (w *worker) play(ctx context.Context, i int) (Record, error) {
	began := time.Now()
	start, opening, err := w.opening(i / 2)
	if err != nil {
		return Record{}, err
	}
	aFirst := i%2 == 0
	first, second := w.a, w.b
	if !aFirst {
		first, second = w.b, w.a
	}
	seed := mix64(w.m.Seed ^ mix64(uint64(i)+0x67616d65))
	if err := first.NewGame(start, mix64(seed^1)); err != nil {
		return Record{}, fmt.Errorf("arena: %s: new game: %w", first.Name(), err)
	}
	if err := second.NewGame(start, mix64(seed^2)); err != nil {
		return Record{}, fmt.Errorf("arena: %s: new game: %w", second.Name(), err)
	}
	rec := Record{Match: w.m.Label, Variant: w.g.Name, Index: i, Pair: i / 2, A: w.a.Name(), B: w.b.Name(),
		First: first.Name(), Second: second.Name(), Start: start.String(), OpeningPlies: len(opening)}
	pos := start.Clone()
	moves := append([]game.Move(nil), opening...)
	for _, mv := range opening {
		rec.Moves = append(rec.Moves, pos.FormatMove(mv))
		pos.Make(mv)
	}
	var winner game.Color
	decided := false
	var effort [2]struct{ sum, moves int64 } // by colour
	var clocks [2]*sideClock                 // by colour; nil: no clock
	for c, pl := range []Player{first, second} {
		if cp, ok := pl.(ClockedPlayer); ok {
			if tc := cp.TimeControl(); tc.Base > 0 {
				clocks[c] = &sideClock{tc: tc, left: tc.Base, togo: tc.Moves}
			}
		}
	}
	for {
		if st := pos.Status(); st.Over() {
			rec.Reason = st.Reason
			switch st.Result {
			case game.Win:
				winner, decided = pos.SideToMove(), true
			case game.Loss:
				winner, decided = pos.SideToMove().Other(), true
			}
			break
		}
		if w.m.PlyCap > 0 && len(moves) >= w.m.PlyCap {
			rec.Reason = "ply cap"
			break
		}
		side := pos.SideToMove()
		pl := first
		if side != game.First {
			pl = second
		}
		var mv game.Move
		var err error
		ck := clocks[side]
		if ck == nil {
			mv, err = pl.Move(ctx, pos.Clone(), slices.Clone(moves))
		} else {
			var c Clock
			for col := range clocks {
				o := clocks[col]
				if o == nil {
					o = ck
				}
				c.Time[col], c.Inc[col] = o.left, o.tc.Inc
			}
			c.MovesToGo = ck.togo
			began := time.Now()
			mv, err = pl.(ClockedPlayer).MoveClock(ctx, pos.Clone(), slices.Clone(moves), c)
			used := time.Since(began)
			if ctx.Err() != nil {
				return Record{}, ctx.Err()
			}
			if used > ck.left {
				winner, decided = side.Other(), true
				rec.Reason = fmt.Sprintf("%s loses on time (tc=%s: %.3f s used of %.3f s left)", pl.Name(), ck.tc, used.Seconds(), ck.left.Seconds())
				break
			}
			ck.played(used)
		}
		if err != nil {
			if ctx.Err() != nil {
				return Record{}, ctx.Err()
			}
			if errors.Is(err, ErrForfeit) {
				winner, decided = side.Other(), true
				rec.Reason = fmt.Sprintf("%s forfeits: %v", pl.Name(), err)
				break
			}
			return Record{}, fmt.Errorf("arena: game %d: %s: %w", i, pl.Name(), err)
		}
		if ec, ok := pl.(EffortCounter); ok {
			effort[side].sum += ec.LastEffort()
			effort[side].moves++
		}
		if !game.IsLegal(pos, mv) {
			winner, decided = side.Other(), true
			rec.Reason = fmt.Sprintf("%s played an illegal move %s", pl.Name(), pos.FormatMove(mv))
			break
		}
		rec.Moves = append(rec.Moves, pos.FormatMove(mv))
		pos.Make(mv)
		moves = append(moves, mv)
	}
	rec.Result = ResultDraw
	if decided {
		rec.Result = ResultFirstWins
		if winner != game.First {
			rec.Result = ResultSecondWins
		}
	}
	rec.Plies = len(moves)
	mean := func(c game.Color) float64 {
		if effort[c].moves == 0 {
			return 0
		}
		return float64(effort[c].sum) / float64(effort[c].moves)
	}
	if aFirst {
		rec.EffortA, rec.EffortB = mean(game.First), mean(game.Second)
	} else {
		rec.EffortA, rec.EffortB = mean(game.Second), mean(game.First)
	}
	rec.Millis = time.Since(began).Milliseconds()
	rec.Time = time.Now().UTC().Truncate(time.Second)
	for _, pl := range []Player{first, second} {
		if e, ok := pl.(GameEnder); ok {
			e.EndGame(pos, rec)
		}
	}
	return rec, nil
}

// sideClock is a clocked player's clock in one game.
type sideClock struct {
	tc   uci.TimeControl
	left time.Duration // the time left
	togo int           // moves until the next time control (tc.Moves > 0)
}

// played takes a move's time off the clock and adds the increment, and
// the base again when the time control's moves are played.
func (c *sideClock) played(used time.Duration) {
	c.left += c.tc.Inc - used
	if c.tc.Moves > 0 {
		if c.togo--; c.togo == 0 {
			c.togo, c.left = c.tc.Moves, c.left+c.tc.Base
		}
	}
}
