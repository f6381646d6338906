// Package measure is the registry of position-set measures: sets of
// positions whose right moves are known (Pons' Connect Four sets, the Lion
// oracle, the Xiangqi set judged by Fairy-Stockfish), on which a player's
// moves and a network's value head are judged. A measure is one package
// that implements Measure and registers itself from init; importing
// arena/measure/all links every one. The trainer's evaluation (a config
// section evaluation.KEY), the run's chart and the arena's flag
// (tabula arena -NAME) are derived from the registry.
package measure

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/configs"
)

// Measure is one position-set measure.
type Measure interface {
	// Info names the measure and says where it appears.
	Info() Info
	// Evaluate is the trainer's evaluation: the first n positions (0: all)
	// of set (empty: the measure's own set) played by player(sims) for
	// each of sims (0: the raw policy), and the value head where the
	// measure judges one. It returns the entries of the evaluation's
	// metrics line, by JSON key.
	Evaluate(ctx context.Context, set string, n int, sims []int, player func(sims int) (*arena.Spec, error)) (map[string]any, error)
	// Read turns the entries of an evaluation line (as Evaluate wrote
	// them; absent: none) into the summary lines of the training log and
	// the chart's series (percentages by name).
	Read(entries map[string]json.RawMessage) (summary []string, series map[string]float64)
	// Run writes the arena's report on a player (tabula arena -NAME).
	Run(ctx context.Context, w io.Writer, o Options) error
}

// Info is what the consumers of a measure name it by.
type Info struct {
	// Name is the arena's flag (-NAME) and the chart's name.
	Name string
	// Game is the game of the positions.
	Game string
	// Section is the config's key under evaluation (configs.Evaluation),
	// and Config the rows of its keys (set, positions, simulations; Path
	// relative to the section): their defaults, what they may hold and
	// their help, which CheckConfig applies and docs/config.md lists.
	Section string
	Config  []configs.Option
	// Flag is the arena flag's help.
	Flag string
	// Chart is the chart's title; by CPU time draws it against the run's
	// CPU-hours rather than its training minutes.
	Chart   string
	ByCPU   bool
	YLabel  string
	Example string // the flag's value in the arena's usage line
}

// Options are an arena report's: the player, the set (a file; the
// measure's words for its own sets, such as "embedded"), the first
// Positions (0: all), the workers, JSON output, and for a measure whose
// value-head report is optional (Pons), whether to make it.
type Options struct {
	Player      *arena.Spec
	File        string
	Positions   int
	Concurrency int
	JSON        bool
	Values      bool
}

var (
	mu       sync.RWMutex
	registry []Measure
)

// Register adds m. It panics on a duplicate name or section: registration
// happens in package init, so that is a programming error.
func Register(m Measure) {
	mu.Lock()
	defer mu.Unlock()
	in := m.Info()
	for _, o := range registry {
		if o.Info().Name == in.Name || o.Info().Section == in.Section {
			panic("measure: Register called twice for " + in.Name)
		}
	}
	registry = append(registry, m)
	slices.SortFunc(registry, func(a, b Measure) int {
		if a.Info().Name < b.Info().Name {
			return -1
		}
		return 1
	})
}

// All returns the registered measures, sorted by name.
func All() []Measure {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(registry)
}

// Lookup returns the measure named name.
func Lookup(name string) (Measure, error) {
	for _, m := range All() {
		if m.Info().Name == name {
			return m, nil
		}
	}
	return nil, fmt.Errorf("measure: no measure %q", name)
}

// Sections are the registered measures' config sections.
func Sections() []configs.SetSpec {
	var out []configs.SetSpec
	for _, m := range All() {
		in := m.Info()
		out = append(out, configs.SetSpec{Key: in.Section, Game: in.Game, Options: in.Config})
	}
	return out
}

// CheckConfig checks c's position-set sections against the registered
// measures' (configs.Config.CheckSets): a section no measure has, one of
// another game and a value its measure's rows refuse are errors.
func CheckConfig(c *configs.Config) error { return c.CheckSets(Sections()) }

// Rate is a over b, 0 when b is 0.
func Rate(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// How names a measure of the moves by its simulations in the log ("raw",
// "64 sims").
func How(sims int) string {
	if sims > 0 {
		return fmt.Sprintf("%d sims", sims)
	}
	return "raw"
}

// Series names a measure of the moves by its simulations in a chart
// ("raw policy", "64 simulations").
func Series(sims int) string {
	if sims > 0 {
		return fmt.Sprintf("%d simulations", sims)
	}
	return "raw policy"
}

// Entry decodes the entry key of an evaluation line into v; ok is false
// when it is absent or does not decode.
func Entry(entries map[string]json.RawMessage, key string, v any) bool {
	raw, ok := entries[key]
	return ok && json.Unmarshal(raw, v) == nil
}

// Cache keeps what a measure reads once per process: positions by set
// and count.
type Cache[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

// Get returns the value of (set, n), read on first use.
func (c *Cache[T]) Get(set string, n int, read func() (T, error)) (T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := fmt.Sprintf("%s\x00%d", set, n)
	if v, ok := c.m[k]; ok {
		return v, nil
	}
	v, err := read()
	if err != nil {
		return v, err
	}
	if c.m == nil {
		c.m = map[string]T{}
	}
	c.m[k] = v
	return v, nil
}

// EachSims measures with player(k) for each k of sims in turn, do turning
// a player into its result; it returns the results and the last player
// (nil without sims), whose network a value-head measure then reads.
func EachSims[R any](sims []int, player func(sims int) (*arena.Spec, error), do func(k int, s *arena.Spec) (R, error)) ([]R, *arena.Spec, error) {
	var out []R
	var s *arena.Spec
	for _, k := range sims {
		var err error
		if s, err = player(k); err != nil {
			return nil, nil, err
		}
		r, err := do(k, s)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, r)
	}
	return out, s, nil
}
