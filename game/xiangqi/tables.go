package xiangqi

import "math/rand/v2"

// Slider tables by line occupancy: for a piece at index i of a line (9
// squares of a rank, 10 of a file) and the occupancy bits of that line,
// quiet is the empty run in both directions, rookCap the first blocker in
// each direction and cannonCap the piece behind the first blocker (the
// cannon's capture over a screen). Captures include own pieces; callers
// filter by colour.
type lineEntry struct {
	quiet, rookCap, cannonCap uint16
}

var (
	rankLine [Files][1 << Files]lineEntry
	fileLine [Ranks][1 << Ranks]lineEntry
)

// legTo is a blockable step: the target and the square that must be empty
// (horse leg or elephant eye).
type legTo struct{ leg, to int8 }

var (
	horseMoves   [NumSquares][8]legTo
	horseN       [NumSquares]uint8
	horseAttacks [NumSquares][8]legTo // horses that could attack the square: leg and horse square
	horseAttN    [NumSquares]uint8
	elephMoves   [NumSquares][4]legTo
	elephN       [NumSquares]uint8
	advMoves     [NumSquares][4]int8
	advN         [NumSquares]uint8
	kingMoves    [NumSquares][4]int8
	kingN        [NumSquares]uint8
	pawnMoves    [2][NumSquares][3]int8
	pawnN        [2][NumSquares]uint8

	// sensitive[k][s]: bit 0 when a piece leaving s may expose a general on
	// k (same rank or file, or a horse-leg square of k), bit 1 when a piece
	// arriving on s may (same rank or file: a new cannon screen).
	sensitive [NumSquares][NumSquares]uint8

	inPalace  [2][NumSquares]bool
	advSquare [2][NumSquares]bool
	eleSquare [2][NumSquares]bool

	// zobrist[v][sq] for board value v (keys by colour and type, so equal
	// pieces share keys); zobristSide is xored in when Black is to move.
	zobrist     [33][NumSquares]uint64
	zobristSide uint64
)

func onBoard(r, f int) bool { return r >= 0 && r < Ranks && f >= 0 && f < Files }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func init() {
	initLines()
	for c := 0; c < 2; c++ {
		for sq := 0; sq < NumSquares; sq++ {
			r, f := rankOf(sq), fileOf(sq)
			rr := r // rank from the side's own back rank
			if c == 1 {
				rr = Ranks - 1 - r
			}
			inPalace[c][sq] = rr <= 2 && f >= 3 && f <= 5
			advSquare[c][sq] = inPalace[c][sq] && (rr+f)%2 == 1
			eleSquare[c][sq] = rr <= 4 && rr%2 == 0 && f%2 == 0 && (rr/2+f/2)%2 == 1
		}
	}
	for sq := 0; sq < NumSquares; sq++ {
		r, f := rankOf(sq), fileOf(sq)
		// Horse: two steps along one axis, one along the other; the leg is
		// the first orthogonal step.
		for _, d := range [8][2]int{{2, 1}, {2, -1}, {-2, 1}, {-2, -1}, {1, 2}, {-1, 2}, {1, -2}, {-1, -2}} {
			tr, tf := r+d[0], f+d[1]
			if !onBoard(tr, tf) {
				continue
			}
			var lr, lf int
			if abs(d[0]) == 2 {
				lr, lf = r+d[0]/2, f
			} else {
				lr, lf = r, f+d[1]/2
			}
			horseMoves[sq][horseN[sq]] = legTo{int8(lr*Files + lf), int8(tr*Files + tf)}
			horseN[sq]++
			// Seen from the target: a horse on sq attacks tr,tf through the leg.
			t := tr*Files + tf
			horseAttacks[t][horseAttN[t]] = legTo{int8(lr*Files + lf), int8(sq)}
			horseAttN[t]++
		}
		for c := 0; c < 2; c++ {
			if eleSquare[c][sq] {
				for _, d := range [4][2]int{{2, 2}, {2, -2}, {-2, 2}, {-2, -2}} {
					tr, tf := r+d[0], f+d[1]
					if onBoard(tr, tf) && eleSquare[c][tr*Files+tf] {
						elephMoves[sq][elephN[sq]] = legTo{int8((r+d[0]/2)*Files + f + d[1]/2), int8(tr*Files + tf)}
						elephN[sq]++
					}
				}
			}
			if advSquare[c][sq] {
				for _, d := range [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
					tr, tf := r+d[0], f+d[1]
					if onBoard(tr, tf) && advSquare[c][tr*Files+tf] {
						advMoves[sq][advN[sq]] = int8(tr*Files + tf)
						advN[sq]++
					}
				}
			}
			if inPalace[c][sq] {
				for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
					tr, tf := r+d[0], f+d[1]
					if onBoard(tr, tf) && inPalace[c][tr*Files+tf] {
						kingMoves[sq][kingN[sq]] = int8(tr*Files + tf)
						kingN[sq]++
					}
				}
			}
			// Soldiers step forward, and sideways once across the river.
			fwd, crossed := 1, r >= 5
			if c == 1 {
				fwd, crossed = -1, r <= 4
			}
			if onBoard(r+fwd, f) {
				pawnMoves[c][sq][pawnN[c][sq]] = int8((r+fwd)*Files + f)
				pawnN[c][sq]++
			}
			if crossed {
				for _, df := range []int{-1, 1} {
					if onBoard(r, f+df) {
						pawnMoves[c][sq][pawnN[c][sq]] = int8(r*Files + f + df)
						pawnN[c][sq]++
					}
				}
			}
		}
	}
	for k := 0; k < NumSquares; k++ {
		kr, kf := rankOf(k), fileOf(k)
		for s := 0; s < NumSquares; s++ {
			sr, sf := rankOf(s), fileOf(s)
			line := sr == kr || sf == kf
			if line || (abs(sr-kr) == 1 && abs(sf-kf) == 1) {
				sensitive[k][s] |= 1
			}
			if line {
				sensitive[k][s] |= 2
			}
		}
	}
	// Fixed seed: keys must be identical in every process, since they are
	// stored in replay shards and transposition tables are compared across runs.
	rng := rand.New(rand.NewPCG(0x5869616e, 0x67716931))
	var byKind [2][numTypes][NumSquares]uint64
	for c := range byKind {
		for t := 1; t < numTypes; t++ {
			for sq := range byKind[c][t] {
				byKind[c][t][sq] = rng.Uint64()
			}
		}
	}
	for v := 1; v <= 32; v++ {
		zobrist[v] = byKind[valColor[v]][valType[v]]
	}
	zobristSide = rng.Uint64()
	initActions()
	initPalaceIndex()
	initEval()
}

func initLines() {
	fill := func(n, i int, occ uint16) lineEntry {
		var e lineEntry
		for _, dir := range []int{-1, 1} {
			j := i + dir
			for j >= 0 && j < n && occ&(1<<j) == 0 {
				e.quiet |= 1 << j
				j += dir
			}
			if j < 0 || j >= n {
				continue
			}
			e.rookCap |= 1 << j
			for j += dir; j >= 0 && j < n; j += dir {
				if occ&(1<<j) != 0 {
					e.cannonCap |= 1 << j
					break
				}
			}
		}
		return e
	}
	for i := 0; i < Files; i++ {
		for occ := 0; occ < 1<<Files; occ++ {
			rankLine[i][occ] = fill(Files, i, uint16(occ))
		}
	}
	for i := 0; i < Ranks; i++ {
		for occ := 0; occ < 1<<Ranks; occ++ {
			fileLine[i][occ] = fill(Ranks, i, uint16(occ))
		}
	}
}
