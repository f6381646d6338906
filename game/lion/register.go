package lion

import (
	"github.com/tabula-zero/tabula/game"
)

// Name is the registered game name.
const Name = "lion"

// Option names and values.
const (
	OptTryRule   = "TryRule"
	OptPlyCap    = "PlyCap"
	TrySafe      = "safe"
	TryImmediate = "immediate"
)

// options declares the rule options of Catch the Lion (game.Lookup("lion").Options).
var options = []game.Option{
	{
		Name:    OptTryRule,
		Default: TrySafe,
		Values:  []string{TrySafe, TryImmediate},
		Help: "safe (official): a lion reaching the far rank wins at once unless attacked, " +
			"then the opponent must capture it; immediate (the thesis): it wins at once",
	},
	{
		Name:    OptPlyCap,
		Default: "200",
		Min:     1,
		Max:     10000,
		Help:    "the game is drawn when this many plies have been played",
	},
}

func resolve(opts game.Options) (rules, error) {
	o, err := game.Game{Name: Name, Options: options}.Resolve(opts)
	if err != nil {
		return rules{}, err
	}
	return rules{
		immediate: o[OptTryRule] == TryImmediate,
		plyCap:    o.Int(OptPlyCap, 200),
	}, nil
}

// New returns the start position under the given rule options.
func New(opts game.Options) (*Position, error) {
	r, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	return parse(StartText, r)
}

func init() {
	game.Register(game.Game{
		Name:    Name,
		Options: options,
		New: func(opts game.Options) (game.Position, error) {
			p, err := New(opts)
			if err != nil {
				return nil, err
			}
			return p, nil
		},
		Parse: func(text string, opts game.Options) (game.Position, error) {
			p, err := Parse(text, opts)
			if err != nil {
				return nil, err
			}
			return p, nil
		},
		Encoder:      Encoder{},
		OpeningPlies: 2,
		PlayoutCap:   100, // as the Catch the Lion thesis's code
		Capabilities: []any{capabilities{}},
	})
}
