// Package configs holds the training-run configuration: the preset YAML
// files for the three games (embedded, so `go run ./cmd/train` works with
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
	"os"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tabula-zero/tabula/abzero"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all" // registers every game
	"github.com/tabula-zero/tabula/internal/ponsdata"
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
}

// Search is the self-play search.
type Search struct {
	Simulations    int     `yaml:"simulations"`
	Kind           string  `yaml:"kind"` // puct or gumbel
	CInit          float64 `yaml:"c_init"`
	CBase          float64 `yaml:"c_base"`
	FPUReduction   float64 `yaml:"fpu_reduction"`
	DirichletAlpha float64 `yaml:"dirichlet_alpha"`
	NoiseEpsilon   float64 `yaml:"noise_epsilon"`
	GumbelM        int     `yaml:"gumbel_m"`
	Solver         bool    `yaml:"solver"`
	// Playout-cap randomisation: a full search on this share of moves
	// (recorded), FastSimulations on the others (not recorded).
	FullSearchShare float64 `yaml:"full_search_share"`
	FastSimulations int     `yaml:"fast_simulations"`
	// ProvenTargets: where the solver decides a self-play root, its policy
	// target is the proven best moves (the quickest wins) rather than the
	// visits spent before the proof (mcts.Config).
	ProvenTargets bool `yaml:"proven_targets,omitempty"`
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
	// Precision is the self-play network's arithmetic: "fp32" (or
	// absent) or "int8", the 8-bit tower calibrated once per network
	// (net/infer).
	Precision string `yaml:"precision,omitempty"`
	// ABZero plays the moves of early generations with the
	// Alpha-Beta-Zero blend (absent: off).
	ABZero SelfPlayABZero `yaml:"abzero,omitempty"`
}

// Precisions are the network arithmetics selfplay.precision names
// (net/infer.Precisions; a test holds the two equal).
var Precisions = []string{"fp32", "int8"}

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
	// Ops is the training graph's implementation: "fast" (net/ops, the
	// default when empty) or "reference" (gorgonia's own convolution and
	// batch norm, about 4-12x slower; for comparisons).
	Ops string `yaml:"ops"`
}

// ModelOptions are the net.NewModel options the training section asks for.
func (t Training) ModelOptions() []net.ModelOption {
	if t.Ops == "reference" {
		return []net.ModelOption{net.ReferenceOps()}
	}
	return nil
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

// Preset returns the embedded preset of a game ("connect4", "lion",
// "xiangqi").
func Preset(game string) (*Config, error) {
	b, err := presets.ReadFile(game + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("configs: no preset for game %q", game)
	}
	return Parse(b, "preset "+game+".yaml")
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

// PresetBytes returns an embedded preset file's text.
func PresetBytes(game string) ([]byte, error) { return presets.ReadFile(game + ".yaml") }

// Load reads and validates a config file.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("configs: %w", err)
	}
	return Parse(b, path)
}

// sealPrefix starts the first line of a sealed config: the SHA-256 of the
// rest of the file.
const sealPrefix = "# tabula frozen config sha256:"

// MarshalSealed returns the canonical YAML form under a first line that
// holds its checksum: Parse then rejects the file when it is cut short or
// changed (a run's frozen copy is changed only through the trainer).
func (c *Config) MarshalSealed() []byte {
	body := c.Marshal()
	sum := sha256.Sum256(body)
	return append([]byte(fmt.Sprintf("%s%x (changes go through -accept-config-change)\n", sealPrefix, sum)), body...)
}

// checkSeal verifies the checksum line of a sealed config; text without
// one passes.
func checkSeal(b []byte) error {
	if !bytes.HasPrefix(b, []byte(sealPrefix)) {
		return nil
	}
	line, body, _ := bytes.Cut(b, []byte("\n"))
	want, _, _ := strings.Cut(strings.TrimPrefix(string(line), sealPrefix), " ")
	if sum := sha256.Sum256(body); fmt.Sprintf("%x", sum) != want {
		return errors.New("the frozen config does not match its checksum: the file was cut short or edited")
	}
	return nil
}

// Parse decodes strictly (unknown keys and wrong types are errors),
// checks the seal of a sealed file (MarshalSealed), drops the retired
// keys that ask for nothing (Config.Retired) and validates. name
// identifies the source in errors.
func Parse(b []byte, name string) (*Config, error) {
	if err := checkSeal(b); err != nil {
		return nil, fmt.Errorf("configs: %s: %w", name, err)
	}
	retired, b, err := dropRetired(b)
	if err != nil {
		return nil, fmt.Errorf("configs: %s: %w", name, err)
	}
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("configs: %s: empty file", name)
		}
		return nil, fmt.Errorf("configs: %s: %s", name, strings.ReplaceAll(err.Error(), "yaml: ", ""))
	}
	// An unknown game comes first: the rest of the file was written for
	// it, so its missing sections would only hide the real mistake.
	if c.Game != "" {
		if _, err := game.Lookup(c.Game); err != nil {
			return nil, fmt.Errorf("configs: %s: %w", name, err)
		}
	}
	if err := requireSections(b); err != nil {
		return nil, fmt.Errorf("configs: %s: %w", name, err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("configs: %s: %w", name, err)
	}
	c.Retired = retired
	return &c, nil
}

// requiredSections are the top-level keys every config spells out, and
// gating.matches: a missing section would silently mean zero values (no
// gate games: every candidate promoted), as in a file cut short.
var requiredSections = []string{"game", "seed", "network", "search", "selfplay", "replay", "training", "gating"}

// requireSections reports the required keys that the YAML text lacks.
func requireSections(b []byte) error {
	var doc map[string]yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return err
	}
	var missing []string
	for _, k := range requiredSections {
		if n, ok := doc[k]; !ok || n.Tag == "!!null" {
			missing = append(missing, k)
		}
	}
	if g, ok := doc["gating"]; ok && g.Kind == yaml.MappingNode {
		var gating map[string]yaml.Node
		if err := g.Decode(&gating); err == nil {
			if m, ok := gating["matches"]; !ok || m.Tag == "!!null" {
				missing = append(missing, "gating.matches (write `matches: []` to promote every candidate without gate games)")
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	return nil
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

// Validate checks every value's range.
func (c *Config) Validate() error {
	var errs []string
	intIn := func(key string, v, lo, hi int) {
		if v < lo || v > hi {
			errs = append(errs, fmt.Sprintf("%s = %d is outside [%d, %d]", key, v, lo, hi))
		}
	}
	floatIn := func(key string, v, lo, hi float64) {
		if !(v >= lo && v <= hi) {
			errs = append(errs, fmt.Sprintf("%s = %v is outside [%v, %v]", key, v, lo, hi))
		}
	}
	if g, err := game.Lookup(c.Game); err != nil {
		errs = append(errs, fmt.Sprintf("game: %v", err))
	} else {
		if _, err := g.Resolve(game.Options(c.Rules)); err != nil {
			errs = append(errs, fmt.Sprintf("rules: %v", err))
		}
		if ge, err := g.WithEncoder(c.Network.EncoderVersion); err != nil {
			errs = append(errs, fmt.Sprintf("network.encoder_version: %v", err))
		} else if _, h, w := ge.Encoder.Shape(); c.Network.PolicyHead == net.PolicyFromTo && ge.Encoder.ActionSize() != h*w*h*w {
			errs = append(errs, fmt.Sprintf("network.policy_head = %s needs an encoder with an action for every pair of squares; %s's encoder %d has %d actions for %d squares",
				net.PolicyFromTo, g.Name, ge.Encoder.Version(), ge.Encoder.ActionSize(), h*w))
		}
	}
	n := c.Network
	if n.PolicyHead != "" && n.PolicyHead != net.PolicyFromTo {
		errs = append(errs, fmt.Sprintf("network.policy_head = %q is not %s (or empty for the dense head)", n.PolicyHead, net.PolicyFromTo))
	}
	intIn("network.blocks", n.Blocks, 0, 40)
	intIn("network.filters", n.Filters, 1, 512)
	intIn("network.policy_channels", n.PolicyChannels, 1, 64)
	intIn("network.value_channels", n.ValueChannels, 1, 64)
	intIn("network.value_hidden", n.ValueHidden, 1, 1024)
	s := c.Search
	intIn("search.simulations", s.Simulations, 1, 100000)
	if s.Kind != "puct" && s.Kind != "gumbel" {
		errs = append(errs, fmt.Sprintf("search.kind = %q is not puct or gumbel", s.Kind))
	}
	floatIn("search.c_init", s.CInit, 0, 100)
	floatIn("search.c_base", s.CBase, 1, 1e9)
	floatIn("search.fpu_reduction", s.FPUReduction, 0, 2)
	floatIn("search.dirichlet_alpha", s.DirichletAlpha, 0, 100)
	floatIn("search.noise_epsilon", s.NoiseEpsilon, 0, 1)
	intIn("search.gumbel_m", s.GumbelM, 1, 1000)
	floatIn("search.full_search_share", s.FullSearchShare, 0.01, 1)
	intIn("search.fast_simulations", s.FastSimulations, 1, 100000)
	p := c.SelfPlay
	intIn("selfplay.parallel_games", p.ParallelGames, 1, 4096)
	intIn("selfplay.batch_size", p.BatchSize, 1, 4096)
	intIn("selfplay.flush_after_us", p.FlushAfterMicros, 0, 1000000)
	intIn("selfplay.cache_size", p.CacheSize, 0, 1<<26)
	intIn("selfplay.temperature_plies", p.TemperaturePlies, 0, 1000)
	intIn("selfplay.opening_plies", p.OpeningPlies, 0, 100)
	if p.OpeningPliesMax != 0 {
		intIn("selfplay.opening_plies_max", p.OpeningPliesMax, max(p.OpeningPlies, 1), 100)
	}
	floatIn("selfplay.surprise_weight", p.SurpriseWeight, 0, 1)
	if p.Discount != 0 {
		floatIn("selfplay.discount", p.Discount, 0.5, 1)
	}
	intIn("selfplay.shard_samples", p.ShardSamples, 1, 1<<22)
	if p.Precision != "" && !slices.Contains(Precisions, p.Precision) {
		errs = append(errs, fmt.Sprintf("selfplay.precision: %q (valid: %s)", p.Precision, strings.Join(Precisions, ", ")))
	}
	if az := p.ABZero; az != (SelfPlayABZero{}) {
		intIn("selfplay.abzero.generations", az.Generations, 0, 1<<20)
		intIn("selfplay.abzero.depth", az.Depth, 1, 12)
		floatIn("selfplay.abzero.value_scale", az.ValueScale, 0, 1e6)
		intIn("selfplay.abzero.teacher_generations", az.TeacherGenerations, 0, az.Generations)
		if az.TeacherGenerations > 0 {
			floatIn("selfplay.abzero.teacher_temperature", az.TeacherTemperature, 0.001, 1000)
		}
		if _, err := abzero.ParseSchedule(az.M); err != nil {
			errs = append(errs, fmt.Sprintf("selfplay.abzero.m: %v", err))
		}
	}
	intIn("replay.window", c.Replay.Window, 1, 1<<26)
	intIn("replay.min_samples", c.Replay.MinSamples, 1, c.Replay.Window)
	t := c.Training
	intIn("training.batch_size", t.BatchSize, 1, 8192)
	intIn("training.steps_per_generation", t.StepsPerGeneration, 1, 1<<24)
	floatIn("training.sample_ratio", t.SampleRatio, 0, 1e6)
	floatIn("training.learning_rate", t.LearningRate, 1e-9, 10)
	floatIn("training.momentum", t.Momentum, 0, 0.999)
	floatIn("training.weight_decay", t.WeightDecay, 0, 1)
	floatIn("training.value_root_weight", t.ValueRootWeight, 0, 1)
	if t.Ops != "" && t.Ops != "fast" && t.Ops != "reference" {
		errs = append(errs, fmt.Sprintf("training.ops = %q: want fast or reference", t.Ops))
	}
	switch t.Schedule {
	case "piecewise":
		if t.MinLearningRate != 0 {
			errs = append(errs, "training.min_learning_rate is for the cosine schedule; piecewise takes its last rate from training.rates")
		}
		if len(t.Boundaries) != len(t.Rates) {
			errs = append(errs, fmt.Sprintf("training.boundaries has %d entries but training.rates has %d", len(t.Boundaries), len(t.Rates)))
		}
		for i, r := range t.Rates {
			floatIn(fmt.Sprintf("training.rates[%d]", i), r, 1e-9, 10)
		}
		for i := 1; i < len(t.Boundaries); i++ {
			if t.Boundaries[i] <= t.Boundaries[i-1] {
				errs = append(errs, "training.boundaries must increase")
				break
			}
		}
	case "cosine":
		if t.TotalSteps <= t.WarmupSteps {
			errs = append(errs, fmt.Sprintf("training.total_steps = %d must exceed training.warmup_steps = %d", t.TotalSteps, t.WarmupSteps))
		}
		if t.MinLearningRate < 0 || t.MinLearningRate > t.LearningRate {
			errs = append(errs, fmt.Sprintf("training.min_learning_rate = %g must be in [0, training.learning_rate = %g]", t.MinLearningRate, t.LearningRate))
		}
	default:
		errs = append(errs, fmt.Sprintf("training.schedule = %q is not piecewise or cosine", t.Schedule))
	}
	for i, m := range c.Gating.Matches {
		key := fmt.Sprintf("gating.matches[%d]", i)
		if m.Opponent == "" {
			errs = append(errs, key+".opponent is missing")
		}
		intIn(key+".games", m.Games, 2, 100000)
		if m.Games%2 != 0 {
			errs = append(errs, fmt.Sprintf("%s.games = %d must be even (colour-swapped pairs)", key, m.Games))
		}
		intIn(key+".simulations", m.Simulations, 1, 100000)
		floatIn(key+".threshold", m.Threshold, 0, 1)
	}
	errs = append(errs, c.validateEvaluation(intIn)...)
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// validateEvaluation checks the evaluation section, when there is one.
func (c *Config) validateEvaluation(intIn func(key string, v, lo, hi int)) []string {
	e := c.Evaluation
	if e.Every == 0 && len(e.Matches) == 0 && e.Pons == nil {
		return nil
	}
	var errs []string
	if e.Every < time.Second {
		errs = append(errs, fmt.Sprintf("evaluation.every = %v: want at least 1s (e.g. 5m)", e.Every))
	}
	if len(e.Matches) == 0 && e.Pons == nil {
		errs = append(errs, "evaluation has neither matches nor pons")
	}
	for i, m := range e.Matches {
		key := fmt.Sprintf("evaluation.matches[%d]", i)
		switch m.Opponent {
		case "":
			errs = append(errs, key+".opponent is missing")
		case "best":
			errs = append(errs, key+".opponent = best: evaluations are against fixed anchors (a player spec such as ab:depth=4)")
		}
		intIn(key+".games", m.Games, 2, 100000)
		if m.Games%2 != 0 {
			errs = append(errs, fmt.Sprintf("%s.games = %d must be even (colour-swapped pairs)", key, m.Games))
		}
		intIn(key+".simulations", m.Simulations, 0, 100000)
		if m.Threshold != 0 {
			errs = append(errs, key+".threshold: an evaluation promotes nothing (thresholds belong to gating)")
		}
	}
	if p := e.Pons; p != nil {
		if c.Game != "connect4" {
			errs = append(errs, fmt.Sprintf("evaluation.pons: Pons' positions are Connect Four's, not %s's", c.Game))
		}
		if !slices.Contains(ponsdata.Names, p.Set) {
			errs = append(errs, fmt.Sprintf("evaluation.pons.set = %q: want one of %s", p.Set, strings.Join(ponsdata.Names, ", ")))
		}
		intIn("evaluation.pons.positions", p.Positions, 1, 1000)
		if len(p.Simulations) == 0 {
			errs = append(errs, "evaluation.pons.simulations is empty (0 is the raw policy)")
		}
		for i, n := range p.Simulations {
			intIn(fmt.Sprintf("evaluation.pons.simulations[%d]", i), n, 0, 100000)
		}
	}
	return errs
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
		PolicyHead: n.PolicyHead}
	return s, s.Validate()
}

// Evaluation measures the run's best network against fixed anchors at an
// interval of training time: the learning benchmark's points (docs/training.md).
// The trainer's clock stops while it evaluates, so the cost of measuring
// does not change what a run of a given length learns.
type Evaluation struct {
	// Every is the training time between evaluations ("5m"); the first
	// is of the untrained network and the last at the run's -max-time.
	Every time.Duration `yaml:"every"`
	// Matches are arena matches of the best network (Threshold unused).
	Matches []GateMatch `yaml:"matches"`
	// Pons measures the optimal-move rate on Pascal Pons' Connect Four
	// positions (connect4 only; absent: off).
	Pons *EvalPons `yaml:"pons,omitempty"`
}

// EvalPons is the Pons measure: the first Positions of Set, played by
// the network with each of Simulations (0: the raw policy).
type EvalPons struct {
	Set         string `yaml:"set"`
	Positions   int    `yaml:"positions"`
	Simulations []int  `yaml:"simulations"`
}

// Enabled reports whether the config asks for evaluations.
func (e Evaluation) Enabled() bool { return e.Every > 0 }
