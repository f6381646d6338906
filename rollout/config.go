package rollout

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Algorithm names; the arena uses them as player kinds.
const (
	UCT    = "uct"
	Solver = "solver"
	MR     = "mcts-mr"
	MS     = "mcts-ms"
	MB     = "mcts-mb"
	PPA    = "ppa"
	PPAP   = "ppap"
	PPAF   = "ppaf"
	PPAFP  = "ppafp"
	MAST   = "mast"
)

// Algorithms lists the algorithm names.
var Algorithms = []string{UCT, Solver, MR, MS, MB, PPA, PPAP, PPAF, PPAFP, MAST}

// Config configures a Searcher. Start from DefaultConfig: its zero value
// is not a valid configuration.
type Config struct {
	Algorithm string
	// C is the UCT exploration constant on the [0, 1] win-rate scale.
	C float64
	// Playouts and MoveTime bound a search (iterations of select, expand,
	// playout, backpropagate); with both set, whichever comes first.
	Playouts int
	MoveTime time.Duration
	// PlayoutCap ends a playout as a draw after this many plies (0: only
	// the game's own rules end it).
	PlayoutCap int
	// Reuse keeps the tree across the moves of a game, as both theses
	// do; off, every search starts from a fresh tree.
	Reuse bool
	// MaxNodes caps the tree in nodes; beyond it leaves are no longer
	// expanded (playouts go on).
	MaxNodes int
	// A weighs the secure child's bonus (MCTS-Solver family).
	A float64
	// Depth is the plies of the hybrids' win/loss minimax; Threshold is
	// MCTS-MS's visit threshold.
	Depth, Threshold int
	// Alpha is the PPA step, Penalty PPAP's p (a loser's move loses
	// Alpha/Penalty), K the Gibbs temperature (exp(K*weight)).
	Alpha, Penalty, K float64
}

// Defaults, with their sources (Xiangqi thesis: Moesus 2026, Table 4.9 of
// the digest seed-xiangqi-abs-vs-ppa.md; Catch the Lion thesis: Schaffer
// 2024, seed-catch-the-lion-hybrids.md).
const (
	// DefaultPlayouts is the Xiangqi thesis's fixed budget (§4.7: 20,000
	// playouts per move).
	DefaultPlayouts = 20000
	// DefaultMaxNodes bounds a tree at about 160 MB.
	DefaultMaxNodes = 1 << 22
	// CUCT is sqrt(2), UCB1's constant and the Xiangqi thesis's default
	// (§2.3; UCT against ABS, Table G.1).
	CUCT = math.Sqrt2
	// CSolver is the Catch the Lion code's exploration: it computes
	// sqrt(C ln N / n) with C = sqrt(2) on the [-1, 1] scale, an
	// effective 2^(1/4) there, 2^(1/4)/2 on the [0, 1] scale used here.
	// The thesis itself never states its C.
	CSolver = 0.5946035575013605
)

// DefaultConfig returns the tuned configuration of an algorithm:
//
//	uct          c = sqrt 2
//	solver       c = 2^(1/4)/2, A = 1 (secure child, eq. 2.27)
//	mcts-mr      depth 1: MCTS-MR-1, the best MR (§3.2.1, 75.5 % vs MCTS-Solver)
//	mcts-ms      depth 6, threshold 20: MCTS-MS-6-20, the best MS at 2 s (§3.2.3)
//	mcts-mb      depth 3: MCTS-MB-3, the best MB (§3.2.2)
//	ppa, ppaf    alpha 1, c = sqrt 2, k 1 (the baseline series §4.1, Cazenave's k)
//	ppap         alpha 0.04, p 1, c 0.4, k 1 (Tables 4.1, B.1, D.4)
//	ppafp        alpha 0.32, p 2, c 0.4, k 1 (Tables A.1, B.2, D.5)
//	mast         k 16, c 0.9 (Tables C.1, C.2, D.6)
//
// Every algorithm gets DefaultPlayouts, no playout cap, tree reuse and
// DefaultMaxNodes.
func DefaultConfig(algorithm string) (Config, error) {
	c := Config{Algorithm: algorithm, C: CUCT, Playouts: DefaultPlayouts, Reuse: true, MaxNodes: DefaultMaxNodes, A: 1, K: 1, Alpha: 1, Penalty: 1}
	switch algorithm {
	case UCT, PPA, PPAF:
	case Solver:
		c.C = CSolver
	case MR:
		c.C, c.Depth = CSolver, 1
	case MS:
		c.C, c.Depth, c.Threshold = CSolver, 6, 20
	case MB:
		c.C, c.Depth = CSolver, 3
	case PPAP:
		c.Alpha, c.Penalty, c.C = 0.04, 1, 0.4
	case PPAFP:
		c.Alpha, c.Penalty, c.C = 0.32, 2, 0.4
	case MAST:
		c.K, c.C = 16, 0.9
	default:
		return Config{}, fmt.Errorf("rollout: unknown algorithm %q (valid: %s)", algorithm, strings.Join(Algorithms, ", "))
	}
	return c, nil
}

// MaxDepth bounds the hybrids' minimax depth.
const MaxDepth = 32

// Validate checks the configuration.
func (c Config) Validate() error {
	if !slices.Contains(Algorithms, c.Algorithm) {
		return fmt.Errorf("rollout: unknown algorithm %q (valid: %s)", c.Algorithm, strings.Join(Algorithms, ", "))
	}
	finite := func(name string, v, lo float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < lo {
			return fmt.Errorf("rollout: %s: %s = %v, want a finite number >= %v", c.Algorithm, name, v, lo)
		}
		return nil
	}
	if err := finite("c", c.C, 0); err != nil {
		return err
	}
	if c.Playouts < 0 || c.MoveTime < 0 || (c.Playouts == 0 && c.MoveTime == 0) {
		return fmt.Errorf("rollout: %s needs a budget: playouts > 0 or a move time > 0", c.Algorithm)
	}
	if c.PlayoutCap < 0 || c.MaxNodes < 0 {
		return fmt.Errorf("rollout: %s: negative playout cap or node limit", c.Algorithm)
	}
	if c.solver() {
		if err := finite("A", c.A, 0); err != nil {
			return err
		}
	}
	if c.Algorithm == MR || c.Algorithm == MS || c.Algorithm == MB {
		if c.Depth < 1 || c.Depth > MaxDepth {
			return fmt.Errorf("rollout: %s: depth %d out of range [1, %d]", c.Algorithm, c.Depth, MaxDepth)
		}
	}
	if c.Algorithm == MS && c.Threshold < 1 {
		return fmt.Errorf("rollout: %s: threshold %d, want >= 1", c.Algorithm, c.Threshold)
	}
	if c.policy() != polNone {
		if err := finite("k", c.K, 0); err != nil {
			return err
		}
	}
	if c.policy() == polPPA || c.policy() == polPPAP {
		if err := finite("alpha", c.Alpha, 0); err != nil {
			return err
		}
	}
	if c.policy() == polPPAP && (c.Penalty <= 0 || math.IsNaN(c.Penalty) || math.IsInf(c.Penalty, 0)) {
		return fmt.Errorf("rollout: %s: p = %v, want a finite number > 0", c.Algorithm, c.Penalty)
	}
	return nil
}

// solver reports whether the algorithm is MCTS-Solver or a hybrid on it.
func (c Config) solver() bool {
	switch c.Algorithm {
	case Solver, MR, MS, MB:
		return true
	}
	return false
}

// Policy kinds of the playouts.
const (
	polNone = iota // uniform (uct, solver, ms, mb) or minimax (mr)
	polPPA
	polPPAP
	polMAST
)

func (c Config) policy() int {
	switch c.Algorithm {
	case PPA, PPAF:
		return polPPA
	case PPAP, PPAFP:
		return polPPAP
	case MAST:
		return polMAST
	}
	return polNone
}

// features reports whether move codes carry PPAF's move features.
func (c Config) features() bool { return c.Algorithm == PPAF || c.Algorithm == PPAFP }
