package data

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tabula-zero/tabula/game"
)

// Window is the replay window: the newest capacity samples across the
// shards of a directory, sampled uniformly, with the game's symmetries
// applied at sampling time. It is not safe for concurrent use.
type Window struct {
	dir      string
	game     game.Game
	opts     game.Options
	capacity int

	shards []loadedShard // oldest first
	total  int
	seen   map[string]bool // shard names loaded or rejected
	// OnCorrupt, if set, hears about every shard that cannot be read; the
	// shard is skipped and not retried.
	OnCorrupt func(path string, err error)
	// RootValueWeight mixes the search's root value into the value target:
	// (1-w)*z + w*q, where z is the game's result (0: the result only).
	RootValueWeight float32

	planes []float32   // scratch: one position's planes
	moves  []game.Move // scratch: one position's legal moves
}

type loadedShard struct {
	name    string
	samples []Sample
}

// NewWindow returns an empty window over dir for game g (rule options
// opts, for parsing positions).
func NewWindow(dir string, g game.Game, opts game.Options, capacity int) (*Window, error) {
	if capacity < 1 {
		return nil, fmt.Errorf("data: window capacity %d must be positive", capacity)
	}
	c, h, w := g.Encoder.Shape()
	return &Window{dir: dir, game: g, opts: opts, capacity: capacity, seen: map[string]bool{}, planes: make([]float32, c*h*w)}, nil
}

// Len returns the number of samples in the window.
func (w *Window) Len() int { return w.total }

// Refresh loads shards that appeared since the last call, in name order
// (generation first), and drops the oldest samples beyond the capacity.
// Unreadable shards (a FIFO or a device among them is refused, not
// opened for reading) and shards of another game or encoder version are
// reported to OnCorrupt and skipped. It returns the samples added.
func (w *Window) Refresh() (int, error) {
	es, err := os.ReadDir(w.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("data: %w", err)
	}
	var names []string
	for _, e := range es {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, Ext) && !strings.HasPrefix(n, ".") && !w.seen[n] {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	added := 0
	for _, n := range names {
		w.seen[n] = true
		path := filepath.Join(w.dir, n)
		h, samples, err := readSafe(path)
		if err == nil && (h.Game != w.game.Name || h.EncoderVersion != w.game.Encoder.Version()) {
			err = fmt.Errorf("data: %s: shard of %s encoder %d, window is %s encoder %d", path, h.Game, h.EncoderVersion, w.game.Name, w.game.Encoder.Version())
		}
		if err != nil {
			if w.OnCorrupt != nil {
				w.OnCorrupt(path, err)
			}
			continue
		}
		w.shards = append(w.shards, loadedShard{name: n, samples: samples})
		w.total += len(samples)
		added += len(samples)
	}
	w.trim()
	return added, nil
}

// readSafe is Read, with a panic (a reader's bug no fuzzing found) an
// error: the shard stays in the directory, and a panic would stop the
// trainer at every start.
func readSafe(path string) (h Header, samples []Sample, err error) {
	defer func() {
		if p := recover(); p != nil {
			h, samples, err = Header{}, nil, fmt.Errorf("data: %s: reading it panicked: %v", path, p)
		}
	}()
	return readShard(path)
}

// readShard reads a shard for the window; tests replace it.
var readShard = Read

// Add puts samples into the window directly (self-play in the same
// process), as if from a shard with the given name.
func (w *Window) Add(name string, samples []Sample) {
	w.seen[name] = true
	w.shards = append(w.shards, loadedShard{name: name, samples: samples})
	w.total += len(samples)
	w.trim()
}

// trim drops the oldest samples beyond the capacity (a partly dropped
// shard keeps its newest samples).
func (w *Window) trim() {
	for limit := w.capacity; w.total > limit; {
		over := w.total - limit
		s := &w.shards[0]
		if over >= len(s.samples) {
			w.total -= len(s.samples)
			w.shards = w.shards[1:]
			continue
		}
		s.samples = s.samples[over:]
		w.total -= over
	}
}

// at returns the i-th sample, oldest first.
func (w *Window) at(i int) *Sample {
	for k := range w.shards {
		sh := &w.shards[k]
		if i < len(sh.samples) {
			return &sh.samples[i]
		}
		i -= len(sh.samples)
	}
	return nil
}

// Draw picks a sample uniformly and a symmetry uniformly among the
// identity (-1) and the game's symmetries.
func (w *Window) Draw(rng *rand.Rand) (*Sample, int) {
	return w.at(rng.IntN(w.total)), w.symmetry(rng)
}

func (w *Window) symmetry(rng *rand.Rand) int {
	return rng.IntN(len(w.game.Encoder.Symmetries())+1) - 1
}

// Batch fills a training batch of n samples: planes [n][c][h][w], dense
// policy targets [n][actions] (renormalised to sum to 1) and results
// [n]. With wdl non-nil it writes each sample's win/draw/loss target
// [n][3] (WDLTarget), for a network with the WDL head. With legal non-nil it marks each sample's
// legal actions [n][actions] (and any action its target names: a
// position read back from its text has no history, so a move that
// history allowed is kept rather than dropped). Symmetries are applied
// to planes, policies and masks alike.
func (w *Window) Batch(rng *rand.Rand, n int, planes, policy, value, wdl []float32, legal []bool) error {
	if w.total == 0 {
		return errors.New("data: the replay window is empty")
	}
	enc := w.game.Encoder
	size := len(w.planes)
	actions := enc.ActionSize()
	if len(planes) != n*size || len(policy) != n*actions || len(value) != n {
		return fmt.Errorf("data: batch buffers have lengths %d, %d, %d; want %d, %d, %d", len(planes), len(policy), len(value), n*size, n*actions, n)
	}
	if wdl != nil && len(wdl) != 3*n {
		return fmt.Errorf("data: win/draw/loss buffer has length %d, want %d", len(wdl), 3*n)
	}
	if legal != nil && len(legal) != n*actions {
		return fmt.Errorf("data: legal-action buffer has length %d, want %d", len(legal), n*actions)
	}
	c, _, _ := enc.Shape()
	syms := enc.Symmetries()
	for i := 0; i < n; i++ {
		s := w.at(rng.IntN(w.total))
		sym := w.symmetry(rng)
		p, err := w.game.Parse(s.Position, w.opts)
		if err != nil {
			return fmt.Errorf("data: sample position %q: %w", s.Position, err)
		}
		dst := planes[i*size : (i+1)*size]
		if sym < 0 {
			enc.Encode(p, dst)
		} else {
			enc.Encode(p, w.planes)
			syms[sym].ApplyPlanes(dst, w.planes, c)
		}
		var actionMap []int
		if sym >= 0 {
			actionMap = syms[sym].Actions
		}
		if err := denseTarget(policy[i*actions:(i+1)*actions], s.Policy, actionMap); err != nil {
			return err
		}
		if legal != nil {
			lr := legal[i*actions : (i+1)*actions]
			clear(lr)
			w.moves = p.GenerateMoves(w.moves)
			for _, m := range w.moves {
				lr[mapAction(enc.ActionIndex(p, m), actionMap)] = true
			}
			for _, e := range s.Policy { // checked by denseTarget
				lr[mapAction(e.Action, actionMap)] = true
			}
		}
		value[i] = s.Result + w.RootValueWeight*(s.RootValue-s.Result)
		if wdl != nil {
			WDLTarget(s, w.RootValueWeight, wdl[3*i:3*i+3])
		}
	}
	return nil
}

// WDLTarget writes the win/draw/loss target of sample s into dst, from
// the side to move's view: the game's outcome as a one-hot, mixed with
// weight rootWeight (RootValueWeight) with the search's root value q as
// W = (1+q)/2, D = 0, L = (1-q)/2. The outcome is the sign of Result: a
// result shrunk by selfplay.discount keeps its sign, and the head learns
// the outcome's probabilities, not the discount. The root value is a
// scalar, which says nothing of draws, so its share adds no draw mass
// (a share of 1-|q| would teach balanced positions as drawn, the very
// confusion the head is for); W - L of the target is then
// (1-w)*outcome + w*q, the scalar target's mix.
func WDLTarget(s *Sample, rootWeight float32, dst []float32) {
	clear(dst[:3])
	switch {
	case s.Result > 0:
		dst[0] = 1 - rootWeight
	case s.Result < 0:
		dst[2] = 1 - rootWeight
	default:
		dst[1] = 1 - rootWeight
	}
	if rootWeight != 0 {
		dst[0] += rootWeight * (1 + s.RootValue) / 2
		dst[2] += rootWeight * (1 - s.RootValue) / 2
	}
}

// mapAction returns action a through a symmetry's action map (a itself
// for a nil map).
func mapAction(a int, actionMap []int) int {
	if actionMap != nil {
		return actionMap[a]
	}
	return a
}

// denseTarget writes a sparse policy target into dst (one row of the
// action space), through the symmetry's action map when it is not nil,
// renormalised to sum to 1.
func denseTarget(dst []float32, entries []PolicyEntry, actionMap []int) error {
	clear(dst)
	var sum float32
	for _, e := range entries {
		if e.Action < 0 || e.Action >= len(dst) {
			return fmt.Errorf("data: sample action %d outside the action space %d", e.Action, len(dst))
		}
		a := mapAction(e.Action, actionMap)
		dst[a] += e.Prob
		sum += e.Prob
	}
	if sum > 0 {
		for j := range dst {
			dst[j] /= sum
		}
	}
	return nil
}
