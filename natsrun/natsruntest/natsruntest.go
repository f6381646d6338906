// Package natsruntest attacks a run on a NATS server the way a bad or
// compromised worker would, for the tests of its roles.
package natsruntest

import (
	"context"
	"encoding/json"
	"fmt"
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
	var won []string
	try := func(what string, f func(ctx context.Context) error) {
		c, cancel := short()
		defer cancel()
		if err := f(c); err == nil {
			won = append(won, what)
		}
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
	try("purge the shard stream", func(c context.Context) error { return mustStream(js, c, n.Stream).Purge(c) })
	try("delete the shard stream", func(c context.Context) error { return js.DeleteStream(c, n.Stream) })
	try("delete the key-value bucket", func(c context.Context) error { return js.DeleteKeyValue(c, n.Bucket) })
	try("delete the object store", func(c context.Context) error { return js.DeleteObjectStore(c, n.Networks) })
	try("create an unlimited stream", func(c context.Context) error {
		_, err := js.CreateStream(c, jetstream.StreamConfig{Name: "FILL", Subjects: []string{"fill.>"}})
		return err
	})
	try("publish on another worker's subject", func(c context.Context) error {
		name, sb := datatest.ShardBytes(t, "connect4", "box2", 90)
		_, err := js.Publish(c, n.Subject+".box2", sb, jetstream.WithMsgID(name))
		return err
	})
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

// CheckIntact looks, as the trainer, at what Attack attacked: the
// streams, buckets and the trainer's consumer are there, nothing was
// added.
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
