package selfplay

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
)

// MoveSearch is what the search said before a move of a watched game: its
// best moves with their shares of the policy target and its value for the
// side to move.
type MoveSearch struct {
	Top   []MoveShare `json:"top"`
	Value float32     `json:"value"`
}

// MoveShare is one move and its share.
type MoveShare struct {
	Move  string  `json:"move"`
	Share float32 `json:"share"`
}

// topMoves is how many of a search's moves a watched game keeps.
const topMoves = 5

// LiveGame is a self-play game as it is played: the moves so far (the
// random opening included) and, for each searched move, the search.
type LiveGame struct {
	Game string `json:"game"`
	ID   uint64 `json:"id"`
	// Generation is the network's the game began with (its teacher or
	// blend follow from it); Network is the one that searched its latest
	// move: the worker takes each new best network into the games in
	// flight, so a long game may be played by several.
	Generation int           `json:"generation"`
	Network    int           `json:"network"`
	Moves      []string      `json:"moves"`
	Search     []*MoveSearch `json:"search"` // per move; nil where no search recorded it
	Over       bool          `json:"over"`
	Result     string        `json:"result,omitempty"` // 1-0, 0-1, 1/2-1/2
	Reason     string        `json:"reason,omitempty"`
	Updated    time.Time     `json:"updated"`
}

// Live holds the game a worker lets people watch: one game at a time,
// the next one to start once it ends. Readers get copies.
type Live struct {
	mu       sync.Mutex
	game     LiveGame
	watching bool // a game is being watched
	// OnEnd, if set, receives each watched game when it ends (the
	// trainer keeps them as the run's sampled self-play games).
	OnEnd func(LiveGame)
}

// Get returns a copy of the watched game (false before the first).
func (l *Live) Get() (LiveGame, bool) {
	if l == nil {
		return LiveGame{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.game
	g.Moves, g.Search = slices.Clone(g.Moves), slices.Clone(g.Search)
	return g, g.Game != ""
}

// claim makes game id the watched one unless another is being watched.
func (l *Live) claim(gameName string, id uint64, gen int, opening []string) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.watching {
		return false
	}
	l.watching = true
	l.game = LiveGame{Game: gameName, ID: id, Generation: gen, Network: gen, Moves: slices.Clone(opening),
		Search: make([]*MoveSearch, len(opening)), Updated: time.Now().UTC()}
	return true
}

// move records a move of the watched game and the search before it by
// the network of generation gen.
func (l *Live) move(text string, res *mcts.Result, p game.Position, gen int) {
	var ms *MoveSearch
	if res != nil {
		ms = &MoveSearch{Value: res.Value}
		idx := make([]int, len(res.Moves))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(res.Policy[b], res.Policy[a]) })
		for _, i := range idx[:min(topMoves, len(idx))] {
			ms.Top = append(ms.Top, MoveShare{Move: p.FormatMove(res.Moves[i]), Share: res.Policy[i]})
		}
	}
	l.mu.Lock()
	l.game.Moves = append(l.game.Moves, text)
	l.game.Network = gen
	l.game.Search = append(l.game.Search, ms)
	l.game.Updated = time.Now().UTC()
	l.mu.Unlock()
}

// end closes the watched game with its result and hands it to OnEnd.
func (l *Live) end(result, reason string) {
	l.mu.Lock()
	l.game.Over, l.game.Result, l.game.Reason, l.game.Updated = true, result, reason, time.Now().UTC()
	l.watching = false
	g := l.game
	onEnd := l.OnEnd
	l.mu.Unlock()
	if onEnd != nil {
		onEnd(g)
	}
}
