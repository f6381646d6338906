package xiangqi

import (
	"fmt"

	"github.com/tabula-zero/tabula/game"
)

// Name is the registered game name.
const Name = "xiangqi"

// Option names.
const (
	OptPlyCap   = "PlyCap"
	OptNotation = "Notation"
)

func init() {
	game.Register(game.Game{
		Name: Name,
		Options: []game.Option{
			{Name: OptPlyCap, Default: "400", Min: 1, Max: 100000, Help: "game ply at which the game is drawn"},
			{Name: OptNotation, Default: "uci", Values: []string{"uci", "iccs"}, Help: "move notation: uci ranks 1-10 (h3e3) or iccs ranks 0-9 (h2e2)"},
		},
		New: func(opts game.Options) (game.Position, error) {
			r, err := RulesFrom(opts)
			if err != nil {
				return nil, err
			}
			return New(r), nil
		},
		Parse: func(text string, opts game.Options) (game.Position, error) {
			r, err := RulesFrom(opts)
			if err != nil {
				return nil, err
			}
			return Parse(text, r)
		},
		Encoder:  Encoder{},
		Encoders: []game.Encoder{ThreatEncoder, FromToEncoder},
		// The longer and more branching game needs more random plies for
		// distinct gate games; the Xiangqi thesis caps playouts without
		// saying where, and 200 plies is its longest game limit.
		OpeningPlies: 4,
		PlayoutCap:   200,
		UCIVariant:   "xiangqi",
		PGN:          true,
		Capabilities: []any{capabilities{}},
	})
}

// RulesFrom turns registry options into Rules, checking them.
func RulesFrom(opts game.Options) (Rules, error) {
	g, err := game.Lookup(Name)
	if err != nil {
		return Rules{}, err
	}
	o, err := g.Resolve(opts)
	if err != nil {
		return Rules{}, err
	}
	r := Rules{PlyCap: o.Int(OptPlyCap, DefaultRules.PlyCap)}
	switch o[OptNotation] {
	case "uci":
	case "iccs":
		r.ICCS = true
	default:
		return Rules{}, fmt.Errorf("xiangqi: unknown notation %q", o[OptNotation])
	}
	return r, nil
}
