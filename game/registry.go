package game

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tabula-zero/tabula/internal/kvlist"
)

// Option declares a rule option of a game, such as Catch the Lion's try
// rule. Values lists the allowed values of a choice; when it is empty the
// option is an integer in [Min, Max].
type Option struct {
	Name     string
	Default  string
	Values   []string
	Min, Max int
	Help     string
}

// Options holds rule option values by name. Missing names take defaults.
type Options map[string]string

// Game describes a registered game.
type Game struct {
	Name    string
	Options []Option
	// New returns the start position under opts. Games check opts
	// themselves (with Resolve), so a bad option is an error here. On error
	// the Position is a nil interface, never a typed nil.
	New func(opts Options) (Position, error)
	// Parse reads a position in the game's text format. Text carries no
	// history: replay moves from a known position to keep repetitions.
	Parse func(text string, opts Options) (Position, error)
	// Encoder is the encoding new networks use unless their config picks
	// another of Encoders, which lists every version a network may have
	// been made with (it may leave Encoder out), so that networks of an
	// earlier encoding still load and play.
	Encoder  Encoder
	Encoders []Encoder

	// What other packages need to know of a game lives here, not in
	// tables keyed by game name.

	// OpeningPlies is how many random plies start each pair of gate
	// games, so that deterministic players do not replay one game.
	OpeningPlies int
	// PlayoutCap bounds a random playout of the rollout players (0: the
	// game ends by itself soon enough).
	PlayoutCap int
	// UCIVariant is the UCI_Variant name engines such as Fairy-Stockfish
	// know the game by ("": none is sent).
	UCIVariant string
	// PGN says the game's text format is a FEN, so that game records are
	// also written as PGN.
	PGN bool

	// Capabilities are the optional things generic packages ask of a
	// game (capability.go), each a value implementing one of its small
	// interfaces; Capability finds one.
	Capabilities []any
}

// WithEncoder returns g with the encoder of version v as its Encoder
// (0: g's default one).
func (g Game) WithEncoder(v int) (Game, error) {
	if v == 0 || (g.Encoder != nil && g.Encoder.Version() == v) {
		return g, nil
	}
	for _, e := range g.Encoders {
		if e.Version() == v {
			g.Encoder = e
			return g, nil
		}
	}
	return Game{}, fmt.Errorf("game: %s has no encoder version %d (it has %s)", g.Name, v, g.encoderVersions())
}

// encoderVersions lists g's encoder versions, for errors.
func (g Game) encoderVersions() string {
	var vs []int
	if g.Encoder != nil {
		vs = append(vs, g.Encoder.Version())
	}
	for _, e := range g.Encoders {
		if !slices.Contains(vs, e.Version()) {
			vs = append(vs, e.Version())
		}
	}
	slices.Sort(vs)
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

// Start returns the position text describes in the game's text format, or
// the start position when text is empty.
func (g Game) Start(text string, opts Options) (Position, error) {
	if text == "" {
		return g.New(opts)
	}
	return g.Parse(text, opts)
}

var (
	mu       sync.RWMutex
	registry = map[string]Game{}
)

// Register adds g under g.Name. It panics on a duplicate name: registration
// happens in package init, so that is a programming error.
func Register(g Game) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[g.Name]; dup {
		panic("game: Register called twice for " + g.Name)
	}
	registry[g.Name] = g
}

// Lookup returns the game registered under name.
func Lookup(name string) (Game, error) {
	mu.RLock()
	defer mu.RUnlock()
	g, ok := registry[strings.ToLower(name)]
	if !ok {
		return Game{}, fmt.Errorf("game: unknown game %q (known: %s)", name, strings.Join(namesLocked(), ", "))
	}
	return g, nil
}

// Names lists the registered games in sorted order.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Option returns the declared option with the given name (case-insensitive).
func (g Game) Option(name string) (Option, bool) {
	for _, o := range g.Options {
		if strings.EqualFold(o.Name, name) {
			return o, true
		}
	}
	return Option{}, false
}

// Resolve checks opts against the declared options and returns a complete
// set with defaults filled in and names in their declared spelling.
func (g Game) Resolve(opts Options) (Options, error) {
	out := make(Options, len(g.Options))
	for _, o := range g.Options {
		out[o.Name] = o.Default
	}
	for name, v := range opts {
		o, ok := g.Option(name)
		if !ok {
			return nil, fmt.Errorf("%s: unknown option %q", g.Name, name)
		}
		if err := o.Check(v); err != nil {
			return nil, fmt.Errorf("%s: %w", g.Name, err)
		}
		out[o.Name] = v
	}
	return out, nil
}

// Check reports whether v is an allowed value of o.
func (o Option) Check(v string) error {
	if len(o.Values) > 0 {
		if !slices.Contains(o.Values, v) {
			return fmt.Errorf("option %s: value %q is not one of %s", o.Name, v, strings.Join(o.Values, ", "))
		}
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("option %s: value %q is not an integer", o.Name, v)
	}
	if n < o.Min || n > o.Max {
		return fmt.Errorf("option %s: value %d is outside [%d, %d]", o.Name, n, o.Min, o.Max)
	}
	return nil
}

// Int returns option name as an integer; Resolve has validated it.
func (opts Options) Int(name string, def int) int {
	if v, ok := opts[name]; ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

// Get returns option name, or def when it is unset.
func (opts Options) Get(name, def string) string {
	if v, ok := opts[name]; ok {
		return v
	}
	return def
}

// ParseOptions reads rule options written as "name=value,name=value" (the
// form command-line flags use); "" is no options.
func ParseOptions(s string) (Options, error) {
	pairs, err := kvlist.Pairs(s)
	if err != nil {
		return nil, fmt.Errorf("game: options: %w", err)
	}
	opts := Options{}
	for _, p := range pairs {
		opts[p.Key] = p.Value
	}
	return opts, nil
}
