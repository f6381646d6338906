// Package natsruntest attacks a run on a NATS server the way a bad or
// compromised worker would, for the tests of its roles.
package natsruntest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabula-zero/tabula/data/datatest"
	"github.com/tabula-zero/tabula/natsrun"
	"github.com/tabula-zero/tabula/natsrun/natsserver"
)

// Attack tries, with a worker's connection, everything a bad worker
// might do to a run: each attempt must fail. It returns the attempts that
// succeeded.
func Attack(t testing.TB, nc *nats.Conn, run string, poke func(subject string)) []string {
	n := natsrun.NamesOf(run)
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	short := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, time.Second) }
	// The attempts run at once: a refused request is dropped by the
	// server and waits out its second.
	var mu sync.Mutex
	var wg sync.WaitGroup
	var won []string
	lost := func(what string) {
		mu.Lock()
		won = append(won, what)
		mu.Unlock()
	}
	try := func(what string, f func(ctx context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, cancel := short()
			defer cancel()
			if err := f(c); err == nil {
				lost(what)
			}
		}()
	}
	kv, err := js.KeyValue(ctx, n.Bucket)
	if err != nil {
		t.Fatalf("a worker cannot open the run's bucket: %v", err)
	}
	obj, err := js.ObjectStore(ctx, n.Networks)
	if err != nil {
		t.Fatalf("a worker cannot open the run's networks: %v", err)
	}
	best, err := kv.Get(ctx, "best")
	if err != nil {
		t.Fatalf("a worker cannot read the best entry: %v", err)
	}
	var b natsrun.Best
	if err := json.Unmarshal(best.Value(), &b); err != nil {
		t.Fatalf("the best entry: %v", err)
	}
	planted := []byte("planted network")
	try("overwrite the best network's object", func(c context.Context) error { _, err := obj.PutBytes(c, b.Name, planted); return err })
	try("put a foreign checkpoint", func(c context.Context) error {
		_, err := obj.PutBytes(c, "g999999-s000000001.ckpt", planted)
		return err
	})
	try("point best at it", func(c context.Context) error {
		_, err := kv.Put(c, "best", fmt.Appendf(nil, `{"name":"g999999-s000000001.ckpt","generation":999999,"sha256":"%064d"}`, 0))
		return err
	})
	try("rewrite the config", func(c context.Context) error { _, err := kv.Put(c, "config", []byte("game: lion\n")); return err })
	try("delete the best entry", func(c context.Context) error { return kv.Delete(c, "best") })
	try("delete a network", func(c context.Context) error { return obj.Delete(c, b.Name) })
	try("delete the trainer's consumer", func(c context.Context) error { return js.DeleteConsumer(c, n.Stream, "trainer") })
	try("make a consumer on the shard stream", func(c context.Context) error {
		_, err := js.CreateOrUpdateConsumer(c, n.Stream, jetstream.ConsumerConfig{Durable: "thief", AckPolicy: jetstream.AckExplicitPolicy})
		return err
	})
	try("make an ephemeral consumer on the shard stream", func(c context.Context) error {
		_, err := js.OrderedConsumer(c, n.Stream, jetstream.OrderedConsumerConfig{})
		if err == nil {
			// An ordered consumer is made on its first fetch.
			var cons jetstream.Consumer
			if cons, err = js.OrderedConsumer(c, n.Stream, jetstream.OrderedConsumerConfig{}); err == nil {
				_, err = cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
			}
		}
		return err
	})
	// Consumers on the streams a worker reads: none at all, so none can
	// pile up (a probe once made 20,000 durable ones with the old rights)
	// or deliver where the worker chooses.
	kvStream, objStream := "KV_"+n.Bucket, "OBJ_"+n.Networks
	for _, stream := range []string{kvStream, objStream} {
		try("make a push consumer on "+stream+" delivering to another worker's subject", func(c context.Context) error {
			return apiCall(c, nc, "$JS.API.CONSUMER.CREATE."+stream+".push1", fmt.Sprintf(
				`{"stream_name":%q,"config":{"name":"push1","deliver_subject":%q,"ack_policy":"none"}}`, stream, n.Subject+".box2"))
		})
		try("make an ephemeral consumer on "+stream, func(c context.Context) error {
			return apiCall(c, nc, "$JS.API.CONSUMER.CREATE."+stream, fmt.Sprintf(`{"stream_name":%q,"config":{"ack_policy":"none"}}`, stream))
		})
	}
	try("watch the key-value bucket through a consumer", func(c context.Context) error {
		w, err := kv.Watch(c, "best")
		if err == nil {
			w.Stop()
		}
		return err
	})
	try("purge the shard stream", func(c context.Context) error { return mustStream(js, c, n.Stream).Purge(c) })
	try("delete the shard stream", func(c context.Context) error { return js.DeleteStream(c, n.Stream) })
	try("delete the key-value bucket", func(c context.Context) error { return js.DeleteKeyValue(c, n.Bucket) })
	try("delete the object store", func(c context.Context) error { return js.DeleteObjectStore(c, n.Networks) })
	try("create an unlimited stream", func(c context.Context) error {
		_, err := js.CreateStream(c, jetstream.StreamConfig{Name: "FILL", Subjects: []string{"fill.>"}})
		return err
	})
	name, sb := datatest.ShardBytes(t, "connect4", "box2", 90)
	try("publish on another worker's subject", func(c context.Context) error {
		_, err := js.Publish(c, n.Subject+".box2", sb, jetstream.WithMsgID(name))
		return err
	})
	wg.Wait()
	// The floods after the single attempts, which they would slow past
	// their second.
	for _, stream := range []string{kvStream, objStream} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if made := Flood(t, nc, stream, FloodSize); made > 0 {
				lost(fmt.Sprintf("create durable consumers on %s (%d of %d made)", stream, made, 2*FloodSize))
			}
		}()
	}
	wg.Wait()
	// Subscriptions beyond the worker's inbox are refused by the server
	// (asynchronously): what the trainer sends there does not arrive.
	for subject, probe := range map[string]string{">": "probe.any", "_INBOX.>": "_INBOX.probe", "$JS.ACK.>": "$JS.ACK.probe"} {
		got := make(chan *nats.Msg, 1)
		sub, err := nc.ChanSubscribe(subject, got)
		if err != nil {
			continue
		}
		nc.Flush()
		poke(probe)
		select {
		case m := <-got:
			won = append(won, "subscribe to "+subject+" (got "+m.Subject+")")
		case <-time.After(500 * time.Millisecond):
		}
		sub.Unsubscribe()
	}
	return won
}

// FloodSize is how many consumers of each kind Attack tries to create on
// each stream a worker reads.
const FloodSize = 1000

// Flood tries, as fast as a client can send them, to create count durable
// consumers on stream through the consumer API's current subject and
// count more through the older durable one, and returns how many the
// server answered as made. Requests the server refuses are dropped with
// a permissions violation and get no answer.
func Flood(t testing.TB, nc *nats.Conn, stream string, count int) int {
	t.Helper()
	inbox := nc.NewInbox()
	replies := make(chan *nats.Msg, 2*count)
	sub, err := nc.ChanSubscribe(inbox+".>", replies)
	if err != nil {
		t.Errorf("a worker subscribes to its inbox: %v", err) // not Fatal: Attack calls it from its own goroutine
		return 0
	}
	defer sub.Unsubscribe()
	for i := range count {
		name := fmt.Sprintf("flood%d", i)
		cfg := fmt.Sprintf(`{"stream_name":%q,"config":{"durable_name":%q,"name":%q,"ack_policy":"explicit"}}`, stream, name, name)
		nc.PublishRequest("$JS.API.CONSUMER.CREATE."+stream+"."+name, fmt.Sprintf("%s.c%d", inbox, i), []byte(cfg))
		old := fmt.Sprintf(`{"stream_name":%q,"config":{"durable_name":"old%d","ack_policy":"explicit"}}`, stream, i)
		nc.PublishRequest(fmt.Sprintf("$JS.API.CONSUMER.DURABLE.CREATE.%s.old%d", stream, i), fmt.Sprintf("%s.d%d", inbox, i), []byte(old))
	}
	nc.Flush()
	made := 0
	for {
		select {
		case m := <-replies:
			var r struct {
				Error *json.RawMessage `json:"error"`
			}
			if json.Unmarshal(m.Data, &r) == nil && r.Error == nil {
				made++
			}
		case <-time.After(2 * time.Second): // no answer: every request was dropped
			return made
		}
	}
}

// apiCall makes a JetStream API request and returns the error the server
// answers with, or the request's own (no answer: a dropped request).
func apiCall(ctx context.Context, nc *nats.Conn, subject, body string) error {
	m, err := nc.RequestWithContext(ctx, subject, []byte(body))
	if err != nil {
		return err
	}
	var r struct {
		Error *struct {
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(m.Data, &r); err != nil {
		return err
	}
	if r.Error != nil {
		return fmt.Errorf("%s", r.Error.Description)
	}
	return nil
}

// Consumers returns, as the trainer, the consumers on the run's streams
// other than the trainer's own, by stream.
func Consumers(t testing.TB, tnc *nats.Conn, run string) map[string][]string {
	t.Helper()
	n := natsrun.NamesOf(run)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	js, _ := jetstream.New(tnc)
	out := map[string][]string{}
	for _, stream := range []string{n.Stream, "KV_" + n.Bucket, "OBJ_" + n.Networks} {
		st, err := js.Stream(ctx, stream)
		if err != nil {
			t.Fatalf("stream %s: %v", stream, err)
		}
		names := st.ConsumerNames(ctx)
		for name := range names.Name() {
			if stream != n.Stream || name != "trainer" {
				out[stream] = append(out[stream], name)
			}
		}
		if err := names.Err(); err != nil {
			t.Fatalf("consumers of %s: %v", stream, err)
		}
	}
	return out
}

// CheckIntact looks, as the trainer, at what Attack attacked: the
// streams, buckets and the trainer's consumer are there, nothing was
// added (no consumer but the trainer's on any of the run's streams).
func CheckIntact(t testing.TB, tnc *nats.Conn, run string) {
	n := natsrun.NamesOf(run)
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	js, _ := jetstream.New(tnc)
	st, err := js.Stream(ctx, n.Stream)
	if err != nil {
		t.Fatalf("the shard stream after the attacks: %v", err)
	}
	if _, err := st.Consumer(ctx, "trainer"); err != nil {
		t.Errorf("the trainer's consumer after the attacks: %v", err)
	}
	if _, err := st.Consumer(ctx, "thief"); err == nil {
		t.Error("a worker's consumer on the shard stream")
	}
	if stray := Consumers(t, tnc, run); len(stray) > 0 {
		for stream, names := range stray {
			t.Errorf("%d consumers the trainer did not make on %s: %v", len(names), stream, names[:min(len(names), 5)])
		}
	}
	if _, err := js.Stream(ctx, "FILL"); err == nil {
		t.Error("a worker's stream")
	}
	if _, err := js.KeyValue(ctx, n.Bucket); err != nil {
		t.Errorf("the key-value bucket after the attacks: %v", err)
	}
	obj, err := js.ObjectStore(ctx, n.Networks)
	if err != nil {
		t.Fatalf("the object store after the attacks: %v", err)
	}
	if _, err := obj.GetInfo(ctx, "g999999-s000000001.ckpt"); err == nil {
		t.Error("a planted network in the object store")
	}
}

func mustStream(js jetstream.JetStream, ctx context.Context, name string) jetstream.Stream {
	s, err := js.Stream(ctx, name)
	if err != nil {
		return deniedStream{err: err}
	}
	return s
}

// deniedStream stands for a stream a worker may not even look at.
type deniedStream struct {
	jetstream.Stream
	err error
}

func (d deniedStream) Purge(context.Context, ...jetstream.StreamPurgeOpt) error { return d.err }

// OpenServer starts an embedded server on loopback without accounts,
// stopped when the test ends, and returns it with a trainer's hub of run
// on a connection of its own.
func OpenServer(t testing.TB, run string) (*natsserver.Server, *natsrun.Hub) {
	t.Helper()
	s, err := natsserver.Start(natsserver.Config{Addr: "127.0.0.1:0", StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	hub, err := natsrun.Create(context.Background(), Conn(t, s.ClientURL()), run)
	if err != nil {
		t.Fatal(err)
	}
	return s, hub
}

// OpenRoles starts a server with a trainer account (user "trainer",
// password "tpw") and the worker accounts, connects the trainer in
// process and creates run: the server, the trainer's connection and its
// hub, all stopped when the test ends.
func OpenRoles(t testing.TB, run string, workers []natsrun.Account) (*natsserver.Server, *nats.Conn, *natsrun.Hub) {
	t.Helper()
	s, err := natsserver.Start(natsserver.Config{Addr: "127.0.0.1:0", StoreDir: t.TempDir(), User: "trainer", Password: "tpw", Run: run, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	url, opts := natsserver.InProcess(s)
	tnc, err := natsrun.Connect(url, "trainer", natsrun.Credentials{User: "trainer", Password: "tpw"}, "", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tnc.Close)
	hub, err := natsrun.Create(context.Background(), tnc, run)
	if err != nil {
		t.Fatal(err)
	}
	return s, tnc, hub
}

// Conn connects to url, closed when the test ends.
func Conn(t testing.TB, url string, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// Log is a log's output that tests read while it is written.
type Log struct {
	mu sync.Mutex
	b  []byte
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	return len(p), nil
}

func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}
