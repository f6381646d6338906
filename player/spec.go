package player

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/abzero"
	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/net"
)

// Spec is a searching player: its kind and every knob's value. Parse
// reads one from a spec's keys; Default gives the knobs' defaults, which
// the engine starts from and its options change.
type Spec struct {
	Kind string // KindAB, KindNet or KindABZero
	Game string
	// Network is the network as named (a file, a run directory or a
	// shipped model's name; "" for ab).
	Network string
	// Params, when set, is a network held in memory (NetSpec), played
	// instead of the one Network names.
	Params *net.Params
	Sims   int
	// MoveTime bounds a move (ab; net's PUCT search, Sims then bounding
	// it too when above 0).
	MoveTime time.Duration
	Depth    int    // alpha-beta depth (ab, abzero)
	Nodes    uint64 // alpha-beta nodes (ab)
	// MCTS is the network search's constants: mcts.DefaultConfig with
	// search=, c_init= and fpu= applied.
	MCTS      mcts.Config
	Precision string
	// Eval and EvalFile are alpha-beta's evaluation (EvalClassical or
	// EvalLearned) and the learned network's file ("": the shipped one).
	Eval     string
	EvalFile string
	// AlphaBeta is alpha-beta's options: the game's measured features
	// (alphabeta.DefaultOptionsFor) with algo=, hash=, threads= and
	// FEATURE= applied.
	AlphaBeta alphabeta.Options
	M         float64 // the blend's weight
	// Prior: the blend's pi is the network's prior (ABZeroPolicy prior).
	Prior bool
	// SimShare is the percentage of a timed move the blend's simulations
	// take.
	SimShare int
	// LimitStrength: alpha-beta plays at the strength Elo gives
	// (Strength).
	LimitStrength bool
	Elo           int
}

// Default returns the spec of kind for gameName with every knob at its
// default and no limit.
func Default(kind, gameName string) *Spec {
	ab := alphabeta.DefaultOptionsFor(gameName)
	ab.HashMiB = DefaultInt(KnobHash)
	return &Spec{Kind: kind, Game: gameName, Sims: DefaultInt(KnobSims), MCTS: mcts.DefaultConfig(),
		Precision: Lookup(KnobPrecision).Default, Eval: Lookup(KnobEval).Default, AlphaBeta: ab,
		M: DefaultFloat(KnobM), SimShare: DefaultInt(KnobSimShare), Elo: DefaultInt(KnobElo)}
}

// RetiredKeys are the spec keys, by kind, of switches that were measured
// and retired (docs/retired.md): a spec that still has one is told so.
var RetiredKeys = map[string][]string{
	KindAB:     alphabeta.RetiredFeatures,
	KindNet:    {"discount"},
	KindABZero: append([]string{"discount"}, alphabeta.RetiredFeatures...),
}

// specKeys are the keys each kind takes, from the knobs' declarations.
func specKeys(kind string) []string {
	var out []string
	for _, k := range Knobs {
		if !slices.Contains(k.Kinds, kind) {
			continue
		}
		switch k.Key {
		case KnobFeatures:
			out = append(out, alphabeta.FeatureNames()...)
		case KnobNetwork:
			if kind == KindNet {
				out = append(out, "file")
			} else {
				out = append(out, k.Key)
			}
		default:
			out = append(out, k.Key)
		}
	}
	return out
}

// Keys lists the keys a kind's spec takes.
func Keys(kind string) []string { return specKeys(kind) }

// Parse reads the keys kv and positional arguments pos of a spec of kind
// (ab, net or abzero) for gameName; the caller has taken name= out.
// Errors name the key and the problem; the caller adds the spec. It loads
// nothing: LoadNetwork and LoadEval do.
func Parse(kind, gameName string, kv map[string]string, pos []string) (*Spec, error) {
	g, err := game.Lookup(gameName)
	if err != nil {
		return nil, err
	}
	s := Default(kind, g.Name)
	if err := checkKeys(kind, kv); err != nil {
		return nil, err
	}
	switch kind {
	case KindAB:
		return s, s.parseAB(g, kv, pos)
	case KindNet:
		return s, s.parseNet(kv, pos)
	case KindABZero:
		return s, s.parseABZero(g, kv, pos)
	}
	return nil, fmt.Errorf("unknown kind %q (valid: %s, %s, %s)", kind, KindAB, KindNet, KindABZero)
}

// checkKeys refuses keys the kind does not take, naming retired ones.
func checkKeys(kind string, kv map[string]string) error {
	allowed := specKeys(kind)
	for k := range kv {
		if slices.Contains(allowed, k) {
			continue
		}
		if slices.Contains(RetiredKeys[kind], k) {
			return fmt.Errorf("%s= was retired (docs/retired.md)", k)
		}
		return fmt.Errorf("unknown key %q for %s (valid: %s)", k, kind, strings.Join(append(allowed, "name"), ", "))
	}
	return nil
}

func noPositional(pos []string) error {
	if len(pos) > 0 {
		return fmt.Errorf("unexpected argument %q (want key=value)", pos[0])
	}
	return nil
}

// intKey reads an integer knob's key when given.
func intKey(kv map[string]string, key string) (int, bool, error) {
	v, ok := kv[key]
	if !ok {
		return 0, false, nil
	}
	n, err := Lookup(key).parseInt(v)
	if err != nil {
		return 0, false, fmt.Errorf("%s=%w", key, err)
	}
	return n, true, nil
}

// floatKey reads a number knob's key into dst when given.
func floatKey(kv map[string]string, key string, dst *float64) error {
	v, ok := kv[key]
	if !ok {
		return nil
	}
	f, err := Lookup(key).parseFloat(v)
	if err != nil {
		return fmt.Errorf("%s=%w", key, err)
	}
	*dst = f
	return nil
}

// choiceKey reads a choice knob's key when given.
func choiceKey(kv map[string]string, key string) (string, bool, error) {
	v, ok := kv[key]
	if !ok {
		return "", false, nil
	}
	if err := Lookup(key).Check(v); err != nil {
		return "", false, fmt.Errorf("%s=%w", key, err)
	}
	return v, true, nil
}

// ParseMoveTime reads milliseconds ("500") or a duration ("500ms", "2s").
func ParseMoveTime(v string) (time.Duration, error) {
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

// parseAlphaBeta reads algo=, hash= and the features (FEATURE=on|off).
func (s *Spec) parseAlphaBeta(kv map[string]string) error {
	if a, ok := kv[KnobAlgo]; ok {
		if !slices.Contains(alphabeta.Algorithms, a) {
			return fmt.Errorf("unknown algo %q (valid: %s)", a, strings.Join(alphabeta.Algorithms, ", "))
		}
		s.AlphaBeta.Algorithm = a
	}
	if h, ok, err := intKey(kv, KnobHash); err != nil {
		return err
	} else if ok {
		s.AlphaBeta.HashMiB = h
	}
	for _, name := range alphabeta.FeatureNames() {
		v, ok := kv[name]
		if !ok {
			continue
		}
		if v != featureOn && v != featureOff {
			return fmt.Errorf("%s=%q is neither on nor off", name, v)
		}
		if err := s.AlphaBeta.Set(name, v == featureOn); err != nil {
			return err
		}
	}
	return nil
}

// parseEval reads eval= and evalfile=. evalfile= without eval=learned is
// refused rather than ignored: a spec naming a network would otherwise
// play the classical evaluation unnoticed.
func (s *Spec) parseEval(g game.Game, kv map[string]string) error {
	ev, hasEval := kv[KnobEval]
	file, hasFile := kv[KnobEvalFile]
	switch {
	case ev == EvalLearned:
	case hasEval && ev != EvalClassical:
		return fmt.Errorf("eval=%q (valid: %s, %s)", ev, EvalClassical, EvalLearned)
	case hasFile:
		return errors.New("evalfile= needs eval=learned")
	default:
		return nil
	}
	if !HasLearnedEval(g.Name) {
		return fmt.Errorf("eval=learned is Xiangqi's evaluation, not %s's", g.Name)
	}
	s.Eval, s.EvalFile = EvalLearned, file
	return nil
}

// HasLearnedEval reports whether alpha-beta has a learned evaluation
// (eval=learned, package nnue) for the game gameName: Xiangqi's.
func HasLearnedEval(gameName string) bool { return gameName == xiangqi.Name }

// HasAlphaBeta reports whether alpha-beta (ab:, abzero:) plays the game
// gameName.
func HasAlphaBeta(gameName string) bool {
	g, err := game.Lookup(gameName)
	return err == nil && checkAlphaBeta(g) == nil
}

func checkAlphaBeta(g game.Game) error {
	p, err := g.New(nil)
	if err != nil {
		return err
	}
	if _, ok := p.(alphabeta.Position); !ok {
		return fmt.Errorf("game %s has no alpha-beta support", g.Name)
	}
	return nil
}

func (s *Spec) parseAB(g game.Game, kv map[string]string, pos []string) error {
	if err := noPositional(pos); err != nil {
		return err
	}
	if err := s.parseAlphaBeta(kv); err != nil {
		return err
	}
	if th, ok, err := intKey(kv, KnobThreads); err != nil {
		return err
	} else if ok {
		s.AlphaBeta.Threads = th
	}
	d, _, err := intKey(kv, KnobDepth)
	if err != nil {
		return err
	}
	s.Depth = d
	if v, ok := kv[KnobNodes]; ok {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			return fmt.Errorf("nodes=%q is not a positive integer", v)
		}
		s.Nodes = n
	}
	if v, ok := kv[KnobMoveTime]; ok {
		if s.MoveTime, err = ParseMoveTime(v); err != nil {
			return err
		}
	}
	if elo, ok, err := intKey(kv, KnobElo); err != nil {
		return err
	} else if ok {
		// elo= alone limits the strength; limit_strength=false keeps
		// it full.
		s.Elo, s.LimitStrength = elo, true
	}
	if v, ok, err := choiceKey(kv, KnobLimit); err != nil {
		return err
	} else if ok {
		s.LimitStrength = v == "true"
	}
	if s.Depth == 0 && s.Nodes == 0 && s.MoveTime == 0 && !s.LimitStrength {
		return errors.New("ab needs depth=N, movetime=MS, nodes=N or elo=E")
	}
	if err := checkAlphaBeta(g); err != nil {
		return err
	}
	return s.parseEval(g, kv)
}

// searchKeys are the keys SetSearch reads: every key of the net kind
// (Knob.Kinds) but the network and the time, which parseNet reads itself,
// so that a new search knob is read from its row alone.
var searchKeys = func() []string {
	var out []string
	for _, k := range Knobs {
		if slices.Contains(k.Kinds, KindNet) && k.Key != KnobNetwork && k.Key != KnobMoveTime {
			out = append(out, k.Key)
		}
	}
	return out
}()

// SetSearch reads sims=, search=, c_init=, fpu= and precision= over the
// spec's values (the arena's network-free mcts: kind reads them too).
func (s *Spec) SetSearch(kv map[string]string) error {
	for _, key := range searchKeys {
		v, ok := kv[key]
		if !ok {
			continue
		}
		k := Lookup(key)
		if err := k.Check(v); err != nil {
			return fmt.Errorf("%s=%w", key, err)
		}
		s.set(k, v)
	}
	return nil
}

func (s *Spec) parseNet(kv map[string]string, pos []string) error {
	file, hasFile := kv["file"]
	switch {
	case len(pos) == 1 && !hasFile:
		file = pos[0]
	case len(pos) == 0 && hasFile:
	case len(pos) == 0:
		return errors.New("net needs a checkpoint file (net:FILE)")
	default:
		return fmt.Errorf("unexpected argument %q", pos[len(pos)-1])
	}
	s.Network = file
	if err := s.SetSearch(kv); err != nil {
		return err
	}
	if v, ok := kv[KnobMoveTime]; ok {
		t, err := ParseMoveTime(v)
		if err != nil {
			return err
		}
		if s.MCTS.Gumbel {
			return errors.New("movetime needs search=puct (Gumbel search fixes its simulations in advance)")
		}
		s.MoveTime = t
		if _, ok := kv[KnobSims]; !ok {
			s.Sims = 0 // the time alone bounds the search
		}
	}
	return nil
}

func (s *Spec) parseABZero(g game.Game, kv map[string]string, pos []string) error {
	if err := noPositional(pos); err != nil {
		return err
	}
	for _, k := range []string{KnobNetwork, KnobM, KnobDepth} {
		if _, ok := kv[k]; !ok {
			return fmt.Errorf("abzero needs net=FILE, m=W and depth=N (%s missing)", k)
		}
	}
	if err := floatKey(kv, KnobM, &s.M); err != nil {
		return err
	}
	var err error
	if s.Depth, _, err = intKey(kv, KnobDepth); err != nil {
		return err
	}
	// The blend's alpha-beta searches as ab: does, with the game's
	// pruning set: it scores exactly only the moves its weight can lift
	// to the top, so pruning costs the scores nothing the blend reads.
	if err := s.parseAlphaBeta(kv); err != nil {
		return err
	}
	if err := s.SetSearch(kv); err != nil {
		return err
	}
	if err := checkAlphaBeta(g); err != nil {
		return err
	}
	if err := s.parseEval(g, kv); err != nil {
		return err
	}
	s.Network = kv[KnobNetwork]
	return nil
}

// ABLimits are the alpha-beta limits of an ab spec, its strength's node
// budget included.
func (s *Spec) ABLimits() alphabeta.Limits {
	lim := alphabeta.Limits{Depth: s.Depth, Nodes: s.Nodes, Time: s.MoveTime}
	if st, ok := s.Strength(""); ok {
		lim = st.Limit(lim)
	}
	return lim
}

// ABZeroConfig is the blend's configuration: weight, depth, simulations,
// search constants and alpha-beta options of the spec.
func (s *Spec) ABZeroConfig() abzero.Config {
	cfg := abzero.DefaultConfig(s.M, s.Depth, s.Sims)
	cfg.MCTS = s.MCTS
	cfg.AlphaBeta = s.AlphaBeta
	return cfg
}

// SetOption sets the knob behind an engine option; ok is false for
// options no knob declares. Options that load something (Network,
// EvalFile) and the mover are the caller's: they are checked here and
// kept as text.
func (s *Spec) SetOption(name, value string) (ok bool, err error) {
	k, ok := ByUCI(name)
	if !ok {
		return false, nil
	}
	if err := k.Check(value); err != nil {
		return true, fmt.Errorf("option %s: %w", k.UCI, err)
	}
	s.set(k, value)
	return true, nil
}

// set sets a knob to a value k.Check accepted: the one place a knob's
// value reaches the spec, from a spec key and from an engine option.
func (s *Spec) set(k Knob, value string) {
	value = strings.TrimSpace(value)
	n, _ := strconv.Atoi(value)
	f, _ := strconv.ParseFloat(value, 64)
	switch k.Key {
	case KnobSims:
		s.Sims = n
	case KnobSearch:
		s.MCTS.Gumbel = value == SearchGumbel
	case KnobCInit:
		s.MCTS.CInit = f
	case KnobFPU:
		s.MCTS.FPUReduction = f
	case KnobPrecision:
		s.Precision = value
	case KnobEval:
		s.Eval = value
	case KnobEvalFile:
		s.EvalFile = value
	case KnobThreads:
		s.AlphaBeta.Threads = n
	case KnobHash:
		s.AlphaBeta.HashMiB = n
	case KnobAlgo:
		s.AlphaBeta.Algorithm = value
	case KnobM:
		s.M = f
	case KnobPolicy:
		s.Prior = value == PolicyPrior
	case KnobSimShare:
		s.SimShare = n
	case KnobLimit:
		s.LimitStrength = value == "true"
	case KnobElo:
		s.Elo = n
	case KnobNetwork:
		s.Network = value
	case KnobMover:
		s.Kind = value
		if value == MoverMCTS {
			s.Kind = KindNet
		}
	}
}
