package game

import (
	"fmt"
	"math/rand/v2"
)

// RandomOpening returns plies uniformly random moves from start (which it
// does not modify) that leave the game open, drawn from rng: the openings
// of arena pairs and of self-play games. An attempt that ends the game is
// drawn again.
func RandomOpening(start Position, plies int, rng *rand.Rand) ([]Move, error) {
	for range 1000 {
		q := start.Clone()
		var moves []Move
		for len(moves) < plies && !q.Status().Over() {
			ms := q.GenerateMoves(nil)
			mv := ms[rng.IntN(len(ms))]
			q.Make(mv)
			moves = append(moves, mv)
		}
		if len(moves) == plies && !q.Status().Over() {
			return moves, nil
		}
	}
	return nil, fmt.Errorf("game: no random opening of %d plies that leaves the game open", plies)
}
