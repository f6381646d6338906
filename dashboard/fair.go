package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"time"
)

// The server is shared: what one client may hold (engine searches, games,
// live streams) is bounded per client as well as in all, so that one or
// two clients asking for the most cannot make everyone else wait.

// clientOf names the client of a request: its IP address, an IPv6
// address by its /64 (one host usually holds a whole /64). Behind a
// reverse proxy every request comes from the proxy's address, and the
// per-client bounds then apply to everyone together.
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		if p, err := ip.Prefix(64); err == nil {
			return p.String()
		}
	}
	return ip.String()
}

// clientCounter bounds things held at once, in all and per client.
type clientCounter struct {
	max, perClient int
	mu             sync.Mutex
	n              int
	by             map[string]int
}

func newClientCounter(max, perClient int) *clientCounter {
	return &clientCounter{max: max, perClient: perClient, by: map[string]int{}}
}

func (c *clientCounter) acquire(client string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by[client] >= c.perClient {
		return fmt.Errorf("your address has %d open (at most %d)", c.by[client], c.perClient)
	}
	if c.n >= c.max {
		return fmt.Errorf("the server has %d open (at most %d)", c.n, c.max)
	}
	c.n++
	c.by[client]++
	return nil
}

func (c *clientCounter) release(client string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n--
	if c.by[client]--; c.by[client] <= 0 {
		delete(c.by, client)
	}
}

// searchGate lets engine searches run: at most slots at once, at most one
// per client, and at most queue waiting per client. A freed slot goes to
// the waiting client that was last served longest ago (one never served
// first), so that clients take turns. A search that has run for share
// while a client with nothing running waits is stopped early (it plays
// what it found): two clients sending search after search cannot make a
// third wait for more than about share.
type searchGate struct {
	slots, queue, maxWaiting int
	maxWait, share           time.Duration

	mu       sync.Mutex
	running  []*searchSlot
	waiting  []*searchWaiter
	lastTurn map[string]time.Time // when each client last got a slot
}

// searchSlot is a search running: its context ends, with errPreempted
// as the cause, when it is stopped for a client waiting.
type searchSlot struct {
	client    string
	ctx       context.Context
	cancel    context.CancelCauseFunc
	start     time.Time
	timer     *time.Timer
	overdue   bool // has run for share
	preempted bool
}

type searchWaiter struct {
	client string
	ctx    context.Context
	ready  chan *searchSlot
}

// errPreempted is the cause of a search stopped for a client waiting.
var errPreempted = errors.New("another player waiting")

func newSearchGate(slots, queue, maxWaiting int, maxWait, share time.Duration) *searchGate {
	return &searchGate{slots: slots, queue: queue, maxWaiting: maxWaiting, maxWait: maxWait, share: share, lastTurn: map[string]time.Time{}}
}

// acquire waits for a slot for client and returns the search's context
// (ctx's, ended early when the search is stopped for another client);
// the caller calls release once its search ends. A client with a search
// running and queue more waiting is refused (429), as is any when
// maxWaiting wait already or no slot came within maxWait (503); ctx
// ending gives up the place in the queue.
func (g *searchGate) acquire(ctx context.Context, client string) (sctx context.Context, release func(), err error) {
	g.mu.Lock()
	mine := g.runningOf(client)
	for _, w := range g.waiting {
		if w.client == client {
			mine++
		}
	}
	if mine >= 1+g.queue {
		g.mu.Unlock()
		return nil, nil, refuse(http.StatusTooManyRequests, "your address has an engine search running and %d waiting (one runs at a time, %d may wait): wait for the replies", mine-1, g.queue)
	}
	if len(g.running) < g.slots && g.runningOf(client) == 0 {
		// Free slots mean no one eligible waits (release hands them on).
		sl := g.take(ctx, client)
		g.mu.Unlock()
		return sl.ctx, func() { g.release(sl) }, nil
	}
	if len(g.waiting) >= g.maxWaiting {
		g.mu.Unlock()
		return nil, nil, refuse(http.StatusServiceUnavailable, "the engines are busy: %d searches are waiting (at most %d); try again shortly", len(g.waiting), g.maxWaiting)
	}
	w := &searchWaiter{client: client, ctx: ctx, ready: make(chan *searchSlot, 1)}
	g.waiting = append(g.waiting, w)
	g.preempt()
	g.mu.Unlock()

	timer := time.NewTimer(g.maxWait)
	defer timer.Stop()
	select {
	case sl := <-w.ready:
		return sl.ctx, func() { g.release(sl) }, nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-timer.C:
		err = refuse(http.StatusServiceUnavailable, "no engine was free for %v (%d searches run at once, one per address); try again shortly", g.maxWait, g.slots)
	}
	g.mu.Lock()
	i := slices.Index(g.waiting, w)
	if i >= 0 {
		g.waiting = slices.Delete(g.waiting, i, i+1)
	}
	g.mu.Unlock()
	if i < 0 { // granted while giving up: hand the slot on
		g.release(<-w.ready)
	}
	return nil, nil, err
}

func (g *searchGate) runningOf(client string) int {
	n := 0
	for _, sl := range g.running {
		if sl.client == client {
			n++
		}
	}
	return n
}

// take gives client a slot; g.mu is held.
func (g *searchGate) take(ctx context.Context, client string) *searchSlot {
	sl := &searchSlot{client: client, start: time.Now()}
	sl.ctx, sl.cancel = context.WithCancelCause(ctx)
	sl.timer = time.AfterFunc(g.share, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		sl.overdue = true
		g.preempt()
	})
	g.running = append(g.running, sl)
	g.lastTurn[client] = sl.start
	if len(g.lastTurn) > 4096 {
		// Forget clients not served for an hour (a new client comes
		// first anyway).
		for c, t := range g.lastTurn {
			if time.Since(t) > time.Hour && g.runningOf(c) == 0 {
				delete(g.lastTurn, c)
			}
		}
	}
	return sl
}

// preempt stops, oldest first, searches that have run for share, one
// for each waiting client that has nothing running (less those stopped
// already and not yet ended); g.mu is held.
func (g *searchGate) preempt() {
	need := 0
	for _, w := range g.waiting {
		if g.runningOf(w.client) == 0 {
			need++
		}
	}
	for _, sl := range g.running {
		if sl.preempted {
			need--
		}
	}
	for _, sl := range g.running { // in the order they started
		if need <= 0 {
			return
		}
		if sl.overdue && !sl.preempted {
			sl.preempted = true
			sl.cancel(errPreempted)
			need--
		}
	}
}

func (g *searchGate) release(sl *searchSlot) {
	g.mu.Lock()
	defer g.mu.Unlock()
	sl.timer.Stop()
	sl.cancel(nil)
	i := slices.Index(g.running, sl)
	if i < 0 {
		return
	}
	g.running = slices.Delete(g.running, i, i+1)
	for len(g.running) < g.slots {
		best := -1
		for i, w := range g.waiting {
			if g.runningOf(w.client) > 0 || w.ctx.Err() != nil {
				continue
			}
			if best < 0 || g.lastTurn[w.client].Before(g.lastTurn[g.waiting[best].client]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		w := g.waiting[best]
		g.waiting = slices.Delete(g.waiting, best, best+1)
		w.ready <- g.take(w.ctx, w.client)
	}
	g.preempt()
}

// busy reports the searches running and waiting.
func (g *searchGate) busy() (running, waiting int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.running), len(g.waiting)
}
