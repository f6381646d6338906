package game

import "strconv"

// Exact is a solved position's value for the side to move: Win, Loss or
// Draw, and for a win or loss the plies to the end of the game with best
// play (the winner hurrying, the loser delaying). The solvers and
// tablebases answer it; the engine, the arena and the Play page read it.
type Exact struct {
	Outcome Result
	Plies   int
}

func (e Exact) String() string {
	switch e.Outcome {
	case Win:
		return "win in " + strconv.Itoa(e.Plies)
	case Loss:
		return "loss in " + strconv.Itoa(e.Plies)
	}
	return "draw"
}

// Before is the value of the move that leads to a position of value e,
// for the side that plays it: a ply more, the outcome turned.
func (e Exact) Before() Exact {
	switch e.Outcome {
	case Win:
		return Exact{Loss, e.Plies + 1}
	case Loss:
		return Exact{Win, e.Plies + 1}
	}
	return e
}

// Rank orders values for the side they belong to: a quicker win above a
// slower one, then a draw, then a slower loss above a quicker one.
func (e Exact) Rank() int {
	switch e.Outcome {
	case Win:
		return 1_000_000 - e.Plies
	case Loss:
		return -1_000_000 + e.Plies
	}
	return 0
}
