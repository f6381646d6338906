package player

import (
	"github.com/tabula-zero/tabula/game/xiangqi"
	"math"
	"math/bits"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
)

// Strength-limited alpha-beta (UCI_LimitStrength and UCI_Elo, a spec's
// limit_strength= and elo=): an Elo is played as a node budget a move
// and, at the lowest levels, a share of uniformly random moves. The
// levels are calibrated points (docs/strength.md); between two an Elo
// interpolates the budget geometrically and the share linearly, and
// beyond the ends it plays the nearest end.
//
// Xiangqi's Elo is the outside ladder's (docs/xiangqi-ladder.md:
// ab:depth=1 at 0, Fairy-Stockfish at fixed nodes placed on it), with a
// table for each evaluation. Connect Four's and Catch the Lion's are not
// calibrated: the same shape on a nominal scale, where only the order
// means something.

// strengthLevel is one calibrated point: at Elo, a search of Nodes nodes
// a move that plays a uniformly random legal move with chance Random.
type strengthLevel struct {
	Elo    int
	Nodes  uint64
	Random float64
}

// minStrengthNodes is the smallest budget that means anything: alpha-beta
// looks at its node limit every 1,024 nodes.
const minStrengthNodes = 1024

// The calibrated levels, by game and evaluation: each point's Elo is
// measured by fixed-node matches against the outside ladder's rungs
// (docs/strength.md has the matches and their intervals, about ±60-100),
// but random play's, the ladder's own (-405) put at the knob's bottom.
// Elo ascending; Nodes and Random monotone.
var strengthLevels = map[string]map[string][]strengthLevel{
	xiangqi.Name: {
		EvalLearned: {
			{-400, minStrengthNodes, 1},
			{-323, minStrengthNodes, 0.5},
			{-275, minStrengthNodes, 0.25},
			{-4, minStrengthNodes, 0.1},
			{348, minStrengthNodes, 0},
			{711, 4096, 0},
			{896, 16384, 0},
			{1238, 65536, 0},
		},
		EvalClassical: {
			{-400, minStrengthNodes, 1},
			{-314, minStrengthNodes, 0.5},
			{-253, minStrengthNodes, 0.25},
			{-85, minStrengthNodes, 0.1},
			{192, minStrengthNodes, 0},
			{511, 4096, 0},
			{790, 16384, 0},
			{1031, 65536, 0},
		},
	},
}

// nominalLevels are the uncalibrated games' scale: random at -400, a
// thousand nodes at 0, doubling every 100 above.
var nominalLevels = []strengthLevel{
	{-400, minStrengthNodes, 1},
	{0, minStrengthNodes, 0},
	{1000, minStrengthNodes << 10, 0},
}

// Strength is what an Elo plays: a node budget and a share of random
// moves.
type Strength struct {
	Elo    int
	Nodes  uint64
	Random float64
	// Calibrated: the game's levels were measured (Xiangqi); else the
	// Elo is nominal.
	Calibrated bool
}

// StrengthFor returns what elo plays in gameName with the evaluation
// eval (EvalClassical or EvalLearned).
func StrengthFor(gameName, eval string, elo int) Strength {
	levels, calibrated := strengthLevels[gameName][eval]
	if !calibrated {
		levels = nominalLevels
	}
	st := Strength{Elo: elo, Calibrated: calibrated}
	first, last := levels[0], levels[len(levels)-1]
	switch {
	case elo <= first.Elo:
		st.Nodes, st.Random = first.Nodes, first.Random
	case elo >= last.Elo:
		st.Nodes, st.Random = last.Nodes, last.Random
	default:
		for i := 1; i < len(levels); i++ {
			a, b := levels[i-1], levels[i]
			if elo > b.Elo {
				continue
			}
			t := float64(elo-a.Elo) / float64(b.Elo-a.Elo)
			la, lb := math.Log(float64(a.Nodes)), math.Log(float64(b.Nodes))
			st.Nodes = uint64(math.Round(math.Exp(la + t*(lb-la))))
			st.Random = a.Random + t*(b.Random-a.Random)
			break
		}
	}
	return st
}

// Strength is the spec's strength limit for its game (ok false when it
// plays at full strength). A spec without a game (the engine's) names
// it: gameName.
func (s *Spec) Strength(gameName string) (Strength, bool) {
	if !s.LimitStrength || s.Kind != KindAB {
		return Strength{}, false
	}
	if gameName == "" {
		gameName = s.Game
	}
	return StrengthFor(gameName, s.Eval, s.Elo), true
}

// Limit caps lim's nodes at the strength's budget.
func (st Strength) Limit(lim alphabeta.Limits) alphabeta.Limits {
	if lim.Nodes == 0 || lim.Nodes > st.Nodes {
		lim.Nodes = st.Nodes
	}
	return lim
}

// Choose is the move played in p where the search chose best: with
// chance Random a uniformly random legal move instead. The draw comes
// from p's key alone, so a position gets the same move through every
// door (the arena, the engine, the Play page) and in every game, and a
// move drawn at one share is drawn at every higher one.
func (st Strength) Choose(p game.Position, best game.Move) (game.Move, bool) {
	if st.Random <= 0 {
		return best, false
	}
	h := mix(p.Key() ^ 0x5354524e47544821)
	if u := float64(h>>11) / (1 << 53); u >= st.Random {
		return best, false
	}
	legal := p.GenerateMoves(nil)
	if len(legal) == 0 {
		return best, false
	}
	hi, _ := bits.Mul64(mix(h), uint64(len(legal)))
	return legal[hi], true
}

// mix is SplitMix64's finaliser.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
