package arena

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
	"github.com/tabula-zero/tabula/internal/kvlist"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/rollout"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/uci"
)

// Player chooses the moves of one side. A Player is used by one goroutine
// at a time; the match runner makes one per worker and calls NewGame
// before each game, so a player's state never leaks from one game into
// the next (which keeps matches reproducible).
type Player interface {
	// Name identifies the player in results and ratings.
	Name() string
	// NewGame starts a game from start (which the player must not
	// modify); seed is the game's seed for players that use randomness.
	NewGame(start game.Position, seed uint64) error
	// Move returns the move to play in p, the game's position after moves
	// from start. p is the player's own copy. An error ends the match,
	// unless it wraps ErrForfeit: then the player loses the game.
	Move(ctx context.Context, p game.Position, moves []game.Move) (game.Move, error)
	// Close releases the player's resources.
	Close() error
}

// EffortCounter is implemented by players that count their search work:
// LastEffort is the work of their last Move, in playouts for the rollout
// players, nodes for alpha-beta, and simulations for the network players
// and mcts (Alpha-Beta-Zero: its MCTS's). Records keep each side's mean per
// move (equal-time matches compare how much each player searched).
type EffortCounter interface {
	LastEffort() int64
}

// ClockedPlayer is implemented by players that play under a clock (a
// uci: player with tc=). The arena keeps their clock: the time a Move
// takes, from the call to its return, comes off the side's time; the
// increment is added after each move, and the base again when the time
// control's moves are played (cutechess-cli's rules). A player whose move
// takes longer than its time left loses on time. The clock of a side
// without one (an in-process player) is sent as the clocked side's own.
type ClockedPlayer interface {
	Player
	// TimeControl is the clock, in cutechess-cli's form (tc=); Base 0:
	// no clock.
	TimeControl() uci.TimeControl
	// MoveClock is Move told the clocks as they stand.
	MoveClock(ctx context.Context, p game.Position, moves []game.Move, c Clock) (game.Move, error)
}

// Clock is both sides' clocks as a clocked player's move starts.
type Clock struct {
	Time, Inc [2]time.Duration // by colour (game.First, game.Second)
	// MovesToGo is the mover's moves until its next time control (0:
	// none, the clock is the whole game's).
	MovesToGo int
}

// ErrForfeit marks a player error that loses the game instead of ending
// the match (an external engine that crashed or timed out).
var ErrForfeit = errors.New("arena: forfeit")

// Player kinds.
const (
	KindRandom = "random"
	KindAB     = player.KindAB
	KindNet    = player.KindNet
	KindABZero = player.KindABZero
	KindMCTS   = "mcts"
	KindCustom = "custom" // NewFuncSpec
)

// SpecUsage lists the player spec forms for a command's -h text: the
// searching players' forms and keys come from package player's knobs
// (player.SpecForms, player.KeyUsage), so the text follows their rows.
var SpecUsage = specUsage()

func specUsage() string {
	var b strings.Builder
	line := func(form, what string) {
		if len(form) > 58 {
			fmt.Fprintf(&b, "  %s\n  %-58s  %s\n", form, "", what)
			return
		}
		fmt.Fprintf(&b, "  %-58s  %s\n", form, what)
	}
	b.WriteString("player specs (-a, -b):\n")
	line(KindRandom, "uniformly random legal moves")
	for _, f := range player.SpecForms() {
		line(f[0], f[1])
	}
	line("mcts:sims=N[,search="+player.Lookup(player.KnobSearch).Placeholder()+"]", "MCTS with random playouts, no network")
	line(strings.Join(rollout.Algorithms, "|")+"[:playouts=N|movetime=MS|nodes=N,c=C,...]", "the classical MCTS family (keys: docs/rollout.md)")
	line("uci:COMMAND[,variant=V,depth=N|movetime=MS|nodes=N|tc=TC,timeout=MS,Option=Value...]", "an external engine")
	line(KindHuman, "you: the board on stdout, moves typed on stdin")
	line(KindTB+":FILE", "Catch the Lion's perfect play from the tablebase FILE (tabula liontb)")
	b.WriteString("every kind also takes name=NAME (the name in results)\n")
	b.WriteString("keys of ab:, net: and abzero: (movetime: milliseconds or a Go duration; FEATURE: alphabeta.FeatureNames):\n")
	b.WriteString(player.KeyUsage("  "))
	return b.String()
}

// Spec is a parsed player spec: what ParsePlayer read, with any network
// loaded once, ready to make players (one per match worker).
//
// Spec strings are SpecUsage's forms: random, ab:, net:, abzero:, mcts:,
// the rollout family (package rollout's classical MCTS players; their
// keys in rollout_players.go and docs/rollout.md), uci:, human and tb:.
// Every kind also takes name=NAME (the name in results; default: the spec
// text). ab:, net: and abzero: are package player's specs (player.Parse):
// their keys, defaults, ranges and help are declared once in
// player.Knobs, which the engine's options and the dashboard's Play page
// share. mcts is network-free MCTS with random playouts to the end of the
// game. tb (Catch the Lion only) plays an optimal move of the tablebase
// FILE, one drawn from the game's seed among equals (tb_player.go). A
// learned evaluation (eval=learned) is loaded once and read by every
// player of the spec.
type Spec struct {
	Text string // the spec as given
	Kind string
	Game string

	name string
	// play is the searching players' spec (ab, net, abzero; mcts reads
	// its sims and search constants).
	play *player.Spec
	// evalNet is the learned evaluation alpha-beta searches with (nil:
	// the game's own), shared read-only by the spec's players.
	evalNet  *nnue.Net
	evalFile string
	// network is the network laid out for play (net, abzero), cloned per
	// player.
	network *player.Network
	// custom players (NewFuncSpec)
	newPlayer func() (Player, error)
	// interactive players (a person) play one game at a time
	interactive bool
	// the Catch the Lion tablebase (tb: players)
	table *tablebase.Table
}

// NewFuncSpec makes a spec whose players come from newPlayer (players
// built outside this package, such as external engines); name names them.
func NewFuncSpec(name, gameName string, newPlayer func() (Player, error)) (*Spec, error) {
	g, err := game.Lookup(gameName)
	if err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	if name == "" || newPlayer == nil {
		return nil, errors.New("arena: a custom player needs a name and a constructor")
	}
	return &Spec{Text: name, Kind: KindCustom, Game: g.Name, name: name, newPlayer: newPlayer}, nil
}

// kinds holds the player kinds: this package's, registered in init, and
// those of other packages (arena/uciplayer's external engines).
var (
	kindsMu sync.Mutex
	kinds   = map[string]func(spec, args, gameName string) (*Spec, error){}
)

func init() {
	for kind, parse := range map[string]func(s *Spec, g game.Game, kv map[string]string, pos []string) error{
		KindRandom: func(s *Spec, _ game.Game, kv map[string]string, pos []string) error { return s.parseRandom(kv, pos) },
		KindAB:     (*Spec).parsePlayer,
		KindNet:    (*Spec).parsePlayer,
		KindABZero: (*Spec).parsePlayer,
		KindMCTS:   func(s *Spec, _ game.Game, kv map[string]string, pos []string) error { return s.parseMCTS(kv, pos) },
	} {
		RegisterKind(kind, builtin(kind, parse))
	}
	RegisterKind(KindHuman, parseHuman)       // human.go
	for _, kind := range rollout.Algorithms { // rollout_players.go
		RegisterKind(kind, builtin(kind, (*Spec).parseRollout))
	}
}

// builtin makes a registered parser of a kind of this package: the spec's
// keys and positional arguments, name= taken out, go to parse.
func builtin(kind string, parse func(s *Spec, g game.Game, kv map[string]string, pos []string) error) func(spec, args, gameName string) (*Spec, error) {
	return func(text, rest, gameName string) (*Spec, error) {
		g, err := game.Lookup(gameName)
		if err != nil {
			return nil, fmt.Errorf("arena: %w", err)
		}
		s := &Spec{Text: text, Kind: kind, Game: g.Name, name: text}
		kv, pos, err := splitArgs(text, rest)
		if err != nil {
			return nil, err
		}
		if n, ok := kv["name"]; ok {
			if n == "" || strings.ContainsAny(n, "\t\n\"") {
				return nil, fmt.Errorf("arena: player %q: bad name %q", text, n)
			}
			s.name = n
			delete(kv, "name")
		}
		if err := parse(s, g, kv, pos); err != nil {
			return nil, err
		}
		return s, nil
	}
}

// RegisterKind makes ParsePlayer hand specs "kind:args" to parse; parse
// usually ends in NewFuncSpec for players built outside this package. It
// panics on a kind registered before.
func RegisterKind(kind string, parse func(spec, args, gameName string) (*Spec, error)) {
	kind = strings.ToLower(kind)
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if _, dup := kinds[kind]; dup || kind == KindCustom {
		panic("arena: player kind " + kind + " registered twice")
	}
	kinds[kind] = parse
}

func registeredKind(kind string) func(spec, args, gameName string) (*Spec, error) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	return kinds[kind]
}

// Kinds lists the registered player kinds.
func Kinds() []string {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	return slices.Sorted(maps.Keys(kinds))
}

// Interactive reports whether the spec's players are people (human),
// who play one game at a time.
func (s *Spec) Interactive() bool { return s.interactive }

// Name returns the name the spec's players go by.
func (s *Spec) Name() string { return s.name }

// Network returns the loaded network parameters (nil for network-free
// players).
func (s *Spec) Network() *net.Params {
	if s.network == nil {
		return nil
	}
	return s.network.Params
}

// DefaultSims is the simulation count of net players without sims=
// (player.Knobs' sims).
var DefaultSims = player.DefaultInt(player.KnobSims)

// ParsePlayer reads a player spec for the named game, checking kinds,
// keys and numbers and loading networks (a missing or wrong-game file is
// an error here, not in the middle of a match).
func ParsePlayer(spec, gameName string) (*Spec, error) {
	text := strings.TrimSpace(spec)
	g, err := game.Lookup(gameName)
	if err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	kind, rest, _ := strings.Cut(text, ":")
	kind = strings.ToLower(strings.TrimSpace(kind))
	if kind == "" {
		return nil, fmt.Errorf("arena: empty player spec")
	}
	parse := registeredKind(kind)
	if parse == nil {
		return nil, fmt.Errorf("arena: player %q: unknown kind %q (valid: %s)", text, kind, strings.Join(Kinds(), ", "))
	}
	return parse(text, rest, g.Name)
}

// NetworkGame returns the game of the network a spec plays with (net:FILE,
// abzero:net=FILE; FILE a checkpoint or run directory), so that a match
// needs no -variant; ok is false for specs without a network.
func NetworkGame(spec string) (gameName string, ok bool, err error) {
	text := strings.TrimSpace(spec)
	kind, rest, _ := strings.Cut(text, ":")
	kv, pos, err := splitArgs(text, rest)
	if err != nil {
		return "", false, err
	}
	var file string
	switch strings.ToLower(strings.TrimSpace(kind)) {
	case KindNet:
		file = kv["file"]
		if len(pos) > 0 {
			file = pos[0]
		}
	case KindABZero:
		file = kv["net"]
	}
	if file == "" {
		return "", false, nil
	}
	id, err := rundir.IdentifyNetwork(file)
	if err != nil {
		return "", false, fmt.Errorf("arena: player %q: %w", text, err)
	}
	return id.Game, true, nil
}

// splitArgs splits "k=v,k=v,file" into keys (lower-cased) and positional
// arguments (kvlist.Parse).
func splitArgs(text, rest string) (map[string]string, []string, error) {
	pairs, pos, err := kvlist.Parse(rest)
	if err != nil {
		return nil, nil, fmt.Errorf("arena: player %q: %w", text, err)
	}
	return kvlist.Map(pairs, true), pos, nil
}

// keys checks that kv holds only allowed keys.
func (s *Spec) keys(kv map[string]string, allowed ...string) error {
	for k := range kv {
		if !slices.Contains(allowed, k) {
			if slices.Contains(player.RetiredKeys[s.Kind], k) {
				return fmt.Errorf("arena: player %q: %s= was retired (docs/retired.md)", s.Text, k)
			}
			return fmt.Errorf("arena: player %q: unknown key %q for %s (valid: %s)", s.Text, k, s.Kind, strings.Join(append(allowed, "name"), ", "))
		}
	}
	return nil
}

func (s *Spec) noPositional(pos []string) error {
	if len(pos) > 0 {
		return fmt.Errorf("arena: player %q: unexpected argument %q (want key=value)", s.Text, pos[0])
	}
	return nil
}

func (s *Spec) intArg(kv map[string]string, key string, lo, hi int) (int, bool, error) {
	v, ok := kv[key]
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, false, fmt.Errorf("arena: player %q: %s=%q is not an integer", s.Text, key, v)
	}
	if n < lo || n > hi {
		return 0, false, fmt.Errorf("arena: player %q: %s=%d out of range [%d, %d]", s.Text, key, n, lo, hi)
	}
	return n, true, nil
}

func (s *Spec) parseRandom(kv map[string]string, pos []string) error {
	if err := s.noPositional(pos); err != nil {
		return err
	}
	return s.keys(kv)
}

// parsePlayer reads an ab:, net: or abzero: spec through package player
// and loads what it plays with.
func (s *Spec) parsePlayer(g game.Game, kv map[string]string, pos []string) error {
	ps, err := player.Parse(s.Kind, g.Name, kv, pos)
	if err != nil {
		return fmt.Errorf("arena: player %q: %w", s.Text, err)
	}
	return s.usePlayer(ps)
}

// usePlayer makes ps the spec's player and loads what it plays with: the
// learned evaluation and the network (laid out in its precision; it may
// have any of the game's encoders), once for all the spec's players.
func (s *Spec) usePlayer(ps *player.Spec) error {
	s.play = ps
	var err error
	if s.evalNet, s.evalFile, err = ps.LoadEval(); err != nil {
		return fmt.Errorf("arena: player %q: %w", s.Text, err)
	}
	if s.network, err = ps.LoadNetwork(1); err != nil {
		return fmt.Errorf("arena: player %q: %w", s.Text, err)
	}
	return nil
}

func (s *Spec) parseMCTS(kv map[string]string, pos []string) error {
	if err := s.noPositional(pos); err != nil {
		return err
	}
	if err := s.keys(kv, "sims", "search"); err != nil {
		return err
	}
	if _, ok := kv["sims"]; !ok {
		return fmt.Errorf("arena: player %q: mcts needs sims=N", s.Text)
	}
	s.play = player.Default(player.KindNet, s.Game)
	if err := s.play.SetSearch(kv); err != nil {
		return fmt.Errorf("arena: player %q: %w", s.Text, err)
	}
	if s.play.Sims < 1 {
		return fmt.Errorf("arena: player %q: mcts needs sims >= 1", s.Text)
	}
	return nil
}

// NewPlayerSpec makes a spec named name of a spec of package player (ab,
// net or abzero), such as a network held in memory (player.NetSpec: a
// candidate the trainer has not saved).
func NewPlayerSpec(name string, ps *player.Spec) (*Spec, error) {
	g, err := game.Lookup(ps.Game)
	if err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	s := &Spec{Text: name, Kind: ps.Kind, Game: g.Name, name: name}
	if err := s.usePlayer(ps); err != nil {
		return nil, err
	}
	return s, nil
}
