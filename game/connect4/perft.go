package connect4

import "math/bits"

// Perft counts the leaves of the legal move tree to depth on the raw
// bitboards: no interface calls, no history or key updates, the last ply
// counted in bulk. A position with four in a row or a full board has no
// moves, as in GenerateMoves.
func (p *Position) Perft(depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	if p.over() {
		return 0
	}
	return perft(p.current, p.mask, depth)
}

// perft assumes the position (current to move) is not decided yet.
func perft(current, mask uint64, depth int) uint64 {
	possible := Possible(mask)
	if depth == 1 {
		return uint64(bits.OnesCount64(possible))
	}
	var n uint64
	for possible != 0 {
		mv := possible & -possible
		possible &= possible - 1
		if HasFour(current | mv) {
			continue // the child is decided and has no moves; depth-1 >= 1
		}
		n += perft(current^mask, mask|mv, depth-1)
	}
	return n
}
