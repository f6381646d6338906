package tablebase

import (
	"fmt"
	"math/bits"
	"sort"
)

// Material is how many pieces of each kind besides the lions are in play,
// on the board (either side, chicks possibly promoted) or in hand. The game
// has two of each; smaller materials give sub-tables that build in
// moments. Moves never change the material, so a sub-table is closed.
type Material struct {
	Chicks, Giraffes, Elephants int
}

// Full is the material of the game.
var Full = Material{2, 2, 2}

func (m Material) count(k int) int { return [3]int{m.Chicks, m.Giraffes, m.Elephants}[k] }

func (m Material) String() string {
	return fmt.Sprintf("%dC%dG%dE", m.Chicks, m.Giraffes, m.Elephants)
}

func (m Material) valid() error {
	for k := range nkinds {
		if c := m.count(k); c < 0 || c > 2 {
			return fmt.Errorf("tablebase: material %v: each kind counts 0 to 2", m)
		}
	}
	return nil
}

// config is one way of splitting the material: n[k] pieces of kind k on
// the board, h[k] in our hand (the rest in theirs). Its positions are
// the ordered placements of the board pieces on the ten squares the lions
// leave free, times an owner bit per board piece and a promotion bit per
// board chick.
type config struct {
	n, h   [nkinds]int
	k      int    // board pieces
	c1, c2 uint64 // placements of giraffes, elephants among the squares left
	size   uint64
	off    uint64
}

// indexer maps stored positions to a dense index and back.
//
// A stored position has our lion off our far rank, theirs off their far
// rank, the lions not side by side (every other position is decided by
// trivial), and is canonical under the mirror: our lion on file a, or on
// file b with theirs on a or b. Index = pair*perPair + config offset +
// (placement << (pieces + chicks)) | owner and promotion bits, placements
// ranked in the combinatorial number system.
type indexer struct {
	mat     Material
	pairs   [][2]int8       // stored lion pairs (ours, theirs)
	pairOf  [nsq][nsq]int16 // -1 when not stored
	configs []config
	cfgOf   [3][3][3][3][3][3]int16
	perPair uint64
	size    uint64
}

// binom[n][k] for n <= 12.
var binom [13][13]uint64

// colex[m] ranks the 10-bit mask m among masks of its popcount (the
// combinatorial number system: sum of C(position, i+1) over its bits);
// unrank[k][r] inverts it for k <= 2.
var (
	colex  [1 << 10]uint32
	unrank [3][]uint16
)

func init() {
	for n := range 13 {
		binom[n][0] = 1
		for k := 1; k <= n; k++ {
			binom[n][k] = binom[n-1][k-1] + binom[n-1][k]
		}
	}
	for k := range 3 {
		unrank[k] = make([]uint16, binom[10][k])
	}
	for m := range 1 << 10 {
		var r uint64
		i := 0
		for b := m; b != 0; b &= b - 1 {
			i++
			r += binom[bits.TrailingZeros(uint(b))][i]
		}
		colex[m] = uint32(r)
		if k := bits.OnesCount(uint(m)); k <= 2 {
			unrank[k][r] = uint16(m)
		}
	}
}

// squeeze removes the bit positions in holes from x (x has none of them
// set), closing up the gaps; expand is its inverse.
func squeeze(x, holes uint16) uint16 {
	for holes != 0 {
		h := 15 - bits.LeadingZeros16(holes) // highest first
		holes &^= 1 << h
		x = x&(1<<h-1) | x>>(h+1)<<h
	}
	return x
}

func expand(x, holes uint16) uint16 {
	for holes != 0 {
		h := bits.TrailingZeros16(holes) // lowest first
		holes &= holes - 1
		x = x&(1<<h-1) | x>>h<<(h+1)
	}
	return x
}

// storedPair reports whether a lion pair is stored before the mirror.
func storedPair(ours, theirs int) bool {
	return ours != theirs && topRank&(1<<ours) == 0 && homeRank&(1<<theirs) == 0 &&
		steps[0][lionT][ours]&(1<<theirs) == 0
}

// needsMirror reports whether a stored pair is the mirror of the stored one.
func needsMirror(ours, theirs int) bool {
	fo, ft := ours%nfiles, theirs%nfiles
	return fo == 2 || fo == 1 && ft == 2
}

func newIndexer(mat Material) (*indexer, error) {
	if err := mat.valid(); err != nil {
		return nil, err
	}
	ix := &indexer{mat: mat}
	for o := range nsq {
		for t := range nsq {
			ix.pairOf[o][t] = -1
			if storedPair(o, t) && !needsMirror(o, t) {
				ix.pairOf[o][t] = int16(len(ix.pairs))
				ix.pairs = append(ix.pairs, [2]int8{int8(o), int8(t)})
			}
		}
	}
	for i := range ix.cfgOf {
		for j := range ix.cfgOf[i] {
			for k := range ix.cfgOf[i][j] {
				for a := range ix.cfgOf[i][j][k] {
					for b := range ix.cfgOf[i][j][k][a] {
						for c := range ix.cfgOf[i][j][k][a][b] {
							ix.cfgOf[i][j][k][a][b][c] = -1
						}
					}
				}
			}
		}
	}
	var off uint64
	for n0 := 0; n0 <= mat.Chicks; n0++ {
		for n1 := 0; n1 <= mat.Giraffes; n1++ {
			for n2 := 0; n2 <= mat.Elephants; n2++ {
				for h0 := 0; h0 <= mat.Chicks-n0; h0++ {
					for h1 := 0; h1 <= mat.Giraffes-n1; h1++ {
						for h2 := 0; h2 <= mat.Elephants-n2; h2++ {
							c := config{n: [3]int{n0, n1, n2}, h: [3]int{h0, h1, h2}, k: n0 + n1 + n2}
							c.c1 = binom[10-n0][n1]
							c.c2 = binom[10-n0-n1][n2]
							c.size = binom[10][n0] * c.c1 * c.c2 << (c.k + n0)
							c.off = off
							off += c.size
							ix.cfgOf[n0][n1][n2][h0][h1][h2] = int16(len(ix.configs))
							ix.configs = append(ix.configs, c)
						}
					}
				}
			}
		}
	}
	ix.perPair = off
	ix.size = off * uint64(len(ix.pairs))
	return ix, nil
}

// weight is how many positions the entry i stands for: two (it and its
// mirror image) unless both lions are on file b, where both images are
// stored.
func (ix *indexer) weight(i uint64) uint64 {
	pr := ix.pairs[i/ix.perPair]
	if pr[0]%nfiles == 1 && pr[1]%nfiles == 1 {
		return 1
	}
	return 2
}

// index returns the entry of a stored position (see trivial) given its
// lion squares.
func (ix *indexer) index(p *pos, ours, theirs int) uint64 {
	if needsMirror(ours, theirs) {
		q := p.mirror()
		return ix.index(&q, mirrorSq[ours], mirrorSq[theirs])
	}
	pair := uint64(ix.pairOf[ours][theirs])
	holes := uint16(1)<<ours | uint16(1)<<theirs
	m := [nkinds]uint16{p.kind[chick] | p.kind[hen], p.kind[giraffe], p.kind[elephant]}
	owners, promo := p.occ[1], p.kind[hen]
	c0 := squeeze(m[0], holes)
	c1 := squeeze(m[1], holes)
	c2 := squeeze(m[2], holes)
	n0, n1, n2 := bits.OnesCount16(c0), bits.OnesCount16(c1), bits.OnesCount16(c2)
	cf := &ix.configs[ix.cfgOf[n0][n1][n2][p.hand[0][0]][p.hand[0][1]][p.hand[0][2]]]
	place := (uint64(colex[c0])*cf.c1+uint64(colex[squeeze(c1, c0)]))*cf.c2 +
		uint64(colex[squeeze(c2, c0|c1)])
	// Owner bits of chicks, giraffes, elephants, each by square, then the
	// chicks' promotion bits.
	var ob uint64
	nb := 0
	for k := range nkinds {
		for b := m[k]; b != 0; b &= b - 1 {
			s := bits.TrailingZeros16(b)
			ob |= uint64(owners>>s&1) << nb
			nb++
		}
	}
	for b := m[0]; b != 0; b &= b - 1 {
		s := bits.TrailingZeros16(b)
		ob |= uint64(promo>>s&1) << nb
		nb++
	}
	return pair*ix.perPair + cf.off + (place<<nb | ob)
}

// position returns the stored position of entry i with its lion squares.
func (ix *indexer) position(i uint64) (p pos, ours, theirs int) {
	pr := ix.pairs[i/ix.perPair]
	return ix.placement(int(pr[0]), int(pr[1]), i%ix.perPair), int(pr[0]), int(pr[1])
}

// placement returns the position with the lions on ours and theirs and
// the rest given by sub, below perPair: any lion pair, stored or not.
func (ix *indexer) placement(ours, theirs int, sub uint64) (p pos) {
	ci := sort.Search(len(ix.configs), func(j int) bool { return ix.configs[j].off > sub }) - 1
	cf := &ix.configs[ci]
	local := sub - cf.off
	nb := cf.k + cf.n[0]
	ob := local & (1<<nb - 1)
	place := local >> nb
	r2 := place % cf.c2
	place /= cf.c2
	r1 := place % cf.c1
	r0 := place / cf.c1
	c0 := unrank[cf.n[0]][r0]
	c1 := expand(unrank[cf.n[1]][r1], c0)
	c2 := expand(unrank[cf.n[2]][r2], c0|c1)
	holes := uint16(1)<<ours | uint16(1)<<theirs
	p.put(ours, lionT, 0)
	p.put(theirs, lionT, 1)
	m := [nkinds]uint16{expand(c0, holes), expand(c1, holes), expand(c2, holes)}
	nbit := 0
	for k := range nkinds {
		for b := m[k]; b != 0; b &= b - 1 {
			s := bits.TrailingZeros16(b)
			p.put(s, k, int(ob>>nbit&1))
			nbit++
		}
	}
	for b := m[0]; b != 0; b &= b - 1 {
		s := bits.TrailingZeros16(b)
		if ob>>nbit&1 != 0 {
			p.kind[chick] &^= 1 << s
			p.kind[hen] |= 1 << s
		}
		nbit++
	}
	for k := range nkinds {
		p.hand[0][k] = uint8(cf.h[k])
		p.hand[1][k] = uint8(ix.mat.count(k) - cf.n[k] - cf.h[k])
	}
	return p
}

// allPositions is how many positions of the material there are with the
// side to move fixed, over all 132 lion pairs (stored or not): Tanaka's
// count of positions for the full material.
func (ix *indexer) allPositions() uint64 { return 132 * ix.perPair }
