package dashboard

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/configs/configstest"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/selfplay"
)

// shortTimeouts shortens the server's timeouts for a test.
func shortTimeouts(t *testing.T, d time.Duration) {
	old := httpTimeouts
	httpTimeouts.header, httpTimeouts.read, httpTimeouts.write, httpTimeouts.idle = d, d, d, d
	t.Cleanup(func() { httpTimeouts = old })
}

// A client that stalls in its request, or keeps an idle connection, is
// dropped by the server; a live stream outlives the timeouts; a client
// opens a bounded number of streams.
func TestServerTimeouts(t *testing.T) {
	shortTimeouts(t, 300*time.Millisecond)
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, "config.yaml"), configstest.TinyConnectFour(t).MarshalSealed(), 0o644); err != nil {
		t.Fatal(err)
	}
	live := &fakeLive{g: selfplay.LiveGame{Game: "connect4", ID: 7, Moves: []string{"4"}, Search: []*selfplay.MoveSearch{nil}}}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, "127.0.0.1:0", New(run, nil, live, nil).Handler(), func(a string) { addr <- a })
	}()
	host := <-addr

	// closed reports whether the server closes conn within a minute
	// (it never would without timeouts).
	closed := func(conn net.Conn) bool {
		conn.SetReadDeadline(time.Now().Add(time.Minute))
		_, err := io.Copy(io.Discard, conn)
		var ne net.Error
		return err == nil || !(errors.As(err, &ne) && ne.Timeout())
	}
	stalled, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	io.WriteString(stalled, "POST /api/play/new HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
	idle, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	io.WriteString(idle, "GET /api/play/options HTTP/1.1\r\nHost: x\r\n\r\n")

	// The stream, meanwhile: its first event, and after a move made past
	// the timeouts, the next.
	resp, err := http.Get("http://" + host + "/api/live")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewScanner(resp.Body)
	next := func() int {
		for events.Scan() {
			if d, ok := strings.CutPrefix(events.Text(), "data: "); ok {
				var rep Replay
				json.Unmarshal([]byte(d), &rep)
				return len(rep.Moves)
			}
		}
		return -1
	}
	if n := next(); n != 1 {
		t.Fatalf("the stream's first event: %d moves", n)
	}

	if !closed(stalled) {
		t.Error("a connection stalled in its body was kept")
	}
	if !closed(idle) {
		t.Error("an idle connection was kept")
	}
	time.Sleep(3 * httpTimeouts.read)
	live.add("4")
	if n := next(); n != 2 {
		t.Errorf("after the timeouts, the stream's next event: %d moves (-1: it ended)", n)
	}

	// Four streams per client (this one and three more); a fifth is
	// refused.
	for i := range maxClientStreams {
		r, err := http.Get("http://" + host + "/api/live")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		if i < maxClientStreams-1 && r.StatusCode != 200 {
			t.Errorf("stream %d: %d", i+2, r.StatusCode)
		}
		if i == maxClientStreams-1 {
			if r.StatusCode != http.StatusTooManyRequests {
				t.Errorf("a fifth stream: %d", r.StatusCode)
			} else if b, _ := io.ReadAll(r.Body); !strings.Contains(string(b), "at most 4") {
				t.Errorf("a fifth stream: %s", b)
			}
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// metricLine is one generation's metrics line.
func metricLine(gen int) string {
	b, _ := json.Marshal(metrics.Metric{Kind: "generation", Generation: gen, Step: int64(10 * gen), Best: gen, Time: time.Unix(int64(gen), 0)})
	return string(b) + "\n"
}

// The metrics are parsed once: a status reads only the lines appended
// since the last (a cut-off line once it is whole), and a replaced file
// whole.
func TestMetricsReadOnce(t *testing.T) {
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, "config.yaml"), configstest.TinyConnectFour(t).MarshalSealed(), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(run, "metrics.jsonl")
	if err := os.WriteFile(path, []byte(metricLine(1)+metricLine(2)), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(run, nil, nil, nil).Handler())
	defer srv.Close()
	status := func() Status {
		t.Helper()
		var st Status
		if r := get(t, srv, "/api/status", &st); r.StatusCode != 200 {
			t.Fatalf("status: %d", r.StatusCode)
		}
		return st
	}
	if st := status(); st.Generation != 2 || st.Step != 20 {
		t.Fatalf("status %+v, want generation 2 at step 20", st)
	}
	// The first line changed in place (same size and time): it is not
	// read again (a file read again would give step 90).
	b, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"step":10,`), []byte(`"step":90,`), 1), 0o644)
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	line := metricLine(3)
	f.WriteString(line[:20]) // cut off
	if st := status(); st.Generation != 2 || st.Step != 20 {
		t.Errorf("with a cut-off line: %+v, want generation 2 at step 20", st)
	}
	f.WriteString(line[20:])
	f.Close()
	if st := status(); st.Generation != 3 || st.Step != 30 {
		t.Errorf("after an append: %+v, want generation 3 at step 30 (only the new line read)", st)
	}
	// Replaced: read whole.
	os.WriteFile(path+".new", []byte(metricLine(5)), 0o644)
	os.Rename(path+".new", path)
	if st := status(); st.Generation != 5 || st.Step != 50 {
		t.Errorf("after a replacement: %+v, want generation 5 at step 50", st)
	}
}

// Charts are rendered one at a time and kept while the files they are
// drawn from stay the same: twenty requests for one chart render it once.
func TestChartsRenderedOnce(t *testing.T) {
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, "config.yaml"), configstest.TinyConnectFour(t).MarshalSealed(), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(run, "metrics.jsonl")
	os.WriteFile(path, []byte(metricLine(1)), 0o644)
	s := New(run, nil, nil, nil)
	var renders, running, most atomic.Int32
	release := make(chan struct{})
	s.render = func(_, name, _ string, w io.Writer) (bool, error) {
		renders.Add(1)
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		io.WriteString(w, "<svg>"+name+"</svg>")
		return true, nil
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	var wg sync.WaitGroup
	fetch := func(name string) {
		wg.Go(func() {
			r := get(t, srv, "/api/chart/"+name+".svg", nil)
			if b, _ := io.ReadAll(r.Body); r.StatusCode != 200 || string(b) != "<svg>"+name+"</svg>" {
				t.Errorf("%s: %d %s", name, r.StatusCode, b)
			}
		})
	}
	for range 20 {
		fetch("loss")
	}
	for _, n := range []string{"lr", "gate", "window"} {
		fetch(n)
	}
	// The status answers while the charts wait.
	for end := time.Now().Add(time.Minute); running.Load() == 0 && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
	}
	var st Status
	if r := get(t, srv, "/api/status", &st); r.StatusCode != 200 || st.Generation != 1 {
		t.Errorf("status while charts render: %d %+v", r.StatusCode, st)
	}
	close(release)
	wg.Wait()
	if n, m := renders.Load(), most.Load(); n != 4 || m != 1 {
		t.Errorf("%d renders for 4 charts, %d at once", n, m)
	}
	// The files changed (and the rendering is not fresh): rendered again.
	s.charts.mu.Lock()
	s.charts.byName["loss"].made = time.Now().Add(-time.Hour)
	s.charts.mu.Unlock()
	fetch("loss")
	wg.Wait()
	if n := renders.Load(); n != 4 {
		t.Errorf("the same files rendered again: %d renders", n)
	}
	os.WriteFile(path, []byte(metricLine(1)+metricLine(2)), 0o644)
	fetch("loss")
	wg.Wait()
	if n := renders.Load(); n != 5 {
		t.Errorf("after the metrics changed: %d renders, want 5", n)
	}
}
