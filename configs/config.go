// Package configs holds the training-run configuration: the preset YAML
// files for the three games (embedded, so `go run ./cmd/tabula train` works with
// no files at hand) and the code that loads and validates them strictly.
// An unknown key, a wrong type or an out-of-range value is an error that
// names the key and the file.
package configs

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tabula-zero/tabula/game"
	// Every game, for the presets, Parse and LookupGame: the programs
	// that load configs do not import the games themselves.
	_ "github.com/tabula-zero/tabula/game/all"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/net"
)

//go:embed *.yaml
var presets embed.FS

// Config is one training run's configuration.
type Config struct {
	Game     string            `yaml:"game"`
	Rules    map[string]string `yaml:"rules"`
	Seed     uint64            `yaml:"seed"`
	Network  Network           `yaml:"network"`
	Search   Search            `yaml:"search"`
	SelfPlay SelfPlay          `yaml:"selfplay"`
	Replay   Replay            `yaml:"replay"`
	Training Training          `yaml:"training"`
	Gating   Gating            `yaml:"gating"`
	// Evaluation is optional: absent, the run is not benchmarked.
	Evaluation Evaluation `yaml:"evaluation,omitempty"`
	// Retired names the retired keys the text had at their off values,
	// which Parse dropped (retired.go); they are not written back.
	Retired []string `yaml:"-"`
}

// Network is the network shape.
type Network struct {
	Blocks         int `yaml:"blocks"`
	Filters        int `yaml:"filters"`
	PolicyChannels int `yaml:"policy_channels"`
	ValueChannels  int `yaml:"value_channels"`
	ValueHidden    int `yaml:"value_hidden"`
	// EncoderVersion picks the game's input encoding (0: the game's
	// default), so that a new encoding is opt-in and runs of an earlier
	// one still resume.
	EncoderVersion int `yaml:"encoder_version,omitempty"`
	// PolicyHead is "fromto" for the from-to policy head (each move's
	// logit a bilinear form of its two squares' features; the encoder must
	// have an action for every pair of squares, Xiangqi's version 4), or
	// empty for a dense layer over the board.
	PolicyHead string `yaml:"policy_head,omitempty"`
	// ValueHead is "wdl" for the win/draw/loss value head (three
	// probabilities, the value W - L), or empty for one tanh value.
	ValueHead string `yaml:"value_head,omitempty"`
}

// Search is the self-play search: the simulations and playout cap
// self-play reads, and the search constants player.RunSearch maps to
// mcts.Config. Each field's meaning, range and default is its row in the
// option table (docs/config.md); the constants' defaults are
// mcts.DefaultConfig's.
type Search struct {
	Simulations     int     `yaml:"simulations"`
	Kind            string  `yaml:"kind"`
	CInit           float64 `yaml:"c_init"`
	CBase           float64 `yaml:"c_base"`
	FPUReduction    float64 `yaml:"fpu_reduction"`
	DirichletAlpha  float64 `yaml:"dirichlet_alpha"`
	NoiseEpsilon    float64 `yaml:"noise_epsilon"`
	GumbelM         int     `yaml:"gumbel_m"`
	Solver          bool    `yaml:"solver"`
	FullSearchShare float64 `yaml:"full_search_share"`
	FastSimulations int     `yaml:"fast_simulations"`
	ProvenTargets   bool    `yaml:"proven_targets,omitempty"`
}

// SelfPlay is the self-play worker setup.
type SelfPlay struct {
	ParallelGames    int `yaml:"parallel_games"`
	BatchSize        int `yaml:"batch_size"`
	FlushAfterMicros int `yaml:"flush_after_us"`
	CacheSize        int `yaml:"cache_size"`
	TemperaturePlies int `yaml:"temperature_plies"`
	// OpeningPlies starts every game with this many uniformly random
	// plies (not recorded as samples; they count towards
	// TemperaturePlies): diversity without a long temperature phase.
	OpeningPlies int `yaml:"opening_plies,omitempty"`
	// OpeningPliesMax, when above OpeningPlies, draws each game's number
	// of random plies uniformly from [OpeningPlies, OpeningPliesMax]: the
	// games then start from positions of every stage, not only the
	// opening lines self-play itself prefers.
	OpeningPliesMax int `yaml:"opening_plies_max,omitempty"`
	// SurpriseWeight is KataGo's policy-surprise weighting: each searched
	// position is recorded (1-a) + a*KL/mean(KL) times on average, KL the
	// divergence of its policy target from the network's prior (0: off;
	// KataGo uses 0.5).
	SurpriseWeight float64 `yaml:"surprise_weight,omitempty"`
	// Discount shrinks a sample's game result by this factor per ply
	// between the sample and the game's end (0 or 1: off), so that the
	// value head tells a quick win from a slow one and a player makes
	// progress instead of shuffling (Pons' exact scores reward the
	// quickest win too).
	Discount     float64 `yaml:"discount,omitempty"`
	ShardSamples int     `yaml:"shard_samples"`
	// Precision is the self-play network's arithmetic: "auto" (the
	// default: int8 where the CPU has VNNI), "fp32" (or "" in a run
	// sealed before auto was the default) or "int8", the 8-bit tower
	// calibrated once per network (net/infer). Not omitempty: a
	// frozen copy says "" where auto was not yet the default.
	Precision string `yaml:"precision"`
	// ABZero plays the moves of early generations with the
	// Alpha-Beta-Zero blend (absent: off).
	ABZero SelfPlayABZero `yaml:"abzero,omitempty"`
}

// Precisions are the network arithmetics selfplay.precision names
// (net/infer.Precisions; a test holds the two equal).
var Precisions = []string{"auto", "fp32", "int8"}

// SelfPlayABZero makes self-play lean on alpha-beta while the network is
// weak, as the CheapChess seed proposes: after the temperature plies, the
// move played is argmax_a pi_a * m + beta_a over the full search's visit
// shares pi and a multi-PV alpha-beta search of Depth plies (beta in
// soldiers). The recorded policy target stays the visit distribution;
// the game results (value targets) come from the stronger play.
type SelfPlayABZero struct {
	// Generations: used while the self-play network's generation is below
	// this (0: off).
	Generations int `yaml:"generations"`
	Depth       int `yaml:"depth"`
	// M is the network weight over generations: "W", "linear:LOW,HIGH,FROM,TO"
	// or "step:LOW,HIGH,AT" (abzero.ParseSchedule).
	M string `yaml:"m"`
	// ValueScale, when positive, makes a blended move's recorded root
	// value alpha-beta's: tanh(score/ValueScale), +-1 for a mate (score in
	// the evaluation's units; for Xiangqi's about 1000, the slope of its
	// Texel fit). training.value_root_weight then mixes it into the value
	// target. 0: the search's value.
	ValueScale float64 `yaml:"value_scale,omitempty"`
	// TeacherGenerations: while the self-play network's generation is
	// below this, alpha-beta alone plays and teaches, with no tree search
	// and no network (Blender.Teach): every position is recorded with the
	// policy target softmax(beta/TeacherTemperature) over its multi-PV
	// root scores and, with ValueScale, alpha-beta's value. Moves are
	// drawn from that policy during the temperature plies and are
	// alpha-beta's best after. Cheap samples of what alpha-beta knows,
	// before the blend takes over (0: off).
	TeacherGenerations int `yaml:"teacher_generations,omitempty"`
	// TeacherTemperature is the teacher's softmax temperature in soldiers.
	TeacherTemperature float64 `yaml:"teacher_temperature,omitempty"`
}

// Replay is the replay window.
type Replay struct {
	Window     int `yaml:"window"`
	MinSamples int `yaml:"min_samples"`
}

// Training is the optimiser and the generation cycle.
type Training struct {
	BatchSize          int       `yaml:"batch_size"`
	StepsPerGeneration int       `yaml:"steps_per_generation"`
	SampleRatio        float64   `yaml:"sample_ratio"` // max training samples drawn per new self-play sample; 0 = no limit
	Schedule           string    `yaml:"schedule"`     // piecewise or cosine
	LearningRate       float64   `yaml:"learning_rate"`
	Boundaries         []int64   `yaml:"boundaries"` // piecewise: steps where the rate changes
	Rates              []float64 `yaml:"rates"`      // piecewise: rates after each boundary
	WarmupSteps        int64     `yaml:"warmup_steps"`
	TotalSteps         int64     `yaml:"total_steps"` // cosine: steps to decay over
	// MinLearningRate is where the cosine ends and stays from TotalSteps
	// on, so a run can go on learning after a decay sized to its budget.
	MinLearningRate float64 `yaml:"min_learning_rate,omitempty"`
	Momentum        float64 `yaml:"momentum"`
	WeightDecay     float64 `yaml:"weight_decay"`
	// ValueRootWeight mixes the self-play search's root value into the
	// value target: (1-w)*result + w*root value (0: the result only).
	ValueRootWeight float64 `yaml:"value_root_weight,omitempty"`
	// LegalMask takes the policy loss's softmax over each position's
	// legal moves only (lc0), as search and play do (net.Batch.Legal).
	LegalMask bool `yaml:"legal_mask,omitempty"`
	// Ops is the training graph's implementation: "fast" (net/train/ops, the
	// default when empty) or "reference" (gorgonia's own convolution and
	// batch norm, about 4-12x slower; for comparisons).
	Ops string `yaml:"ops"`
	// Precision is the fast ops' convolution arithmetic: "fp32" (also
	// empty) or "bf16" (operands rounded to bfloat16 on AMX-BF16 tiles
	// or with AVX512_BF16, sums and master weights in float32; fp32 where
	// the CPU has neither).
	Precision string `yaml:"precision,omitempty"`
	// KeepCheckpoints is how many of the newest checkpoints a run keeps
	// besides its best network and the checkpoints its evaluations
	// measured (0: every checkpoint, as a run sealed before retention
	// reads it). Not omitempty: a new run's frozen copy says how many.
	KeepCheckpoints int `yaml:"keep_checkpoints"`
}

// ModelOptions are the net.NewModel options the training section asks for.
func (t Training) ModelOptions() []net.ModelOption {
	var o []net.ModelOption
	if t.Ops == "reference" {
		o = append(o, net.ReferenceOps())
	}
	if t.Precision == "bf16" {
		o = append(o, net.BF16Convs())
	}
	return o
}

// Gating is the list of matches a candidate plays after each generation.
type Gating struct {
	Matches []GateMatch `yaml:"matches"`
}

// GateMatch is one gate: the candidate against an opponent. Threshold > 0
// makes it a promotion gate (score needed); 0 only records the result.
type GateMatch struct {
	Opponent    string  `yaml:"opponent"` // "best" or a player spec such as "ab:depth=4"
	Games       int     `yaml:"games"`
	Simulations int     `yaml:"simulations"`
	Threshold   float64 `yaml:"threshold"`
}

// Preset returns the preset of a name: one a registered game carries
// (game.Presets), else one embedded here (the shipped games' presets,
// connect4.yaml and its kin, whose paths the results cite).
func Preset(name string) (*Config, error) {
	b, err := PresetBytes(name)
	if err != nil {
		return nil, err
	}
	return Parse(b, "preset "+name+".yaml")
}

// PresetSpec is the network of a game's preset: the YAML presets are the
// only source of the preset shapes.
func PresetSpec(game string) (net.Spec, error) {
	c, err := Preset(game)
	if err != nil {
		return net.Spec{}, err
	}
	return NetSpec(c)
}

// PresetBytes returns a preset's text, as Preset finds it.
func PresetBytes(name string) ([]byte, error) {
	for _, g := range game.WithCapability[game.Presets]() {
		c, _ := game.Capability[game.Presets](g)
		if b, ok := c.Presets()[name]; ok {
			return b, nil
		}
	}
	b, err := presets.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("configs: no preset for game %q", name)
	}
	return b, nil
}

// MaxBytes is the largest config file read: a config is a few
// kilobytes, so a larger file (or one that never ends, /dev/zero) is not
// one.
const MaxBytes = 1 << 20

// ReadFile reads a config file's text when it is a regular file of at
// most MaxBytes (internal/inputfile).
func ReadFile(path string) ([]byte, error) {
	b, err := inputfile.ReadFile(path, "config", MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("configs: %w", err)
	}
	return b, nil
}

// Load reads and validates a config file.
func Load(path string) (*Config, error) {
	b, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b, path)
}

// LoadFrozen reads and validates a run's frozen copy, which must carry
// its seal (ParseFrozen).
func LoadFrozen(path string) (*Config, error) {
	b, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseFrozen(b, path)
}

// sealPrefix starts the first line of a sealed config: the SHA-256 of the
// rest of the file.
const sealPrefix = "# tabula frozen config sha256:"

// MarshalSealed returns the canonical YAML form under a first line that
// holds its checksum: Parse then rejects the file when it is cut short or
// changed (a run's frozen copy is changed only through the trainer).
func (c *Config) MarshalSealed() []byte { return Seal(c.Marshal()) }

// Seal returns a config's text under the checksum line MarshalSealed
// writes: a frozen copy as a build wrote it, for tests of earlier builds'
// copies.
func Seal(body []byte) []byte {
	sum := sha256.Sum256(body)
	return append([]byte(fmt.Sprintf("%s%x (changes go through -accept-config-change)\n", sealPrefix, sum)), body...)
}

var (
	// ErrNotSealed is a frozen copy without its checksum line
	// (ParseFrozen): written by hand, or the line removed.
	ErrNotSealed = errors.New("it has no checksum line (the seal a run's frozen config starts with)")
	// ErrSealBroken is a checksum line that does not match the text
	// after it, or a first line that is a checksum line damaged.
	ErrSealBroken = errors.New("the frozen config does not match its checksum line")
)

// checkSeal verifies the checksum line of a sealed config. Text without
// one passes here (a config written by hand); a first line that is a
// checksum line with its tag or sum altered does not, so that the seal
// cannot be put out of force by changing its line along with a value.
func checkSeal(b []byte) error {
	line, body, _ := bytes.Cut(b, []byte("\n"))
	rest, ok := strings.CutPrefix(string(line), sealPrefix)
	if !ok {
		if looksLikeSeal(string(line)) {
			return fmt.Errorf("%w: its first line %.80q is a damaged checksum line (the file was edited)", ErrSealBroken, line)
		}
		return nil
	}
	want, _, _ := strings.Cut(rest, " ")
	if sum := sha256.Sum256(body); fmt.Sprintf("%x", sum) != want {
		return fmt.Errorf("%w: the file was cut short or edited", ErrSealBroken)
	}
	return nil
}

// looksLikeSeal reports whether a first line is a comment that reads as
// a checksum line: one a hand-written config would not start with.
func looksLikeSeal(line string) bool {
	l := strings.ToLower(line)
	return strings.HasPrefix(strings.TrimSpace(l), "#") &&
		(strings.Contains(l, "frozen config") || strings.Contains(l, "sha256") || strings.Contains(l, "tabula frozen"))
}

// IsSealed reports whether b starts with a checksum line (which Parse
// then verifies).
func IsSealed(b []byte) bool { return bytes.HasPrefix(b, []byte(sealPrefix)) }

// CheckSealed verifies a run's frozen copy: it must start with its
// checksum line and match it (ErrNotSealed, ErrSealBroken).
func CheckSealed(b []byte) error {
	if err := checkSeal(b); err != nil {
		return err
	}
	if !IsSealed(b) {
		return ErrNotSealed
	}
	return nil
}

// ParseFrozen is Parse for a run's frozen copy: the text must carry its
// seal (MarshalSealed). Without the line, a run's config could be edited
// by dropping the line first.
func ParseFrozen(b []byte, name string) (*Config, error) {
	if err := CheckSealed(b); err != nil {
		return nil, fmt.Errorf("configs: %s: %w", name, err)
	}
	return Parse(b, name)
}

// Parse decodes strictly (unknown keys and wrong types are errors),
// checks the seal of a sealed file (MarshalSealed), drops the retired
// keys that ask for nothing (Config.Retired) and validates. A key the
// text leaves out takes its default (Defaults), except in a sealed file:
// a frozen copy spells out every key its build knew, so one it lacks had
// its zero value then and keeps it (an earlier build's run resumes as it
// was). name identifies the source in errors.
func Parse(b []byte, name string) (*Config, error) {
	if err := checkSeal(b); err != nil {
		return nil, fmt.Errorf("configs: %s: %w", name, err)
	}
	sealed := IsSealed(b)
	text := b // as written, for the lines errors name
	retired, b, err := dropRetired(b)
	if err != nil {
		return nil, fmt.Errorf("configs: %s: %w", name, err)
	}
	c := Defaults()
	if sealed {
		c = &Config{}
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	intErrs := checkIntegers(text)
	if err := dec.Decode(c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("configs: %s: empty file", name)
		}
		if len(intErrs) > 0 {
			// They name the key where the decoder names a type.
			return nil, fmt.Errorf("configs: %s: %s", name, strings.Join(intErrs, "; "))
		}
		return nil, fmt.Errorf("configs: %s: %s", name, strings.ReplaceAll(err.Error(), "yaml: ", ""))
	}
	// An unknown game comes first: the rest of the file was written for
	// it, so other errors would only hide the real mistake.
	if c.Game != "" {
		if _, err := game.Lookup(c.Game); err != nil {
			return nil, fmt.Errorf("configs: %s: %w", name, err)
		}
	}
	// The truncated values the decoder made of them would only add
	// errors of their own.
	if len(intErrs) > 0 {
		return nil, fmt.Errorf("configs: %s: %s", name, strings.Join(intErrs, "; "))
	}
	if err := checkKeys(b); err != nil {
		return nil, fmt.Errorf("configs: %s: %w", name, err)
	}
	c.Evaluation.dropAbsentSets()
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("configs: %s: %w", name, err)
	}
	c.Retired = retired
	return c, nil
}

// sections are the top-level keys that hold a mapping: one written with
// nothing after it, like a field's key, would silently mean zero values
// rather than the defaults (a file cut short after "gating:").
var sections = []string{"network", "search", "selfplay", "replay", "training", "gating"}

// checkKeys reports a text without a game (the one key with no default)
// or with a section or field key that has no value.
func checkKeys(b []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return errors.New("missing game")
	}
	root := doc.Content[0]
	if n := lookupNode(root, "game"); n == nil || n.Tag == "!!null" {
		return errors.New("missing game")
	}
	var empty []string
	paths := slices.Clone(sections)
	for _, o := range options {
		if !strings.Contains(o.Path, "[]") {
			paths = append(paths, o.Path)
		}
	}
	if ev := lookupNode(root, "evaluation"); ev != nil && ev.Kind == yaml.MappingNode {
		// The position-set sections' keys, whichever measure's: the keys
		// no field of Evaluation takes.
		for i := 0; i+1 < len(ev.Content); i += 2 {
			k := ev.Content[i].Value
			if _, field := fieldByTag(reflect.TypeFor[Evaluation](), k); !field {
				for _, o := range SetShape {
					paths = append(paths, "evaluation."+k+"."+o.Path)
				}
			}
		}
	}
	for _, p := range paths {
		if n := lookupNode(root, p); n != nil && n.Tag == "!!null" {
			empty = append(empty, p)
		}
	}
	if len(empty) > 0 {
		return fmt.Errorf("%s has no value (was the file cut short? leave a key out for its default)", strings.Join(empty, ", "))
	}
	return nil
}

// lookupNode returns the node at the dotted path below mapping n, or nil.
func lookupNode(n *yaml.Node, path string) *yaml.Node {
	for _, k := range strings.Split(path, ".") {
		if n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

// Marshal returns the canonical YAML form (used for the run's frozen copy
// and to compare configs on resume).
func (c *Config) Marshal() []byte {
	b, err := yaml.Marshal(c)
	if err != nil {
		panic("configs: marshal: " + err.Error()) // plain structs always marshal
	}
	return b
}

// LookupGame returns the config's game with the network's encoder.
func (c *Config) LookupGame() (game.Game, error) {
	g, err := game.Lookup(c.Game)
	if err != nil {
		return game.Game{}, err
	}
	return g.WithEncoder(c.Network.EncoderVersion)
}

// NetSpec returns the network shape of a config for its game.
func NetSpec(c *Config) (net.Spec, error) {
	g, err := c.LookupGame()
	if err != nil {
		return net.Spec{}, err
	}
	ch, h, w := g.Encoder.Shape()
	n := c.Network
	s := net.Spec{Game: g.Name, EncoderVersion: g.Encoder.Version(), Channels: ch, Height: h, Width: w,
		Actions: g.Encoder.ActionSize(), Blocks: n.Blocks, Filters: n.Filters,
		PolicyChannels: n.PolicyChannels, ValueChannels: n.ValueChannels, ValueHidden: n.ValueHidden,
		PolicyHead: n.PolicyHead, ValueHead: n.ValueHead}
	return s, s.Validate()
}

// Evaluation measures the run's best network against fixed anchors at an
// interval of training time: the learning benchmark's points (docs/notebook/learning-benchmark.md).
// The trainer's clock stops while it evaluates, so the cost of measuring
// does not change what a run of a given length learns.
type Evaluation struct {
	// Every is the training time between evaluations ("5m"): the first
	// once that much training has passed, the last where a limit stops
	// the run.
	Every time.Duration `yaml:"every"`
	// AtStart measures the untrained network too, before the first
	// training (the learning benchmark's point at 0 minutes).
	AtStart bool `yaml:"at_start,omitempty"`
	// Matches are arena matches of the best network (Threshold unused).
	Matches []GateMatch `yaml:"matches"`
	// Sets are the position-set measures' sections (arena/measure), each
	// under its measure's key (evaluation.pons, evaluation.lion_oracle,
	// ...) and absent when off. What a section may hold beyond its shape
	// (its game, its sets, how many positions) its measure declares
	// (SetSpec), as it declares its key: configs names no measure.
	Sets map[string]*EvalSet `yaml:",inline"`
}

// EvalSet is a position-set measure's section: the first Positions of
// the set (0: all where the measure allows it), played by the network
// with each of Simulations (0: the raw policy), and for the measures that
// judge one its value head on the same positions. Set names the set where
// the measure has several (Pons').
type EvalSet struct {
	Set         string `yaml:"set,omitempty"`
	Positions   int    `yaml:"positions"`
	Simulations []int  `yaml:"simulations"`
}

// SetSection is one position-set section of the evaluation: its key and
// its value.
type SetSection struct {
	Key string
	Set *EvalSet
}

// Sections lists the position-set sections the config has, by key.
func (e Evaluation) Sections() []SetSection {
	var out []SetSection
	for _, k := range slices.Sorted(maps.Keys(e.Sets)) {
		if e.Sets[k] != nil {
			out = append(out, SetSection{Key: k, Set: e.Sets[k]})
		}
	}
	return out
}

// Set returns the position-set section under key (nil: absent).
func (e Evaluation) Set(key string) *EvalSet { return e.Sets[key] }

// dropAbsentSets removes the sections written as null (absent, as an
// override's "evaluation.pons=null" leaves them), so that a config reads
// and writes as one without them.
func (e *Evaluation) dropAbsentSets() {
	for k, v := range e.Sets {
		if v == nil {
			delete(e.Sets, k)
		}
	}
	if len(e.Sets) == 0 {
		e.Sets = nil
	}
}

// Enabled reports whether the config asks for evaluations.
func (e Evaluation) Enabled() bool { return e.Every > 0 }
