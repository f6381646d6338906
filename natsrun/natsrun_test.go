package natsrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// startServer starts a plain NATS server with JetStream on loopback: the
// run's own (natsserver.Start) is built on natsrun, so its tests are there.
func startServer(t *testing.T) (string, func()) {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		StoreDir: t.TempDir(), NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		t.Fatal("the server did not start within 10s")
	}
	return s.ClientURL(), func() { s.Shutdown(); s.WaitForShutdown() }
}

func connect(t *testing.T, url string, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func TestCheckRun(t *testing.T) {
	if err := CheckRun("a.b"); err == nil {
		t.Error("run name with a dot accepted")
	}
}

// The config and the networks reach a worker; promotions reach it as
// they happen; a network whose bytes do not match the published SHA-256
// is refused.
func TestConfigAndNetworks(t *testing.T) {
	defer func(d time.Duration) { bestPoll = d }(bestPoll)
	bestPoll = 100 * time.Millisecond
	ctx := context.Background()
	url, stop := startServer(t)
	defer stop()
	trainer, err := Create(ctx, connect(t, url), "c4")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Attach(ctx, connect(t, url), "other", ""); err == nil || !strings.Contains(err.Error(), `no run "other"`) {
		t.Fatalf("attach to a missing run: %v", err)
	}
	worker, err := Attach(ctx, connect(t, url), "c4", "")
	if err != nil {
		t.Fatal(err)
	}
	cfg := []byte("# sealed\ngame: connect4\n")
	if err := trainer.PublishConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if got, err := worker.Config(ctx); err != nil || !bytes.Equal(got, cfg) {
		t.Fatalf("config %q, %v", got, err)
	}
	if _, err := worker.Best(ctx); err == nil {
		t.Fatal("a best network before any was published")
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	updates, err := worker.WatchBest(wctx)
	if err != nil {
		t.Fatal(err)
	}
	for gen := 1; gen <= 3; gen++ {
		ckpt := bytes.Repeat([]byte{byte(gen)}, 300000) // several object chunks
		name := fmt.Sprintf("g%06d-s%09d.ckpt", gen, gen*100)
		if err := trainer.PublishNetwork(ctx, name, gen, ckpt); err != nil {
			t.Fatal(err)
		}
		select {
		case b := <-updates:
			if b.Generation != gen || b.Name != name {
				t.Fatalf("promotion %d arrived as %+v", gen, b)
			}
			got, err := worker.Network(ctx, b)
			if err != nil || !bytes.Equal(got, ckpt) {
				t.Fatalf("network %d: %v", gen, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("promotion %d did not arrive", gen)
		}
	}
	b, err := worker.Best(ctx)
	if err != nil || b.Generation != 3 {
		t.Fatalf("best %+v, %v", b, err)
	}
	b.SHA256 = strings.Repeat("0", 64)
	if _, err := worker.Network(ctx, b); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("a network with the wrong checksum: %v", err)
	}
	if err := trainer.PublishNetwork(ctx, "../../etc/passwd", 4, []byte("x")); err == nil {
		t.Fatal("a network name that is a path accepted")
	}
}

// stallingStore is the run's real network store whose first stalls
// chunk reads hang until their context ends, as a read the server never
// answers does. The network of the test is one chunk: a read of a chunk
// is a read of the network.
type stallingStore struct {
	chunkGetter
	stalls int
	reads  []time.Duration // each read's bound (its context's deadline)
}

func (s *stallingStore) GetMsg(ctx context.Context, seq uint64, opts ...jetstream.GetMsgOpt) (*jetstream.RawStreamMsg, error) {
	d, ok := ctx.Deadline()
	if !ok {
		return nil, fmt.Errorf("read of message %d without a bound", seq)
	}
	s.reads = append(s.reads, time.Until(d).Round(100*time.Millisecond))
	if len(s.reads) <= s.stalls {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.chunkGetter.GetMsg(ctx, seq, opts...)
}

// A network read that stalls is abandoned at its bound and tried again:
// the worker gets the network instead of waiting forever; reads that keep
// stalling end in an error naming the bound, and a missing network is
// not retried.
func TestNetworkReadStalls(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, stop := startServer(t)
	defer stop()
	trainer, err := Create(ctx, connect(t, url), "c4")
	if err != nil {
		t.Fatal(err)
	}
	worker, err := Attach(ctx, connect(t, url), "c4", "")
	if err != nil {
		t.Fatal(err)
	}
	ckpt := bytes.Repeat([]byte{7}, 50000) // one chunk
	if err := trainer.PublishNetwork(ctx, "g000001-s000000100.ckpt", 1, ckpt); err != nil {
		t.Fatal(err)
	}
	b, err := worker.Best(ctx)
	if err != nil {
		t.Fatal(err)
	}
	worker.fetchBase = 200 * time.Millisecond
	store := &stallingStore{chunkGetter: worker.chunks, stalls: 2}
	worker.chunks = store
	got, err := worker.Network(ctx, b)
	if err != nil || !bytes.Equal(got, ckpt) {
		t.Fatalf("network after two stalled reads: %v", err)
	}
	// Three reads, each bounded by the base plus the size at fetchRate.
	want := (worker.fetchBase + time.Duration(len(ckpt))*time.Second/fetchRate).Round(100 * time.Millisecond)
	if len(store.reads) != 3 || store.reads[0] != want {
		t.Fatalf("reads bounded %v, want 3 reads of %v", store.reads, want)
	}

	store.reads, store.stalls = nil, fetchAttempts
	if _, err := worker.Network(ctx, b); err == nil || !strings.Contains(err.Error(), "not done within") {
		t.Fatalf("reads that always stall: %v", err)
	}
	if len(store.reads) != fetchAttempts {
		t.Fatalf("%d reads, want %d", len(store.reads), fetchAttempts)
	}

	store.reads = nil
	b.Name = "g000009-s000000900.ckpt"
	if _, err := worker.Network(ctx, b); err == nil || !errors.Is(err, jetstream.ErrObjectNotFound) {
		t.Fatalf("a missing network: %v", err)
	}
	if len(store.reads) != 0 {
		t.Fatalf("a missing network read %d times", len(store.reads))
	}
}

// syncBuffer is a log's output that tests read while it is written.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A worker started while its server is down tries again, saying so, and
// connects once the server is up; a server that refuses it (a wrong
// password) is an error at once, and a worker stopped while it waits
// says why.
func TestConnectRetry(t *testing.T) {
	defer func(f, m time.Duration) { retryFirst, retryMax = f, m }(retryFirst, retryMax)
	retryFirst, retryMax = 50*time.Millisecond, 200*time.Millisecond
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	var out syncBuffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type result struct {
		nc  *nats.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		nc, err := ConnectRetry(ctx, log, url, "w1", Credentials{User: "w1", Password: "pw1"}, "")
		done <- result{nc, err}
	}()
	for strings.Count(out.String(), "cannot be reached; trying again") < 3 {
		select {
		case r := <-done:
			t.Fatalf("a worker whose server is down stopped: %v", r.err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, NoSigs: true, NoLog: true,
		Users: []*server.User{{Username: "w1", Password: "pw1"}}})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	defer s.Shutdown()
	r := <-done
	if r.err != nil {
		t.Fatalf("once the server is up: %v\n%s", r.err, out.String())
	}
	defer r.nc.Close()
	if !r.nc.IsConnected() || !strings.Contains(out.String(), "connected to the NATS server") {
		t.Fatalf("connected %v; log:\n%s", r.nc.IsConnected(), out.String())
	}

	before := strings.Count(out.String(), "trying again")
	if _, err := ConnectRetry(ctx, log, url, "w1", Credentials{User: "w1", Password: "guess"}, ""); err == nil ||
		!strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Fatalf("a wrong password: %v", err)
	}
	if n := strings.Count(out.String(), "trying again"); n != before {
		t.Fatalf("a wrong password was tried again (%d more log lines)", n-before)
	}

	stopped, stop := context.WithCancel(ctx)
	stop()
	if _, err := ConnectRetry(stopped, log, "nats://127.0.0.1:1", "w1", Credentials{}, ""); err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("a worker stopped while it waits: %v", err)
	}
}
