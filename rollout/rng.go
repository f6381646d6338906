package rollout

import (
	"math/bits"
	"math/rand/v2"
)

// rngStream is the PCG stream of every searcher ("rollout"); the seed
// selects the sequence within it.
const rngStream = 0x726f6c6c6f7574

// rng is a PCG generator called directly (not through rand.Source), so
// that the playout's per-step draws stay cheap.
type rng struct{ src rand.PCG }

func (r *rng) seed(seed uint64) { r.src.Seed(seed, rngStream) }

// intn returns a uniform integer in [0, n), n > 0 (Lemire's
// multiply-shift with rejection: exact, no division on the fast path).
func (r *rng) intn(n int) int {
	un := uint64(n)
	hi, lo := bits.Mul64(r.src.Uint64(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(r.src.Uint64(), un)
		}
	}
	return int(hi)
}

// float64 returns a uniform number in [0, 1).
func (r *rng) float64() float64 { return float64(r.src.Uint64()>>11) * 0x1p-53 }
