package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/models"
)

// shipped offers each game's shipped network, as `tabula dashboard` does.
func shipped(g string) (string, bool) {
	m, ok := models.Lookup(g)
	return m.Game, ok
}

// serveFrom sends one request to h as if from the address client.
func serveFrom(h http.Handler, client, method, path, body string) (int, PlayState, string) {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.RemoteAddr = client + ":40000"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var st PlayState
	var e struct{ Error string }
	if w.Code == http.StatusOK {
		json.Unmarshal(w.Body.Bytes(), &st)
	} else {
		json.Unmarshal(w.Body.Bytes(), &e)
	}
	return w.Code, st, e.Error
}

// Limits are checked as numbers in their own units after parsing: a time
// that would overflow when converted, a depth or a number of simulations
// that would run for minutes are refused with the field and its range.
func TestPlayLimits(t *testing.T) {
	s := New("", nil, nil, nil)
	s.SetPlay(PlayOptions{DefaultNetwork: shipped})
	h := s.Handler()
	for _, c := range []struct {
		body string
		code int
		want string
	}{
		{`{"game":"xiangqi","opponent":"ab","movetime_ms":9223372036854775807}`, 400, "movetime_ms 9223372036854775807 out of range [10, 10000]"},
		{`{"game":"xiangqi","opponent":"ab","movetime_ms":-9223372036854775808}`, 400, "movetime_ms -9223372036854775808 out of range"},
		{`{"game":"xiangqi","opponent":"ab","movetime_ms":10001}`, 400, "movetime_ms 10001 out of range [10, 10000]"},
		{`{"game":"xiangqi","opponent":"ab","movetime_ms":1e30}`, 400, "movetime_ms"},
		{`{"game":"xiangqi","opponent":"ab","movetime_ms":5.5}`, 400, "movetime_ms"},
		{`{"game":"xiangqi","opponent":"ab","depth":30}`, 400, "depth 30 out of range [1, 8] for xiangqi"},
		{`{"game":"connect4","opponent":"ab","depth":17}`, 400, "depth 17 out of range [1, 16] for connect4"},
		{`{"game":"xiangqi","opponent":"net","network":"xiangqi","sims":100000}`, 400, "sims 100000 out of range [1, 20000]"},
		{`{"game":"xiangqi","opponent":"net","network":"xiangqi","sims":8.5}`, 400, "sims"},
		{`{"game":"xiangqi","opponent":"ab","sims":100}`, 400, "sims is for a network"},
		{`{"game":"xiangqi","opponent":"net","network":"xiangqi","depth":3}`, 400, "depth and movetime_ms are for alpha-beta"},
	} {
		code, _, msg := serveFrom(h, "192.0.2.1", "POST", "/api/play/new", c.body)
		if code != c.code || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %q, want %d %q", c.body, code, msg, c.code, c.want)
		}
	}
	// The largest of each is accepted.
	for _, body := range []string{`{"game":"xiangqi","opponent":"ab","depth":8}`, `{"game":"xiangqi","opponent":"ab","movetime_ms":10000}`,
		`{"game":"connect4","opponent":"net","network":"connect4","sims":20000}`} {
		if code, _, msg := serveFrom(h, "192.0.2.1", "POST", "/api/play/new", body); code != 200 {
			t.Errorf("%s: %d %q", body, code, msg)
		}
	}
}

// No search runs past the budget, whatever it was asked: the deepest
// alpha-beta and the most simulations allowed are stopped by it and play
// what they found, saying so.
func TestPlayBudget(t *testing.T) {
	s := New("", nil, nil, nil)
	s.SetPlay(PlayOptions{DefaultNetwork: shipped})
	// Far below what either search needs on any machine.
	s.play.budget = 20 * time.Millisecond
	h := s.Handler()
	for _, body := range []string{
		`{"game":"xiangqi","opponent":"ab","depth":8,"side":"second"}`,
		`{"game":"xiangqi","opponent":"net","network":"xiangqi","sims":20000,"side":"second"}`,
	} {
		code, st, msg := serveFrom(h, "192.0.2.1", "POST", "/api/play/new", body)
		if code != 200 || len(st.Replies) != 1 {
			t.Fatalf("%s: %d %q", body, code, msg)
		}
		r := st.Replies[0]
		if r.Stopped != "the time budget per move" || !slices.Contains(st.Moves, r.Move) || r.Simulations >= 20000 || r.Top == nil {
			t.Errorf("%s: reply %+v", body, r)
		}
	}
}

// The gate hands slots to clients in turn: one search per client, a
// bounded queue per client and in all, and a freed slot to the waiting
// client served longest ago.
func TestSearchGateTurns(t *testing.T) {
	g := newSearchGate(2, 1, 3, time.Minute, time.Hour)
	ctx := context.Background()
	_, relA, err := g.acquire(ctx, "A")
	if err != nil {
		t.Fatal(err)
	}
	_, relB, err := g.acquire(ctx, "B")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 4)
	wait := func(client string) {
		go func() {
			_, rel, err := g.acquire(ctx, client)
			if err != nil {
				got <- client + ": " + err.Error()
				return
			}
			got <- client
			rel()
		}()
		// In the queue before the next one comes.
		for end := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
			g.mu.Lock()
			n := len(g.waiting)
			queued := n > 0 && g.waiting[n-1].client == client
			g.mu.Unlock()
			if queued || time.Now().After(end) {
				return
			}
		}
	}
	wait("A") // A's second search, behind A's first
	wait("C") // a third client
	if _, _, err := g.acquire(ctx, "A"); err == nil || !strings.Contains(err.Error(), "one runs at a time, 1 may wait") {
		t.Errorf("A's third search: %v", err)
	}
	wait("B")
	if _, _, err := g.acquire(ctx, "D"); err == nil || !strings.Contains(err.Error(), "3 searches are waiting (at most 3)") {
		t.Errorf("a fourth waiting search: %v", err)
	}
	// A's slot goes to C, served never, before A's second search that
	// came first.
	relA()
	if c := <-got; c != "C" {
		t.Fatalf("A's slot went to %s, want C", c)
	}
	// C's slot (C is done) and B's: A was served before B.
	if c := <-got; c != "A" {
		t.Fatalf("then %s, want A", c)
	}
	relB()
	if c := <-got; c != "B" {
		t.Fatalf("then %s, want B", c)
	}
	// A waiting search whose request ends leaves the queue.
	g2 := newSearchGate(1, 1, 4, time.Minute, time.Hour)
	_, rel, _ := g2.acquire(ctx, "A")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := g2.acquire(cctx, "B"); err != context.Canceled {
		t.Errorf("a cancelled wait: %v", err)
	}
	rel()
	if run, wait := g2.busy(); run != 0 || wait != 0 {
		t.Errorf("after: %d running, %d waiting", run, wait)
	}
	// No slot within the longest wait: refused with the reason.
	g3 := newSearchGate(1, 1, 4, time.Millisecond, time.Hour)
	_, rel, _ = g3.acquire(ctx, "A")
	if _, _, err := g3.acquire(ctx, "B"); err == nil || !strings.Contains(err.Error(), "no engine was free") {
		t.Errorf("a wait past the longest: %v", err)
	}
	rel()
}

// A search that has run for its share while another client waits is
// stopped (the oldest first, one per client waiting); with no one
// waiting it runs on.
func TestSearchGatePreempts(t *testing.T) {
	const share = 20 * time.Millisecond
	g := newSearchGate(2, 1, 4, time.Minute, share)
	ctx := context.Background()
	ctxA, relA, _ := g.acquire(ctx, "A")
	ctxB, relB, _ := g.acquire(ctx, "B")
	// Past the share with no one waiting: not stopped.
	time.Sleep(5 * share)
	if ctxA.Err() != nil || ctxB.Err() != nil {
		t.Fatal("a search was stopped with no one waiting")
	}
	// A's own second search waiting does not stop anyone.
	waitA := make(chan error, 1)
	go func() {
		_, rel, err := g.acquire(ctx, "A")
		if err == nil {
			rel()
		}
		waitA <- err
	}()
	for end := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		if _, w := g.busy(); w == 1 || time.Now().After(end) {
			break
		}
	}
	time.Sleep(5 * share)
	if ctxA.Err() != nil || ctxB.Err() != nil {
		t.Fatal("a search was stopped for its own client's next")
	}
	// C waits: A's search, the oldest, is stopped, and B's runs on.
	slotC, endC := make(chan context.Context, 1), make(chan struct{})
	go func() {
		c, rel, err := g.acquire(ctx, "C")
		if err != nil {
			t.Error(err)
			c = ctx
		}
		slotC <- c
		<-endC
		if err == nil {
			rel()
		}
	}()
	stoppedBy := func(what string, c context.Context) {
		t.Helper()
		select {
		case <-c.Done():
		case <-time.After(time.Minute):
			t.Fatalf("%s was not stopped", what)
		}
		if cause := context.Cause(c); cause != errPreempted {
			t.Fatalf("%s ended by %v", what, cause)
		}
	}
	stoppedBy("A's search, for C", ctxA)
	if ctxB.Err() != nil {
		t.Fatal("B's search was stopped too")
	}
	// A's slot goes to C (never served); A's second search then waits
	// with nothing of A's running, and B's search is stopped for it.
	relA()
	c := <-slotC
	stoppedBy("B's search, for A's second", ctxB)
	relB()
	if err := <-waitA; err != nil {
		t.Fatal(err)
	}
	// No one waits: C's search runs on.
	time.Sleep(5 * share)
	if c.Err() != nil {
		t.Error("C's search was stopped with no one waiting")
	}
	close(endC)
}

// A flood of new games from one client forgets only that client's own
// games: another client's game plays on. Games unused for the idle time
// are forgotten, and a forgotten game's next request says why. Past the
// bound in all, a new game is refused.
func TestPlayGamesBound(t *testing.T) {
	s := New("", nil, nil, nil)
	h := s.Handler()
	newGame := `{"game":"connect4","opponent":"ab","depth":1}`
	code, mine, msg := serveFrom(h, "192.0.2.7", "POST", "/api/play/new", newGame)
	if code != 200 {
		t.Fatalf("new game: %d %q", code, msg)
	}
	var flood []string
	for range 64 {
		code, st, msg := serveFrom(h, "192.0.2.66", "POST", "/api/play/new", newGame)
		if code != 200 {
			t.Fatalf("the flood's new game: %d %q", code, msg)
		}
		flood = append(flood, st.ID)
	}
	if code, st, msg := serveFrom(h, "192.0.2.7", "POST", "/api/play/games/"+mine.ID+"/move", moveBody("4")); code != 200 || len(st.Moves) != 2 {
		t.Fatalf("after another client's 64 new games, my move: %d %q", code, msg)
	}
	if code, _, msg := serveFrom(h, "192.0.2.66", "GET", "/api/play/games/"+flood[0], ""); code != 404 || !strings.Contains(msg, "started more games than the 8 kept per address") {
		t.Errorf("the flood's first game: %d %q", code, msg)
	}
	if code, _, _ := serveFrom(h, "192.0.2.66", "GET", "/api/play/games/"+flood[63], ""); code != 200 {
		t.Errorf("the flood's last game: %d", code)
	}

	// Idle games go, whoever made them.
	s.play.mu.Lock()
	s.play.games[mine.ID].used = time.Now().Add(-playIdle - time.Minute)
	s.play.mu.Unlock()
	if code, _, msg := serveFrom(h, "192.0.2.7", "GET", "/api/play/games/"+mine.ID, ""); code != 404 || !strings.Contains(msg, "unused for more than 1h0m0s") {
		t.Errorf("an idle game: %d %q", code, msg)
	}

	// Full: a new game is refused, none is forgotten.
	n := 0
	for i := 0; n < maxPlayGames; i++ {
		code, _, msg := serveFrom(h, fmt.Sprintf("198.51.%d.%d", i/250, i%250), "POST", "/api/play/new", newGame)
		s.play.mu.Lock()
		n = len(s.play.games)
		s.play.mu.Unlock()
		if code != 200 {
			t.Fatalf("game %d: %d %q", n, code, msg)
		}
	}
	if code, _, msg := serveFrom(h, "203.0.113.1", "POST", "/api/play/new", newGame); code != http.StatusServiceUnavailable || !strings.Contains(msg, "the server keeps 1000 games") {
		t.Errorf("a game past the bound: %d %q", code, msg)
	}
	if code, _, _ := serveFrom(h, "192.0.2.66", "GET", "/api/play/games/"+flood[63], ""); code != 200 {
		t.Errorf("a game kept before the server was full: %d", code)
	}
}

// Games hold no engine memory between moves: a hundred alpha-beta games
// (a 16 MiB table each, once) share the searchers of the slots.
func TestPlayEngineMemory(t *testing.T) {
	s := New("", nil, nil, nil)
	h := s.Handler()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 100 {
		code, _, msg := serveFrom(h, fmt.Sprintf("198.51.100.%d", i), "POST", "/api/play/new", `{"game":"xiangqi","opponent":"ab","depth":1,"side":"second"}`)
		if code != 200 {
			t.Fatalf("game %d: %d %q", i, code, msg)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s) // its games
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 200<<20 {
		t.Errorf("100 alpha-beta games hold %d MiB", grew>>20)
	}
	s.play.engines.mu.Lock()
	defer s.play.engines.mu.Unlock()
	if n := len(s.play.engines.ab["xiangqi"]); n > searchSlots {
		t.Errorf("%d searchers kept", n)
	}
}

// Games ending together take one record index each.
func TestPlayRecordIndices(t *testing.T) {
	records := t.TempDir()
	pr := newPlayRoom("")
	pr.opts.Records = records
	gm, _ := game.Lookup("connect4")
	var wg sync.WaitGroup
	for range 40 {
		p, _ := gm.Start("", nil)
		moves := []string{"1", "2", "1", "2", "1", "2", "1"} // four in a row for the first
		if err := game.Play(p, moves...); err != nil || !p.Status().Over() {
			t.Fatal(err)
		}
		g := &playGame{game: "connect4", start: p.String(), pos: p, moves: moves, replies: make([]*EngineReply, len(moves)),
			human: game.First, name: "ab:depth=1", began: time.Now()}
		wg.Go(func() { pr.save(g) })
	}
	wg.Wait()
	recs, err := arena.ReadRecordFile(filepath.Join(records, "connect4", "arena", "play.jsonl"))
	if err != nil || len(recs) != 40 {
		t.Fatalf("%d records: %v", len(recs), err)
	}
	var idx []int
	for _, r := range recs {
		idx = append(idx, r.Index)
	}
	slices.Sort(idx)
	for i, x := range idx {
		if x != i {
			t.Fatalf("indices %v, want 0-39 once each", idx)
		}
	}
}

// TestPlayAbuse is the load test: two clients abuse the server from their
// own addresses (the largest limits, refused and allowed, three searches
// at once each, floods of new games, stalled connections) while a third
// plays: its moves are answered, its game is kept, and each abuse is
// refused with its reason.
func TestPlayAbuse(t *testing.T) {
	s := New("", nil, nil, nil)
	s.SetPlay(PlayOptions{DefaultNetwork: shipped, Records: t.TempDir()})
	// An abusive search holds its slot for the budget, or its share
	// once another client waits: both shortened, so that the test is
	// short.
	s.play.budget = time.Second
	s.play.gate.share = 100 * time.Millisecond
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = newHTTPServer(s.Handler())
	srv.Start()
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	var third *http.Client
	from := func(ip string) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		c, err := d.Dial("tcp", host)
		if err != nil {
			t.Skipf("no connection from %s (loopback addresses beyond 127.0.0.1 are Linux's): %v", ip, err)
		}
		c.Close()
		return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	}
	// The third player waits a minute for each answer (it needs one
	// search budget), the abusers as long as it takes.
	var ctx context.Context
	post := func(c *http.Client, path, body string) (int, PlayState, string) {
		rctx := ctx
		if c == third {
			var cancel context.CancelFunc
			rctx, cancel = context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
		}
		req, _ := http.NewRequestWithContext(rctx, "POST", srv.URL+path, strings.NewReader(body))
		r, err := c.Do(req)
		if err != nil {
			return 0, PlayState{}, err.Error()
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		var st PlayState
		var e struct{ Error string }
		if r.StatusCode == 200 {
			json.Unmarshal(b, &st)
		} else {
			json.Unmarshal(b, &e)
		}
		return r.StatusCode, st, e.Error
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused := map[string]int{} // "status reason" of the abusers' refusals
	stoppedEarly := map[string]int{}
	heavy := []string{
		`{"game":"xiangqi","opponent":"ab","depth":30,"side":"second"}`,
		`{"game":"xiangqi","opponent":"ab","movetime_ms":9223372036854775807,"side":"second"}`,
		`{"game":"xiangqi","opponent":"net","network":"xiangqi","sims":100000,"side":"second"}`,
		`{"game":"xiangqi","opponent":"ab","depth":8,"side":"second"}`,
		`{"game":"xiangqi","opponent":"ab","movetime_ms":10000,"side":"second"}`,
		`{"game":"xiangqi","opponent":"net","network":"xiangqi","sims":20000,"side":"second"}`,
	}
	var firstFlood [2]string
	third = from("127.0.0.4")
	for k, ip := range []string{"127.0.0.2", "127.0.0.3"} {
		c := from(ip)
		// Stalled connections: a body announced and never sent.
		for range 20 {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
			if conn, err := d.Dial("tcp", host); err == nil {
				defer conn.Close()
				io.WriteString(conn, "POST /api/play/new HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
			}
		}
		// A flood of new games.
		for i := range 40 {
			code, st, msg := post(c, "/api/play/new", `{"game":"connect4","opponent":"ab","depth":1}`)
			if code != 200 {
				t.Fatalf("%s's new game %d: %d %q", ip, i, code, msg)
			}
			if i == 0 {
				firstFlood[k] = st.ID
			}
		}
		// Three searches at once, the heaviest there are.
		for range 3 {
			wg.Go(func() {
				for ctx.Err() == nil {
					for _, body := range heavy {
						code, st, msg := post(c, "/api/play/new", body)
						mu.Lock()
						if code == 200 {
							stoppedEarly[st.Replies[0].Stopped]++
						} else if code != 200 && ctx.Err() == nil {
							refused[fmt.Sprint(code, " ", msg)]++
						}
						mu.Unlock()
					}
				}
			})
		}
	}
	// The abusers hold both slots before the third player comes.
	for end := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if run, _ := s.play.gate.busy(); run == searchSlots {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the abusers never held both slots")
		}
	}
	code, st, msg := post(third, "/api/play/new", `{"game":"connect4","opponent":"ab","depth":2}`)
	if code != 200 {
		t.Fatalf("the third player's new game: %d %q", code, msg)
	}
	for i := range 3 {
		plies := len(st.Moves)
		code, st, msg = post(third, "/api/play/games/"+st.ID+"/move", moveBody(st.Legal[0]))
		if code != 200 || len(st.Moves) != plies+2 || st.Replies[plies+1] == nil {
			t.Fatalf("the third player's move %d: %d %q", i+1, code, msg)
		}
	}
	stop()
	wg.Wait()
	ctx = context.Background()

	t.Logf("abusers: searches played by what stopped them %v; refusals %v", stoppedEarly, refused)
	for _, want := range []string{"400 alpha-beta: depth 30 out of range", "400 alpha-beta: movetime_ms 9223372036854775807 out of range",
		"400 network: sims 100000 out of range"} {
		if !slices.ContainsFunc(mapKeys(refused), func(k string) bool { return strings.HasPrefix(k, want) }) {
			t.Errorf("no refusal %q", want)
		}
	}
	for k := range refused {
		if !strings.HasPrefix(k, "400 ") && !strings.HasPrefix(k, "429 ") && !strings.HasPrefix(k, "503 ") {
			t.Errorf("an abuser's refusal %q", k)
		}
	}
	for k, ip := range []string{"127.0.0.2", "127.0.0.3"} {
		if code, _, msg := post(from(ip), "/api/play/games/"+firstFlood[k]+"/reply", ""); code != 404 || !strings.Contains(msg, "kept per address") {
			t.Errorf("%s's first game: %d %q", ip, code, msg)
		}
	}
}

func mapKeys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
