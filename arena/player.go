package arena

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/internal/kvlist"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/infer"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/rollout"
	"github.com/tabula-zero/tabula/rundir"
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

// ErrForfeit marks a player error that loses the game instead of ending
// the match (an external engine that crashed or timed out).
var ErrForfeit = errors.New("arena: forfeit")

// Player kinds.
const (
	KindRandom = "random"
	KindAB     = "ab"
	KindNet    = "net"
	KindABZero = "abzero"
	KindMCTS   = "mcts"
	KindCustom = "custom" // NewFuncSpec
)

// retiredKeys are the spec keys, by kind, of switches that were measured
// and retired (docs/retired.md): a spec that still has one is told so.
var retiredKeys = map[string][]string{
	KindAB:     alphabeta.RetiredFeatures,
	KindNet:    {"discount"},
	KindABZero: append([]string{"discount"}, alphabeta.RetiredFeatures...),
}

// SpecUsage lists the player spec forms for a command's -h text.
const SpecUsage = `player specs (-a, -b):
  random
  ab:depth=N|movetime=MS|nodes=N[,algo=A,hash=MiB,threads=N,FEATURE=on|off,eval=classical|learned,evalfile=FILE]
                                                            alpha-beta (features: alphabeta.FeatureNames; threads 1..64, default 1;
                                                            eval=learned: Xiangqi's learned evaluation, the .nnue FILE
                                                            or without evalfile= the shipped one, models/xiangqi.nnue)
  net:FILE[,sims=N,movetime=MS,search=puct|gumbel,c_init=C,fpu=F,precision=auto|fp32|int8]   a network with MCTS (FILE: checkpoint, run directory, or a game's name: its shipped model; movetime: PUCT searching until the time is up)
  abzero:net=FILE,m=W,depth=N[,sims=N,search=...,algo=A,eval=...,evalfile=FILE]     Alpha-Beta-Zero blend
  mcts:sims=N[,search=puct|gumbel]                          MCTS with random playouts, no network
  uct|solver|mcts-mr|mcts-ms|mcts-mb|ppa|ppap|ppaf|ppafp|mast[:playouts=N|movetime=MS|nodes=N,c=C,...]
                                                            the classical MCTS family (keys: docs/rollout.md)
  uci:COMMAND[,variant=V,depth=N|movetime=MS|nodes=N,timeout=MS,Option=Value...]   an external engine
  human                                                     you: the board on stdout, moves typed on stdin
  tb:FILE                                                   Catch the Lion's perfect play from the tablebase FILE (tabula liontb)
every kind also takes name=NAME (the name in results)`

// Spec is a parsed player spec: what ParsePlayer read, with any network
// loaded once, ready to make players (one per match worker).
//
// Spec strings:
//
//	random
//	ab:depth=N|movetime=MS|nodes=N[,algo=A,hash=MiB,threads=N,eval=classical|learned,evalfile=FILE]
//	net:FILE[,sims=N,movetime=MS,search=puct|gumbel,c_init=C,fpu=F,precision=auto|fp32|int8]
//	abzero:net=FILE,m=W,depth=N[,sims=N,search=puct|gumbel,c_init=C,fpu=F,algo=A,hash=MiB,eval=...,evalfile=FILE]
//	mcts:sims=N[,search=puct|gumbel]
//	uct|solver|mcts-mr|mcts-ms|mcts-mb|ppa|ppap|ppaf|ppafp|mast[:k=v,...]
//	human
//	tb:FILE
//
// The last line is package rollout's classical MCTS players; their keys
// are listed in rollout_players.go and docs/rollout.md.
//
// Every kind also takes name=NAME (the name in results; default: the spec
// text). FILE is a checkpoint file or a run directory (its best
// checkpoint). movetime takes milliseconds or a Go duration ("500ms").
// net sims default to 200; sims=0 plays the raw policy (argmax prior).
// c_init=C and fpu=F override the search's exploration constant and
// first-play urgency reduction (search.c_init and search.fpu_reduction;
// defaults mcts.DefaultConfig's), so a network's test-time search can be
// tuned without a run config.
// mcts is network-free MCTS with random playouts to the end of the game.
// tb (Catch the Lion only) plays an optimal move of the tablebase FILE,
// one drawn from the game's seed among equals (tb_player.go).
// eval=learned (ab and abzero, Xiangqi only) makes alpha-beta evaluate
// with the learned network of evalfile=FILE (package nnue), or without
// evalfile= the shipped one (models/xiangqi.nnue, nnue.Shipped), loaded
// once and read by every player of the spec; eval=classical (the
// default) is the game's own evaluation.
type Spec struct {
	Text string // the spec as given
	Kind string
	Game string

	name string
	// alpha-beta
	limits alphabeta.Limits
	abOpts alphabeta.Options
	// evalNet is the learned evaluation alpha-beta searches with (nil:
	// the game's own), shared read-only by the spec's players.
	evalNet  *nnue.Net
	evalFile string
	// network
	file   string
	params *net.Params
	base   *infer.Net   // cloned per player
	enc    game.Encoder // the network's encoding of positions
	sims   int
	gumbel bool
	// moveTime bounds each search of a net player (movetime=); sims
	// then bounds it too when given, 0 leaving the time alone.
	moveTime time.Duration
	search   *mcts.Config // NetOptions.Search (nil: defaults)
	// precision of the network's tower (infer.Precisions; "": auto, the
	// faster of fp32 and int8 on this CPU).
	precision string
	m         float64
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
		KindAB:     (*Spec).parseAB,
		KindNet:    (*Spec).parseNet,
		KindABZero: (*Spec).parseABZero,
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
func (s *Spec) Network() *net.Params { return s.params }

// DefaultSims is the simulation count of net players without sims=.
const DefaultSims = 200

// defaultHashMiB is the alpha-beta table of arena players: matches run
// two players per worker, several workers at once.
const defaultHashMiB = 16

// maxABThreads bounds an ab player's threads= (Lazy SMP search threads;
// the default, one, keeps its games deterministic).
const maxABThreads = 64

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
			if slices.Contains(retiredKeys[s.Kind], k) {
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

// parseABOptions reads algo=, hash= and the search features (FEATURE=on|off)
// over base.
func (s *Spec) parseABOptions(base alphabeta.Options, kv map[string]string) error {
	s.abOpts = base
	s.abOpts.HashMiB = defaultHashMiB
	if a, ok := kv["algo"]; ok {
		if !slices.Contains(alphabeta.Algorithms, a) {
			return fmt.Errorf("arena: player %q: unknown algo %q (valid: %s)", s.Text, a, strings.Join(alphabeta.Algorithms, ", "))
		}
		s.abOpts.Algorithm = a
	}
	h, ok, err := s.intArg(kv, "hash", 1, 65536)
	if err != nil {
		return err
	}
	if ok {
		s.abOpts.HashMiB = h
	}
	for _, name := range alphabeta.FeatureNames() {
		v, ok := kv[name]
		if !ok {
			continue
		}
		if v != "on" && v != "off" {
			return fmt.Errorf("arena: player %q: %s=%q is neither on nor off", s.Text, name, v)
		}
		if err := s.abOpts.Set(name, v == "on"); err != nil {
			return fmt.Errorf("arena: player %q: %w", s.Text, err)
		}
	}
	return nil
}

// abKeys are the keys of the alpha-beta options every kind running
// alpha-beta takes.
func abKeys(more ...string) []string {
	return append(append([]string{"algo", "hash", "eval", "evalfile"}, alphabeta.FeatureNames()...), more...)
}

// Values of eval=.
const (
	evalClassical = "classical"
	evalLearned   = "learned"
)

// parseEval reads eval= and evalfile= and loads the learned network.
// evalfile= without eval=learned is refused rather than ignored: a spec
// naming a network would otherwise play the classical evaluation
// unnoticed.
func (s *Spec) parseEval(g game.Game, kv map[string]string) error {
	ev, hasEval := kv["eval"]
	file, hasFile := kv["evalfile"]
	switch {
	case ev == evalLearned:
	case hasEval && ev != evalClassical:
		return fmt.Errorf("arena: player %q: eval=%q (valid: %s, %s)", s.Text, ev, evalClassical, evalLearned)
	case hasFile:
		return fmt.Errorf("arena: player %q: evalfile= needs eval=learned", s.Text)
	default:
		return nil
	}
	if g.Name != xiangqi.Name {
		return fmt.Errorf("arena: player %q: eval=learned is Xiangqi's evaluation, not %s's", s.Text, g.Name)
	}
	if file == "" {
		// The shipped network (models/xiangqi.nnue), decoded once per
		// process.
		n, m, err := nnue.Shipped()
		if err != nil {
			return fmt.Errorf("arena: player %q: eval=learned without evalfile=FILE: %w", s.Text, err)
		}
		s.evalNet, s.evalFile = n, m.String()
		return nil
	}
	n, err := nnue.Load(file)
	if err != nil {
		return fmt.Errorf("arena: player %q: %w", s.Text, err)
	}
	s.evalNet, s.evalFile = n, file
	return nil
}

func (s *Spec) checkAlphaBeta(g game.Game) error {
	p, err := g.New(nil)
	if err != nil {
		return fmt.Errorf("arena: %w", err)
	}
	if _, ok := p.(alphabeta.Position); !ok {
		return fmt.Errorf("arena: player %q: game %s has no alpha-beta support", s.Text, g.Name)
	}
	return nil
}

func (s *Spec) parseAB(g game.Game, kv map[string]string, pos []string) error {
	if err := s.noPositional(pos); err != nil {
		return err
	}
	if err := s.keys(kv, abKeys("depth", "movetime", "nodes", "threads")...); err != nil {
		return err
	}
	if err := s.parseABOptions(alphabeta.DefaultOptionsFor(g.Name), kv); err != nil {
		return err
	}
	th, ok, err := s.intArg(kv, "threads", 1, maxABThreads)
	if err != nil {
		return err
	}
	if ok {
		s.abOpts.Threads = th
	}
	d, _, err := s.intArg(kv, "depth", 1, alphabeta.MaxDepth)
	if err != nil {
		return err
	}
	s.limits.Depth = d
	if v, ok := kv["nodes"]; ok {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			return fmt.Errorf("arena: player %q: nodes=%q is not a positive integer", s.Text, v)
		}
		s.limits.Nodes = n
	}
	if v, ok := kv["movetime"]; ok {
		t, err := parseMoveTime(v)
		if err != nil {
			return fmt.Errorf("arena: player %q: %w", s.Text, err)
		}
		s.limits.Time = t
	}
	if s.limits.Depth == 0 && s.limits.Nodes == 0 && s.limits.Time == 0 {
		return fmt.Errorf("arena: player %q: ab needs depth=N, movetime=MS or nodes=N", s.Text)
	}
	if err := s.checkAlphaBeta(g); err != nil {
		return err
	}
	return s.parseEval(g, kv)
}

// parseMoveTime reads milliseconds ("500") or a duration ("500ms", "2s").
func parseMoveTime(v string) (time.Duration, error) {
	var t time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		t = time.Duration(n) * time.Millisecond
	} else if t, err = time.ParseDuration(v); err != nil {
		return 0, fmt.Errorf("movetime=%q is neither milliseconds nor a duration", v)
	}
	if t <= 0 || t > 24*time.Hour {
		return 0, fmt.Errorf("movetime=%q out of range (0, 24h]", v)
	}
	return t, nil
}

// parseSearch reads sims=, search=, precision=, c_init= and fpu=.
func (s *Spec) parseSearch(kv map[string]string, defSims int) error {
	s.sims = defSims
	n, ok, err := s.intArg(kv, "sims", 0, 10_000_000)
	if err != nil {
		return err
	}
	if ok {
		s.sims = n
	}
	switch v, ok := kv["search"]; {
	case !ok, v == "puct":
	case v == "gumbel":
		s.gumbel = true
	default:
		return fmt.Errorf("arena: player %q: search=%q (valid: puct, gumbel)", s.Text, v)
	}
	if v, ok := kv["precision"]; ok {
		if !slices.Contains(infer.Precisions, v) {
			return fmt.Errorf("arena: player %q: precision=%q (valid: %s)", s.Text, v, strings.Join(infer.Precisions, ", "))
		}
		s.precision = v
	}
	_, hasCInit := kv["c_init"]
	_, hasFPU := kv["fpu"]
	if !hasCInit && !hasFPU {
		return nil // s.search stays nil: SearchConfig's defaults
	}
	c := s.SearchConfig()
	if err := s.floatArg(kv, "c_init", 0, true, &c.CInit); err != nil {
		return err
	}
	if err := s.floatArg(kv, "fpu", 0, false, &c.FPUReduction); err != nil {
		return err
	}
	s.search = &c
	return nil
}

func (s *Spec) parseNet(g game.Game, kv map[string]string, pos []string) error {
	if err := s.keys(kv, "sims", "search", "c_init", "fpu", "precision", "file", "movetime"); err != nil {
		return err
	}
	file, hasFile := kv["file"]
	switch {
	case len(pos) == 1 && !hasFile:
		file = pos[0]
	case len(pos) == 0 && hasFile:
	case len(pos) == 0:
		return fmt.Errorf("arena: player %q: net needs a checkpoint file (net:FILE)", s.Text)
	default:
		return fmt.Errorf("arena: player %q: unexpected argument %q", s.Text, pos[len(pos)-1])
	}
	if err := s.parseSearch(kv, DefaultSims); err != nil {
		return err
	}
	if v, ok := kv["movetime"]; ok {
		t, err := parseMoveTime(v)
		if err != nil {
			return fmt.Errorf("arena: player %q: %w", s.Text, err)
		}
		if s.gumbel {
			return fmt.Errorf("arena: player %q: movetime needs search=puct (Gumbel search fixes its simulations in advance)", s.Text)
		}
		s.moveTime = t
		if _, ok := kv["sims"]; !ok {
			s.sims = 0 // the time alone bounds the search
		}
	}
	return s.load(g, file)
}

func (s *Spec) parseABZero(g game.Game, kv map[string]string, pos []string) error {
	if err := s.noPositional(pos); err != nil {
		return err
	}
	if err := s.keys(kv, abKeys("net", "m", "depth", "sims", "search", "c_init", "fpu", "precision")...); err != nil {
		return err
	}
	for _, k := range []string{"net", "m", "depth"} {
		if _, ok := kv[k]; !ok {
			return fmt.Errorf("arena: player %q: abzero needs net=FILE, m=W and depth=N (%s missing)", s.Text, k)
		}
	}
	m, err := strconv.ParseFloat(kv["m"], 64)
	if err != nil || math.IsNaN(m) || math.IsInf(m, 0) || m < 0 {
		return fmt.Errorf("arena: player %q: m=%q is not a number >= 0", s.Text, kv["m"])
	}
	s.m = m
	if s.limits.Depth, _, err = s.intArg(kv, "depth", 1, alphabeta.MaxDepth); err != nil {
		return err
	}
	// The blend's alpha-beta searches as ab: does, with the game's
	// pruning set (engine.Searcher's abzero mover says why).
	if err := s.parseABOptions(alphabeta.DefaultOptionsFor(g.Name), kv); err != nil {
		return err
	}
	if err := s.parseSearch(kv, DefaultSims); err != nil {
		return err
	}
	if err := s.checkAlphaBeta(g); err != nil {
		return err
	}
	if err := s.parseEval(g, kv); err != nil {
		return err
	}
	return s.load(g, kv["net"])
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
	if err := s.parseSearch(kv, 0); err != nil {
		return err
	}
	if s.sims < 1 {
		return fmt.Errorf("arena: player %q: mcts needs sims >= 1", s.Text)
	}
	return nil
}

// load reads a checkpoint (or a run directory's best one) for game g.
// The network may have any of g's encoders.
func (s *Spec) load(g game.Game, file string) error {
	c, file, g, err := rundir.LoadPlayable(file, g)
	if err != nil {
		return fmt.Errorf("arena: player %q: %w", s.Text, err)
	}
	return s.setNetwork(file, c.Params, g)
}

// setNetwork lays p out for play in s.precision (g, in the network's
// encoding, calibrates an 8-bit tower).
func (s *Spec) setNetwork(file string, p *net.Params, g game.Game) error {
	start, err := g.New(nil)
	if err != nil {
		return fmt.Errorf("arena: player %q: %w", s.Text, err)
	}
	precision := cmp.Or(s.precision, infer.Auto)
	n, err := infer.NewPrecision(p, 1, precision, start, g.Encoder)
	if err != nil {
		return fmt.Errorf("arena: player %q: %w", s.Text, err)
	}
	s.file, s.params, s.base, s.enc = file, p, n, g.Encoder
	return nil
}

// NetOptions configure an in-memory network player (NewNetSpec).
type NetOptions struct {
	Sims   int  // MCTS simulations (0: raw policy)
	Gumbel bool // Gumbel root search instead of PUCT
	// Search, when set, is the MCTS constants to play with (a run's
	// c_init, c_base, FPU, Gumbel, gumbel_m, solver); Gumbel is then
	// taken from it.
	Search *mcts.Config
}

// NewNetSpec makes a spec for a network held in memory (a candidate the
// trainer has not saved, say), named name.
func NewNetSpec(name, gameName string, p *net.Params, o NetOptions) (*Spec, error) {
	g, err := game.Lookup(gameName)
	if err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	if p == nil || p.Spec.Game != g.Name {
		return nil, fmt.Errorf("arena: player %q: network is not for %s", name, g.Name)
	}
	if g, err = g.WithEncoder(p.Spec.EncoderVersion); err != nil {
		return nil, fmt.Errorf("arena: player %q: %w", name, err)
	}
	if o.Sims < 0 {
		return nil, fmt.Errorf("arena: player %q: %d simulations", name, o.Sims)
	}
	s := &Spec{Text: name, Kind: KindNet, Game: g.Name, name: name, sims: o.Sims, gumbel: o.Gumbel}
	if o.Search != nil {
		c := *o.Search
		s.search, s.gumbel = &c, c.Gumbel
	}
	return s, s.setNetwork("", p, g)
}
