package lion

import (
	"math/bits"
	"math/rand/v2"

	"github.com/tabula-zero/tabula/game"
)

// Board geometry: bit s = rank*3 + file, rank 0 = the first player's home
// rank (rank 1 in text), file 0 = file a.
const (
	files   = 3
	ranks   = 4
	squares = files * ranks
	allBits = 1<<squares - 1
)

// Piece types. The first three are the ones a hand can hold, so they double
// as hand indices.
const (
	Chick = iota
	Giraffe
	Elephant
	Lion
	Hen
	numTypes
	numHand = 3
)

// farRank[c] is the rank colour c's lion tries to reach and its chicks
// promote on: rank 4 (bits 9-11) for the first player, rank 1 for the
// second.
var farRank = [2]uint16{0b111 << 9, 0b111}

// attacks[c][t][s] is the set of squares a piece of type t and colour c on
// square s attacks (every piece moves one step, so attacks = moves before
// removing own pieces).
var attacks [2][numTypes][squares]uint16

// Piece codes on the mailbox: 0 is empty, otherwise (type+1) | colour<<3.
func code(t int, c game.Color) uint8 { return uint8(t+1) | uint8(c)<<3 }
func typeOf(pc uint8) int            { return int(pc&7) - 1 }
func colorOf(pc uint8) game.Color    { return game.Color(pc >> 3) }

// Zobrist keys. handKey[c][t][0] is zero so that a count change from n to m
// is key ^= handKey[c][t][n] ^ handKey[c][t][m].
var (
	pieceKey [2][numTypes][squares]uint64
	handKey  [2][numHand][3]uint64
	sideKey  uint64 // xored in when the second player is to move
)

func init() {
	type step struct{ df, dr int }
	// Directions from the first player's view (forward = +1 rank); the
	// second player's tables use the same steps with dr negated.
	patterns := [numTypes][]step{
		Chick:    {{0, 1}},
		Giraffe:  {{0, 1}, {1, 0}, {0, -1}, {-1, 0}},
		Elephant: {{1, 1}, {1, -1}, {-1, -1}, {-1, 1}},
		Lion:     {{0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}},
		Hen:      {{0, 1}, {1, 1}, {-1, 1}, {1, 0}, {-1, 0}, {0, -1}},
	}
	for c := range 2 {
		sign := 1
		if c == 1 {
			sign = -1
		}
		for t, steps := range patterns {
			for s := range squares {
				f, r := s%files, s/files
				var b uint16
				for _, st := range steps {
					nf, nr := f+st.df, r+sign*st.dr
					if nf >= 0 && nf < files && nr >= 0 && nr < ranks {
						b |= 1 << (nr*files + nf)
					}
				}
				attacks[c][t][s] = b
			}
		}
	}

	// A fixed seed keeps keys (and so transposition tables, caches and
	// recorded hashes) identical across runs and machines.
	rng := rand.New(rand.NewPCG(0x6c696f6e, 0x746162756c61))
	for c := range 2 {
		for t := range numTypes {
			for s := range squares {
				pieceKey[c][t][s] = rng.Uint64()
			}
		}
		for t := range numHand {
			for n := 1; n < 3; n++ {
				handKey[c][t][n] = rng.Uint64()
			}
		}
	}
	sideKey = rng.Uint64()
}

func popcount(b uint16) int { return bits.OnesCount16(b) }
func lsb(b uint16) int      { return bits.TrailingZeros16(b) }
