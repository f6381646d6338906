// Package player is the one player layer: every play-time knob declared
// once (Knobs: its spec key, its engine option, its default, range or
// values, and help), the spec grammar of the searching players (ab:,
// net:, abzero:; Parse) and its usage text (SpecForms, KeyUsage), the
// spec of a network held in memory (NetSpec) and the movers built from a
// spec (Spec.NewMover), with the networks and learned evaluations they
// load (Spec.LoadNetwork, LoadEval) and self-play's batched forward pass
// (OpenForwarder). The arena's players, the trainer's match players, the
// engine's movers and the dashboard's Play page are built here, so the
// same spec plays the same moves through each of them and a new knob is
// declared in one place.
package player

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/net/infer"
)

// Spec kinds: the searching players this package builds.
const (
	KindAB     = "ab"
	KindNet    = "net"
	KindABZero = "abzero"
)

// Engine mover names (the Mover knob's values): the engine calls the
// network's search mcts where a spec says net.
const (
	MoverAB     = "ab"
	MoverMCTS   = "mcts"
	MoverABZero = "abzero"
)

// Values of the search and eval knobs, and of the blend's policy.
const (
	SearchPUCT     = "puct"
	SearchGumbel   = "gumbel"
	EvalClassical  = "classical"
	EvalLearned    = "learned"
	PolicyVisits   = "visits"
	PolicyPrior    = "prior"
	featureOn      = "on"
	featureOff     = "off"
	maxSpecSims    = 10_000_000
	maxSpecHashMiB = 4096
)

// Knob is one play-time setting, declared once: the spec key that sets
// it (ab:, net:, abzero:), the engine option that sets it, its default,
// its range (Min..Max for numbers) or its values, and a line of help.
type Knob struct {
	Key   string   // the spec key ("" where no spec sets it)
	Kinds []string // the spec kinds that take Key
	UCI   string   // the engine option ("" where the engine has none)
	// Default is the value a spec without the key and a new engine
	// play with ("" for a knob without one, such as a required limit).
	Default string
	// EngineDefault, where set, is a new engine's value instead of
	// Default. A spec is a measurement's fixed player (the outside
	// ladder's rungs, the presets' teachers and gates are ab: specs), so
	// its defaults stay put; the engine is what a user plays, so it
	// plays the stronger setting once one is measured stronger.
	EngineDefault string
	Int           bool    // an integer (else a float when Min < Max)
	Min           float64 // the range when Min < Max
	Max           float64
	// Above: the value must be above Min, not at it.
	Above  bool
	Values []string // the allowed values, when a choice
	Help   string
}

// Names of the knobs (Knob.Key where a spec sets them).
const (
	KnobMover     = "mover"
	KnobNetwork   = "net"
	KnobSims      = "sims"
	KnobMoveTime  = "movetime"
	KnobNodes     = "nodes"
	KnobDepth     = "depth"
	KnobSearch    = "search"
	KnobCInit     = "c_init"
	KnobFPU       = "fpu"
	KnobPrecision = "precision"
	KnobEval      = "eval"
	KnobEvalFile  = "evalfile"
	KnobThreads   = "threads"
	KnobHash      = "hash"
	KnobAlgo      = "algo"
	KnobFeatures  = "FEATURE"
	KnobM         = "m"
	KnobPolicy    = "abzero_policy"
	KnobSimShare  = "abzero_sim_share"
	KnobLimit     = "limit_strength"
	KnobElo       = "elo"
)

// CheckValues are a switch's values: an engine option of these is a
// check box (uci.CheckValues, which xboard sets by 1 or 0).
var CheckValues = []string{"false", "true"}

// The range of the strength knob (UCI_Elo): Xiangqi's ladder runs from
// random play, about -400, to Fairy-Stockfish at 30,000 nodes, about
// 1,050 (docs/xiangqi-ladder.md).
const (
	minElo = -400
	maxElo = 1000
)

// defaultMCTS is the search constants a spec starts from.
var defaultMCTS = mcts.DefaultConfig()

// Knobs are the play-time knobs. Spec parsing, the engine's options and
// the Play page's choices are derived from them.
var Knobs = []Knob{
	{Key: KnobMover, UCI: "Mover", Default: MoverAB, Values: []string{MoverAB, MoverMCTS, MoverABZero},
		Help: "the mover: alpha-beta, the network's MCTS or the Alpha-Beta-Zero blend (in a spec, its kind: ab:, net:, abzero:)"},
	{Key: KnobNetwork, Kinds: []string{KindNet, KindABZero}, UCI: "Network",
		Help: "the network: a checkpoint file, a run directory (its best checkpoint) or a game's name (its shipped model); net:FILE or file=FILE, abzero's net=FILE"},
	{Key: KnobSims, Kinds: []string{KindNet, KindABZero}, UCI: "Simulations", Default: "200", Int: true, Min: 0, Max: maxSpecSims,
		Help: "MCTS simulations a move (0: the network's raw policy)"},
	{Key: KnobMoveTime, Kinds: []string{KindAB, KindNet},
		Help: "the time a move: milliseconds or a Go duration (500ms), at most 24h; net: PUCT searching until it is up"},
	{Key: KnobNodes, Kinds: []string{KindAB}, Int: true, Min: 1, Max: math.MaxUint64,
		Help: "alpha-beta nodes a move"},
	{Key: KnobDepth, Kinds: []string{KindAB, KindABZero}, Default: "4", Int: true, Min: 1, Max: alphabeta.MaxDepth,
		Help: "alpha-beta depth a move (the blend's without a depth or time limit: the default)"},
	{Key: KnobSearch, Kinds: []string{KindNet, KindABZero}, UCI: "Search", Default: SearchPUCT, Values: []string{SearchPUCT, SearchGumbel},
		Help: "the MCTS root search: PUCT or Gumbel (Gumbel needs a simulation budget: no movetime)"},
	{Key: KnobCInit, Kinds: []string{KindNet, KindABZero}, UCI: "CInit", Default: strconv.FormatFloat(defaultMCTS.CInit, 'g', -1, 64), Min: 0, Max: math.MaxFloat64, Above: true,
		Help: "PUCT's exploration constant c_init (the run config's search.c_init)"},
	{Key: KnobFPU, Kinds: []string{KindNet, KindABZero}, UCI: "FPU", Default: strconv.FormatFloat(defaultMCTS.FPUReduction, 'g', -1, 64), Min: 0, Max: math.MaxFloat64,
		Help: "first-play urgency reduction (the run config's search.fpu_reduction)"},
	{Key: KnobPrecision, Kinds: []string{KindNet, KindABZero}, UCI: "Precision", Default: infer.Auto, Values: infer.Precisions,
		Help: "the network's arithmetic: auto is int8 where the CPU has AVX-512 VNNI or AVX-VNNI, else fp32"},
	{Key: KnobEval, Kinds: []string{KindAB, KindABZero}, UCI: "Eval", Default: EvalClassical, EngineDefault: EvalLearned, Values: []string{EvalClassical, EvalLearned},
		Help: "alpha-beta's evaluation: the game's own, or Xiangqi's learned one (evalfile, or the shipped models/xiangqi.nnue)"},
	{Key: KnobEvalFile, Kinds: []string{KindAB, KindABZero}, UCI: "EvalFile",
		Help: "the learned evaluation's .nnue file (tabula nnue train); a spec needs eval=learned with it"},
	{Key: KnobThreads, Kinds: []string{KindAB}, UCI: "Threads", Default: "1", Int: true, Min: 1, Max: 64,
		Help: "alpha-beta's Lazy SMP threads (the engine's network search: the cores it evaluates leaves on)"},
	{Key: KnobLimit, Kinds: []string{KindAB}, UCI: "UCI_LimitStrength", Default: "false", Values: CheckValues,
		Help: "alpha-beta plays at the strength elo gives (a node budget a move, and some random moves at the lowest levels; docs/strength.md); a spec's elo= turns it on"},
	{Key: KnobElo, Kinds: []string{KindAB}, UCI: "UCI_Elo", Default: "0", Int: true, Min: minElo, Max: maxElo,
		Help: "the strength with limit_strength: Xiangqi's outside ladder's Elo (ab:depth=1 at 0, random play about -400); nominal for Connect Four and Catch the Lion"},
	{Key: KnobHash, Kinds: []string{KindAB, KindABZero}, UCI: "Hash", Default: "16", Int: true, Min: 1, Max: maxSpecHashMiB,
		Help: "alpha-beta's table in MiB"},
	{Key: KnobAlgo, Kinds: []string{KindAB, KindABZero}, UCI: "Algorithm", Default: alphabeta.DefaultOptions().Algorithm, Values: alphabeta.Algorithms,
		Help: "the alpha-beta algorithm"},
	{Key: KnobFeatures, Kinds: []string{KindAB, KindABZero}, Values: []string{featureOn, featureOff},
		Help: "an alpha-beta feature (alphabeta.FeatureNames) on or off; default each game's measured set (alphabeta.DefaultOptionsFor)"},
	{Key: KnobM, Kinds: []string{KindABZero}, UCI: "ABZeroWeight", Default: "1", Min: 0, Max: math.MaxFloat64,
		Help: "the blend's weight m of the network's share: V = pi*m + alpha-beta's score in soldiers"},
	{Key: KnobPolicy, UCI: "ABZeroPolicy", Default: PolicyVisits, Values: []string{PolicyVisits, PolicyPrior},
		Help: "the blend's pi: the visit share, or the network's prior (one forward pass)"},
	{Key: KnobSimShare, UCI: "ABZeroSimShare", Default: "25", Int: true, Min: 1, Max: 90,
		Help: "the percentage of a timed move the blend's simulations take before alpha-beta"},
}

// Lookup returns the knob of a name (Knob.Key).
func Lookup(name string) Knob {
	for _, k := range Knobs {
		if k.Key == name {
			return k
		}
	}
	panic("player: no knob " + name)
}

// EngineValue is a new engine's value of the knob: EngineDefault where
// set, else Default.
func (k Knob) EngineValue() string {
	if k.EngineDefault != "" {
		return k.EngineDefault
	}
	return k.Default
}

// number returns a knob's default as a number (0 for text knobs).
func (k Knob) number() float64 {
	f, _ := strconv.ParseFloat(k.Default, 64)
	return f
}

// DefaultInt returns an integer knob's default.
func DefaultInt(name string) int { return int(Lookup(name).number()) }

// DefaultFloat returns a number knob's default.
func DefaultFloat(name string) float64 { return Lookup(name).number() }

// Option is the engine option of a knob: a spin for integers, a combo
// for choices, a string otherwise (Network, EvalFile, and the floats
// c_init, fpu and m, which UCI's integer spin cannot hold).
func (k Knob) Option() game.Option {
	o := game.Option{Name: k.UCI, Default: k.EngineValue(), Values: k.Values, Help: k.Help}
	if k.Int {
		o.Min, o.Max = int(k.Min), int(min(k.Max, math.MaxInt32))
	}
	return o
}

// UCIOptions returns the engine options of the knobs that have one, in
// the table's order.
func UCIOptions() []game.Option {
	var out []game.Option
	for _, k := range Knobs {
		if k.UCI != "" {
			out = append(out, k.Option())
		}
	}
	return out
}

// StringOptions are the engine options given as free text.
func StringOptions() []string {
	var out []string
	for _, k := range Knobs {
		if k.UCI != "" && !k.Int && k.Values == nil {
			out = append(out, k.UCI)
		}
	}
	return out
}

// ByUCI returns the knob behind an engine option.
func ByUCI(name string) (Knob, bool) {
	for _, k := range Knobs {
		if k.UCI != "" && strings.EqualFold(k.UCI, name) {
			return k, true
		}
	}
	return Knob{}, false
}

// Check reads value as the knob takes it, naming the problem: an integer
// or a number in range, or one of the values.
func (k Knob) Check(value string) error {
	switch {
	case k.Values != nil:
		if !slices.Contains(k.Values, value) {
			return fmt.Errorf("%q (valid: %s)", value, strings.Join(k.Values, ", "))
		}
	case k.Int:
		if _, err := k.parseInt(value); err != nil {
			return err
		}
	case k.Min < k.Max:
		if _, err := k.parseFloat(value); err != nil {
			return err
		}
	}
	return nil
}

func (k Knob) parseInt(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", v)
	}
	if float64(n) < k.Min || float64(n) > k.Max {
		return 0, fmt.Errorf("%d out of range [%d, %d]", n, int(k.Min), int(k.Max))
	}
	return n, nil
}

func (k Knob) parseFloat(v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	nonNeg := k.Min == 0 && !k.Above
	if nonNeg && (err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0) {
		return 0, fmt.Errorf("%q is not a number >= 0", v)
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a number", v)
	}
	if f < k.Min {
		return 0, fmt.Errorf("%v out of range (want >= %v)", f, k.Min)
	}
	if k.Above && f <= k.Min {
		return 0, fmt.Errorf("%v out of range (want > %v)", f, k.Min)
	}
	return f, nil
}
