package configs

import (
	"math"
	"time"

	"github.com/tabula-zero/tabula/data"
)

// Option is one config field, declared once: its YAML path, its default,
// the values it may take and one line of help. Validate, Defaults and the
// config reference (docs/config.md) are derived from the table options; a
// test fails when a YAML field of Config has no entry or an entry lacks
// any of these.
type Option struct {
	// Path is the dotted YAML key. "[]" after a list's key stands for
	// each of its items: gating.matches[].games.
	Path string
	// Default is the value in the field's Go type (a test holds the two
	// equal). Fields in a list item or an optional section, and fields
	// that earlier builds left out of frozen copies when zero (omitempty),
	// default to their zero value: a text that leaves them out then reads
	// the same whatever the defaults.
	Default any
	// Required: no default; the config must set it (an empty string is
	// "missing"; a number's range excludes zero).
	Required bool
	// One of Range (numbers, durations and each number of a list), Values
	// (strings) or Rule (prose for what a named check or Syntax enforces)
	// says what the field may hold; booleans need none.
	Range  *Range
	Values []string
	Rule   string
	// Syntax, if set, reads a text field as its reader does (the error
	// is the field's): a grammar the table cannot express, checked by
	// Validate itself, so a config is checked whole whatever the program
	// links.
	Syntax func(string) error
	// When, if set, limits the field's checks to configs where it holds
	// (the abzero fields while the section is off are not checked).
	When *Condition
	Help string
}

// Range is a closed interval of numbers [Min, Max] (Max +Inf: no upper
// bound). Durations are in nanoseconds.
type Range struct {
	Min, Max float64
	// MinOf and MaxOf name another numeric field whose value tightens the
	// bound: opening_plies_max is at least opening_plies.
	MinOf, MaxOf string
	// ZeroOff: 0 is allowed too and means off.
	ZeroOff bool
	// Even, when set, is why the value must be even.
	Even string
	// Why is added to the error.
	Why string
}

// in is the range [lo, hi].
func in(lo, hi float64) *Range { return &Range{Min: lo, Max: hi} }

// atLeast is the range [lo, +Inf).
func atLeast(lo float64) *Range { return &Range{Min: lo, Max: math.Inf(1)} }

// Condition is when a field's checks apply, with the words the docs use.
type Condition struct {
	Doc string
	On  func(*Config) bool
}

var (
	abzeroOn  = &Condition{"selfplay.abzero is set", func(c *Config) bool { return c.SelfPlay.ABZero != (SelfPlayABZero{}) }}
	teacherOn = &Condition{"selfplay.abzero.teacher_generations > 0", func(c *Config) bool {
		return c.SelfPlay.ABZero.TeacherGenerations > 0
	}}
	evaluationOn = &Condition{"the evaluation section is set", func(c *Config) bool {
		e := c.Evaluation
		if e.Every != 0 || len(e.Matches) > 0 {
			return true
		}
		return len(e.Sections()) > 0
	}}
	piecewise = &Condition{"training.schedule is piecewise", func(c *Config) bool { return c.Training.Schedule == "piecewise" }}
	cosine    = &Condition{"training.schedule is cosine", func(c *Config) bool { return c.Training.Schedule == "cosine" }}
)

// options is the table of every config field. The defaults are the
// Connect Four preset's values with every switch off, but for the search
// constants: theirs are mcts.DefaultConfig's, the search's own, which the
// engine and the arena play with too (player.RunSearch maps the section;
// player's TestRunSearchDefaults fails if a row here and mcts disagree).
// Every preset sets the search constants it differs in, Connect Four's
// included; the presets list what differs (docs/presets.md says why).
var options = []Option{
	{Path: "game", Required: true, Rule: "a game this build registers (game.Lookup)", Help: "the game to learn"},
	{Path: "rules", Default: map[string]string{}, Rule: "the game's rule options (game.Options; the game checks them)", Help: "rule variants, e.g. Catch the Lion's TryRule or a PlyCap"},
	{Path: "seed", Default: uint64(1), Rule: "any unsigned 64-bit number", Help: "seed of the run's random numbers (self-play, training batches)"},

	{Path: "network.blocks", Default: 4, Range: in(0, 40), Help: "residual blocks of the tower"},
	{Path: "network.filters", Default: 32, Range: in(1, 512), Help: "channels of the tower's convolutions"},
	{Path: "network.policy_channels", Default: 2, Range: in(1, 64), Help: "channels of the policy head's convolution (the from-to head's features per square)"},
	{Path: "network.value_channels", Default: 1, Range: in(1, 64), Help: "channels of the value head's convolution"},
	{Path: "network.value_hidden", Default: 32, Range: in(1, 1024), Help: "units of the value head's hidden layer"},
	{Path: "network.encoder_version", Default: 0, Rule: "one of the game's encoder versions (0: the game's default)", Help: "the input encoding; a new one is opt-in so that runs of an earlier one still resume"},
	{Path: "network.policy_head", Default: "", Values: []string{"fromto", ""}, Help: "fromto: each move's logit a bilinear form of its two squares' features (needs an action for every pair of squares); empty: a dense layer"},
	{Path: "network.value_head", Default: "", Values: []string{"wdl", ""}, Help: "wdl: the probabilities of a win, a draw and a loss (a softmax over three logits, trained on the result's class; the search backs up W - L); empty: one tanh value"},

	{Path: "search.simulations", Default: 100, Range: in(1, 100000), Help: "simulations of a full self-play search"},
	{Path: "search.kind", Default: "puct", Values: []string{"puct", "gumbel"}, Help: "root search: AlphaZero's PUCT with Dirichlet noise, or Gumbel sequential halving"},
	{Path: "search.c_init", Default: 1.25, Range: in(0, 100), Help: "PUCT exploration constant"},
	{Path: "search.c_base", Default: 19652.0, Range: in(1, 1e9), Help: "visits over which PUCT's exploration grows"},
	{Path: "search.fpu_reduction", Default: 0.25, Range: in(0, 2), Help: "first-play urgency: an unvisited child's value is its parent's minus this"},
	{Path: "search.dirichlet_alpha", Default: 0.3, Range: in(0, 100), Help: "root noise concentration (about 10 / typical number of legal moves)"},
	{Path: "search.noise_epsilon", Default: 0.25, Range: in(0, 1), Help: "share of root noise in the prior"},
	{Path: "search.gumbel_m", Default: 16, Range: in(1, 1000), Help: "Gumbel: moves sampled at the root"},
	{Path: "search.solver", Default: true, Help: "prove wins, losses and draws in the tree (MCTS-solver)"},
	{Path: "search.full_search_share", Default: 1.0, Range: in(0.01, 1), Help: "playout-cap randomisation: share of moves searched in full and recorded (1: off)"},
	{Path: "search.fast_simulations", Default: 16, Range: in(1, 100000), Help: "playout-cap randomisation: simulations of the other, unrecorded moves"},
	{Path: "search.proven_targets", Default: false, Help: "a solver-proven root's policy target is its quickest wins, not its visits"},

	{Path: "selfplay.parallel_games", Default: 64, Range: in(1, 4096), Help: "games a worker plays at once"},
	{Path: "selfplay.batch_size", Default: 32, Range: in(1, 4096), Help: "positions evaluated in one network batch"},
	{Path: "selfplay.flush_after_us", Default: 200, Range: in(0, 1000000), Help: "microseconds a partial batch waits before it is evaluated"},
	{Path: "selfplay.cache_size", Default: 262144, Range: in(0, 1<<26), Help: "entries of the network evaluation cache (0: none)"},
	{Path: "selfplay.temperature_plies", Default: 8, Range: in(0, 1000), Help: "plies played in proportion to visits before the best move is played"},
	{Path: "selfplay.opening_plies", Default: 0, Range: in(0, 100), Help: "uniformly random plies that start every game (not recorded; they count towards temperature_plies)"},
	{Path: "selfplay.opening_plies_max", Default: 0, Range: &Range{Min: 1, Max: 100, MinOf: "selfplay.opening_plies", ZeroOff: true}, Help: "when set, each game's random plies are drawn from [opening_plies, opening_plies_max]"},
	{Path: "selfplay.surprise_weight", Default: 0.0, Range: in(0, 1), Help: "KataGo's policy-surprise weighting: a position is recorded (1-a) + a*KL/mean(KL) times (0: off)"},
	{Path: "selfplay.discount", Default: 0.0, Range: &Range{Min: 0.5, Max: 1, ZeroOff: true}, Help: "a sample's result shrinks by this factor per ply to the game's end, so quick wins are worth more (0: off)"},
	{Path: "selfplay.shard_samples", Default: 2000, Range: in(1, data.MaxSamples), Help: "samples per replay shard file (at most what a shard may hold, which readers refuse past)"},
	{Path: "selfplay.precision", Default: "auto", Values: append(append([]string(nil), Precisions...), ""), Help: "self-play network arithmetic: auto (int8 where the CPU has AVX-512 VNNI or AVX-VNNI, else fp32: no weaker at equal simulations, docs/results.md), fp32 (also empty: a run sealed before auto was the default) or int8 (the calibrated 8-bit tower)"},
	{Path: "selfplay.abzero.generations", Default: 0, Range: in(0, 1<<20), When: abzeroOn, Help: "Alpha-Beta-Zero: the blend plays while the self-play network's generation is below this (0: off)"},
	{Path: "selfplay.abzero.depth", Default: 0, Range: in(1, 12), When: abzeroOn, Help: "Alpha-Beta-Zero: depth of the multi-PV alpha-beta search"},
	{Path: "selfplay.abzero.m", Default: "", Rule: "W, linear:LOW,HIGH,FROM,TO or step:LOW,HIGH,AT (ParseSchedule)", Syntax: checkWeights, When: abzeroOn, Help: "Alpha-Beta-Zero: the network's weight (in soldiers) over generations"},
	{Path: "selfplay.abzero.value_scale", Default: 0.0, Range: in(0, 1e6), When: abzeroOn, Help: "when positive, a blended move's root value is alpha-beta's tanh(score/value_scale) (0: the search's)"},
	{Path: "selfplay.abzero.teacher_generations", Default: 0, Range: &Range{Min: 0, Max: 1 << 20, MaxOf: "selfplay.abzero.generations"}, When: abzeroOn, Help: "alpha-beta alone plays and teaches while the generation is below this (0: off)"},
	{Path: "selfplay.abzero.teacher_temperature", Default: 0.0, Range: in(0.001, 1000), When: teacherOn, Help: "the teacher's policy target is softmax(score/this), in soldiers"},

	{Path: "replay.window", Default: 60000, Range: in(1, 1<<26), Help: "samples in the replay window"},
	{Path: "replay.min_samples", Default: 2000, Range: &Range{Min: 1, Max: 1 << 26, MaxOf: "replay.window"}, Help: "samples needed before training starts"},

	{Path: "training.batch_size", Default: 128, Range: in(1, 8192), Help: "positions per SGD step"},
	{Path: "training.steps_per_generation", Default: 100, Range: in(1, 1<<24), Help: "SGD steps between candidates"},
	{Path: "training.sample_ratio", Default: 6.0, Range: in(0, 1e6), Help: "at most this many training samples drawn per new self-play sample (0: no limit)"},
	{Path: "training.schedule", Default: "piecewise", Values: []string{"piecewise", "cosine"}, Help: "learning-rate schedule"},
	{Path: "training.learning_rate", Default: 0.02, Range: in(1e-9, 10), Help: "the rate before the first boundary (piecewise) or the cosine's peak"},
	{Path: "training.boundaries", Default: []int64{20000, 40000}, Rule: "increasing steps, one per rate (piecewise)", Help: "piecewise: steps where the rate changes"},
	{Path: "training.rates", Default: []float64{0.01, 0.002}, Range: in(1e-9, 10), When: piecewise, Help: "piecewise: the rate from each boundary on"},
	{Path: "training.warmup_steps", Default: int64(0), Range: atLeast(0), Help: "steps of linear warm-up"},
	{Path: "training.total_steps", Default: int64(0), Range: atLeast(0), Help: "cosine: steps the rate decays over (more than warmup_steps)"},
	{Path: "training.min_learning_rate", Default: 0.0, Range: &Range{Min: 0, Max: 10, MaxOf: "training.learning_rate"}, When: cosine, Help: "cosine: the rate from total_steps on (piecewise: must stay 0)"},
	{Path: "training.momentum", Default: 0.9, Range: in(0, 0.999), Help: "SGD momentum"},
	{Path: "training.weight_decay", Default: 0.0001, Range: in(0, 1), Help: "L2 weight decay"},
	{Path: "training.value_root_weight", Default: 0.0, Range: in(0, 1), Help: "value target = (1-w)*result + w*recorded root value (0: the result only)"},
	{Path: "training.legal_mask", Default: false, Help: "the policy loss's softmax over the legal moves only (lc0)"},
	{Path: "training.ops", Default: "fast", Values: []string{"fast", "reference", ""}, Help: "training graph: fast (net/train/ops; also empty) or reference (gorgonia's own, 4-12x slower; for comparisons)"},
	{Path: "training.precision", Default: "", Values: []string{"fp32", "bf16", ""}, Help: "training convolutions' arithmetic (fast ops): fp32 (also empty) or bf16 (operands in bfloat16 on AMX-BF16 tiles, or by Winograd's F(2x2, 3x3) with AVX512_BF16, sums and weights in float32; fp32 where the CPU has neither)"},
	{Path: "training.keep_checkpoints", Default: 3, Range: &Range{Min: 1, Max: 1 << 20, ZeroOff: true}, Help: "the newest checkpoints a run keeps besides its best network and the ones its evaluations measured; older ones are deleted (0: keep every checkpoint; tabula train -keep-checkpoints overrides it)"},

	{Path: "gating.matches", Default: []GateMatch{}, Rule: "a list of matches (empty: every candidate is promoted, as AlphaZero does)", Help: "the matches a candidate plays after each generation"},
	{Path: "gating.matches[].opponent", Required: true, Rule: `"best" or a player spec such as ab:depth=4 (the trainer builds it)`, Help: "the candidate's opponent"},
	{Path: "gating.matches[].games", Required: true, Range: &Range{Min: 2, Max: 100000, Even: "colour-swapped pairs"}, Help: "games of the match"},
	{Path: "gating.matches[].simulations", Required: true, Range: in(1, 100000), Help: "the networks' simulations per move"},
	{Path: "gating.matches[].threshold", Default: 0.0, Range: in(0, 1), Help: "score that promotes the candidate (0: the match only records its result)"},

	{Path: "evaluation.every", Default: time.Duration(0), Range: &Range{Min: float64(time.Second), Max: math.Inf(1), Why: "e.g. 5m"}, When: evaluationOn, Help: "training time between evaluations: the first after that much training, the last where a limit stops the run"},
	{Path: "evaluation.at_start", Default: false, Help: "also measure the untrained network (generation 0) before training starts: the learning benchmark's point at 0 minutes"},
	{Path: "evaluation.matches", Default: []GateMatch(nil), Rule: "a list of matches", Help: "arena matches of the best network against fixed anchors"},
	{Path: "evaluation.matches[].opponent", Required: true, Rule: "a player spec such as ab:depth=4, not best (the trainer builds it)", Help: "the fixed anchor"},
	{Path: "evaluation.matches[].games", Required: true, Range: &Range{Min: 2, Max: 100000, Even: "colour-swapped pairs"}, Help: "games of the match"},
	{Path: "evaluation.matches[].simulations", Default: 0, Range: in(0, 100000), Help: "the network's simulations per move (0: the raw policy)"},
	{Path: "evaluation.matches[].threshold", Default: 0.0, Range: &Range{Min: 0, Max: 0, Why: "an evaluation promotes nothing; thresholds belong to gating"}, Help: "unused: must stay 0"},
}
