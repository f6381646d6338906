package dashboard

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
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
// first), so that clients take turns: two clients sending search after
// search each hold a slot for at most one search budget before a third
// gets one.
type searchGate struct {
	slots, queue, maxWaiting int
	maxWait                  time.Duration

	mu       sync.Mutex
	free     int
	running  map[string]int
	waiting  []*searchWaiter
	lastTurn map[string]time.Time // when each client last got a slot
}

type searchWaiter struct {
	client  string
	ready   chan struct{}
	granted bool
}

func newSearchGate(slots, queue, maxWaiting int, maxWait time.Duration) *searchGate {
	return &searchGate{slots: slots, queue: queue, maxWaiting: maxWaiting, maxWait: maxWait, free: slots,
		running: map[string]int{}, lastTurn: map[string]time.Time{}}
}

// acquire waits for a slot for client; the caller calls release once its
// search ends. A client with a search running and queue more waiting is
// refused (429), as is any when maxWaiting wait already or no slot came
// within maxWait (503); ctx ending gives up the place in the queue.
func (g *searchGate) acquire(ctx context.Context, client string) (release func(), err error) {
	g.mu.Lock()
	waiting := 0
	for _, w := range g.waiting {
		if w.client == client {
			waiting++
		}
	}
	if g.running[client] > 0 && waiting >= g.queue {
		g.mu.Unlock()
		return nil, refuse(http.StatusTooManyRequests, "your address has an engine search running and %d waiting (one runs at a time, %d may wait): wait for the replies", waiting, g.queue)
	}
	release = func() { g.release(client) }
	if g.free > 0 && g.running[client] == 0 {
		// Free slots mean no one eligible waits (release hands them on).
		g.take(client)
		g.mu.Unlock()
		return release, nil
	}
	if len(g.waiting) >= g.maxWaiting {
		g.mu.Unlock()
		return nil, refuse(http.StatusServiceUnavailable, "the engines are busy: %d searches are waiting (at most %d); try again shortly", len(g.waiting), g.maxWaiting)
	}
	w := &searchWaiter{client: client, ready: make(chan struct{})}
	g.waiting = append(g.waiting, w)
	g.mu.Unlock()

	timer := time.NewTimer(g.maxWait)
	defer timer.Stop()
	select {
	case <-w.ready:
		return release, nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-timer.C:
		err = refuse(http.StatusServiceUnavailable, "no engine was free for %v (%d searches run at once, one per address); try again shortly", g.maxWait, g.slots)
	}
	g.mu.Lock()
	if w.granted { // granted while giving up: hand the slot on
		g.mu.Unlock()
		release()
		return nil, err
	}
	for i, x := range g.waiting {
		if x == w {
			g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
			break
		}
	}
	g.mu.Unlock()
	return nil, err
}

// take gives client a slot; g.mu is held.
func (g *searchGate) take(client string) {
	g.free--
	g.running[client]++
	g.lastTurn[client] = time.Now()
	if len(g.lastTurn) > 4096 {
		// Forget clients not served for an hour (a new client comes
		// first anyway).
		for c, t := range g.lastTurn {
			if time.Since(t) > time.Hour && g.running[c] == 0 {
				delete(g.lastTurn, c)
			}
		}
	}
}

func (g *searchGate) release(client string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.free++
	if g.running[client]--; g.running[client] <= 0 {
		delete(g.running, client)
	}
	for g.free > 0 {
		best := -1
		for i, w := range g.waiting {
			if g.running[w.client] > 0 {
				continue
			}
			if best < 0 || g.lastTurn[w.client].Before(g.lastTurn[g.waiting[best].client]) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		w := g.waiting[best]
		g.waiting = append(g.waiting[:best], g.waiting[best+1:]...)
		g.take(w.client)
		w.granted = true
		close(w.ready)
	}
}

// busy reports the searches running and waiting.
func (g *searchGate) busy() (running, waiting int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.slots - g.free, len(g.waiting)
}
