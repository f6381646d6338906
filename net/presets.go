package net

import (
	"fmt"

	"github.com/tabula-zero/tabula/game"
)

// Preset returns the preset network shape for a game, sized for a laptop
// CPU: small Connect Four and Catch the Lion nets that train in minutes,
// and a Xiangqi net of 6 blocks x 64 filters.
func Preset(g game.Game) (Spec, error) {
	c, h, w := g.Encoder.Shape()
	s := Spec{
		Game: g.Name, EncoderVersion: g.Encoder.Version(),
		Channels: c, Height: h, Width: w, Actions: g.Encoder.ActionSize(),
	}
	switch g.Name {
	case "connect4":
		s.Blocks, s.Filters, s.PolicyChannels, s.ValueChannels, s.ValueHidden = 4, 32, 2, 1, 32
	case "lion":
		s.Blocks, s.Filters, s.PolicyChannels, s.ValueChannels, s.ValueHidden = 4, 32, 4, 1, 32
	case "xiangqi":
		s.Blocks, s.Filters, s.PolicyChannels, s.ValueChannels, s.ValueHidden = 6, 64, 4, 2, 64
	default:
		return Spec{}, fmt.Errorf("net: no preset for game %q", g.Name)
	}
	return s, nil
}
