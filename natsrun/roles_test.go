package natsrun_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/data/datatest"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all"
	"github.com/tabula-zero/tabula/natsrun"
	"github.com/tabula-zero/tabula/natsrun/natsruntest"
	"github.com/tabula-zero/tabula/natsrun/natsserver"
)

// ingestLog collects what a trainer's Ingest wrote and rejected.
type ingestLog struct {
	mu      sync.Mutex
	written map[string]string // shard name -> account it came from
	bad     []string
}

func (l *ingestLog) got(s natsrun.Stored) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.written[filepath.Base(s.Path)] = s.From
}

func (l *ingestLog) reject(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bad = append(l.bad, err.Error())
}

// waitFor waits until ok holds of the log.
func (l *ingestLog) waitFor(t *testing.T, what string, ok func(l *ingestLog) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		l.mu.Lock()
		done := ok(l)
		l.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			l.mu.Lock()
			defer l.mu.Unlock()
			t.Fatalf("after 30s: %s (written %v, rejected %q)", what, l.written, l.bad)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A worker account can do what a worker needs (read the config, the best
// network, follow promotions, publish its shards) and nothing else: every
// attack of a bad worker fails, shards under another worker's name or
// from a generation the trainer never published are rejected, a forged
// message id does not keep another worker's shard out, and the run goes
// on unharmed. A revoked worker is refused.
func TestWorkerCannotHarmRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := natsserver.Start(natsserver.Config{Addr: "127.0.0.1:0", StoreDir: t.TempDir(), User: "trainer", Password: "tpw",
		Run: "c4", Workers: []natsrun.Account{{"box1", "pw1"}, {"box2", "pw2"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	ipURL, ipOpts := natsserver.InProcess(s)
	tnc, err := natsrun.Connect(ipURL, "trainer", natsrun.Credentials{User: "trainer", Password: "tpw"}, "", ipOpts...)
	if err != nil {
		t.Fatal(err)
	}
	defer tnc.Close()
	trainer, err := natsrun.Create(ctx, tnc, "c4")
	if err != nil {
		t.Fatal(err)
	}
	config := []byte("# sealed\ngame: connect4\n")
	net1 := bytes.Repeat([]byte{1}, 200000)
	if err := trainer.PublishConfig(ctx, config); err != nil {
		t.Fatal(err)
	}
	if err := trainer.PublishNetwork(ctx, "g000001-s000000100.ckpt", 1, net1); err != nil {
		t.Fatal(err)
	}
	roster := natsrun.NewRoster([]natsrun.Account{{"box1", ""}, {"box2", ""}}, nil)
	log := &ingestLog{written: map[string]string{}}
	go trainer.Ingest(ctx, t.TempDir(), roster.Check, connect4Only, log.got, log.reject)

	workerConn := func(user, pass string) *nats.Conn {
		nc, err := natsrun.Connect(s.ClientURL(), user, natsrun.Credentials{User: user, Password: pass}, "", natsrun.WorkerOption(user), nats.MaxReconnects(0))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	nc1 := workerConn("box1", "pw1")
	var violations []string
	var vmu sync.Mutex
	nc1.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		vmu.Lock()
		violations = append(violations, err.Error())
		vmu.Unlock()
	})
	box1, err := natsrun.Attach(ctx, nc1, "c4", "box1")
	if err != nil {
		t.Fatal(err)
	}
	// What a worker needs works.
	if got, err := box1.Config(ctx); err != nil || !bytes.Equal(got, config) {
		t.Fatalf("a worker reads the config: %q, %v", got, err)
	}
	best, err := box1.Best(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := box1.Network(ctx, best); err != nil || !bytes.Equal(got, net1) {
		t.Fatalf("a worker reads the best network: %v", err)
	}
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	updates, err := box1.WatchBest(wctx)
	if err != nil {
		t.Fatal(err)
	}
	if b := <-updates; b != best {
		t.Fatalf("watch starts with %+v, the best is %+v", b, best)
	}

	if won := natsruntest.Attack(t, nc1, "c4", func(subj string) { tnc.Publish(subj, []byte("x")); tnc.Flush() }); len(won) > 0 {
		t.Errorf("a worker account could: %s", strings.Join(won, "; "))
	}
	natsruntest.CheckIntact(t, tnc, "c4")
	vmu.Lock()
	if !strings.Contains(strings.Join(violations, " "), "Permissions Violation") {
		t.Errorf("no permission violations reported to the worker: %q", violations)
	}
	vmu.Unlock()

	// Shards: box1's own go in; one under box2's name, one of a generation
	// never published are rejected; a message id forged by box1 for
	// box2's next shard does not keep box2's real shard out.
	own, ob := datatest.ShardBytes(t, "connect4", "box1_a", 0)
	named, nb := datatest.ShardBytes(t, "connect4", "box2", 5)
	future, fb := datatest.ShardBytesOf(t, "connect4", "box1", 1, 999999)
	real2, rb := datatest.ShardBytes(t, "connect4", "box2", 0)
	for name, b := range map[string][]byte{own: ob, named: nb, future: fb} {
		if err := box1.PublishShard(ctx, name, b); err != nil {
			t.Fatal(err)
		}
	}
	js1, _ := jetstream.New(nc1)
	if _, err := js1.Publish(ctx, natsrun.NamesOf("c4").Subject+".box1", []byte("junk"), jetstream.WithMsgID("c4/box2/"+real2)); err != nil {
		t.Fatal(err)
	}
	box2, err := natsrun.Attach(ctx, workerConn("box2", "pw2"), "c4", "box2")
	if err != nil {
		t.Fatal(err)
	}
	if err := box2.PublishShard(ctx, real2, rb); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, "box1's and box2's own shards in, three rejected", func(l *ingestLog) bool {
		return l.written[own] == "box1" && l.written[real2] == "box2" && len(l.bad) >= 3
	})
	all := strings.Join(log.bad, "\n")
	for _, want := range []string{`worker account "box1" may send only shards of worker "box1"`, "generation 999999", "corrupt shard"} {
		if !strings.Contains(all, want) {
			t.Errorf("no rejection with %q in:\n%s", want, all)
		}
	}
	if _, ok := log.written[named]; ok {
		t.Errorf("box1's shard under box2's name was taken in")
	}

	// The run is unharmed: the best, its network and the config are the
	// trainer's, and its next promotion reaches the worker.
	if b, err := box1.Best(ctx); err != nil || b != best {
		t.Errorf("best after the attacks: %+v, %v", b, err)
	}
	if got, err := box1.Network(ctx, best); err != nil || !bytes.Equal(got, net1) {
		t.Errorf("the best network after the attacks: %v", err)
	}
	if got, err := box1.Config(ctx); err != nil || !bytes.Equal(got, config) {
		t.Errorf("config after the attacks: %q, %v", got, err)
	}
	if err := trainer.PublishNetwork(ctx, "g000002-s000000200.ckpt", 2, []byte("net2")); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-updates:
		if b.Generation != 2 {
			t.Errorf("promotion arrived as %+v", b)
		}
	case <-time.After(10 * time.Second):
		t.Error("the trainer's promotion did not reach the worker after the attacks")
	}

	// Consumers left on the run's streams (as the old rights let a
	// worker make: durable ones, a push consumer delivering on another
	// worker's subject), planted here with the trainer's rights.
	tjs, _ := jetstream.New(tnc)
	names := natsrun.NamesOf("c4")
	for i := range 100 {
		if _, err := tjs.CreateOrUpdateConsumer(ctx, "KV_"+names.Bucket, jetstream.ConsumerConfig{Durable: fmt.Sprintf("left%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	push := fmt.Sprintf(`{"stream_name":"OBJ_%s","config":{"name":"push","deliver_subject":%q,"ack_policy":"none"}}`, names.Networks, names.Subject+".box1")
	if _, err := tnc.Request("$JS.API.CONSUMER.CREATE.OBJ_"+names.Networks+".push", []byte(push), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if n := len(natsruntest.Consumers(t, tnc, "c4")["KV_"+names.Bucket]); n != 100 {
		t.Fatalf("%d consumers planted on the bucket, want 100", n)
	}

	// Revoked: the trainer's roster drops box2 first, so shards box2
	// still sends are refused before they are read (a bomb is refused for
	// the account, not decoded); the consumers the trainer did not make
	// are removed; then the server drops its account, which ends its
	// connection and refuses a new one.
	roster.SetAccounts([]natsrun.Account{{"box1", ""}})
	late, lb := datatest.ShardBytes(t, "connect4", "box2", 1)
	bomb := datatest.Bombs("box2", "connect4", 1)[2] // 1 GiB of records
	for _, b := range [][]byte{lb, bomb.Bytes} {
		if err := box2.PublishShard(ctx, late, b); err != nil {
			t.Fatal(err)
		}
	}
	log.waitFor(t, "the revoked worker's two shards refused", func(l *ingestLog) bool {
		return strings.Count(strings.Join(l.bad, "\n"), `worker "box2" has no account`) == 2
	})
	log.mu.Lock()
	for _, b := range log.bad {
		if strings.Contains(b, `from "box2"`) && !strings.Contains(b, "has no account") {
			t.Errorf("a revoked worker's shard was read: %s", b)
		}
	}
	log.mu.Unlock()
	removed, err := trainer.RemoveStrayConsumers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed["KV_"+names.Bucket]) != 100 || len(removed["OBJ_"+names.Networks]) != 1 {
		t.Errorf("removed %v", removed)
	}
	natsruntest.CheckIntact(t, tnc, "c4")
	if err := s.SetWorkers([]natsrun.Account{{"box1", "pw1"}}); err != nil {
		t.Fatal(err)
	}
	if nc, err := nats.Connect(s.ClientURL(), nats.UserInfo("box2", "pw2")); err == nil {
		nc.Close()
		t.Error("a revoked worker connected")
	} else if !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Errorf("a revoked worker: %v", err)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if from, ok := log.written[late]; ok {
		t.Errorf("the revoked worker's shard was taken in (from %q)", from)
	}
}

// ServerConf's configuration runs Debian's nats-server with the same
// roles as the embedded server: a worker account reads the run and
// publishes its shards, and every attack fails.
func TestServerConfWithNatsServer(t *testing.T) {
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nats-server"); serr != nil {
			t.Skip("nats-server is not installed (apt-get install nats-server; .ci/run installs it)")
		}
		bin = "/usr/sbin/nats-server"
	}
	dir := t.TempDir()
	conf, err := natsserver.ServerConf("c4", filepath.Join(dir, "js"), natsrun.Account{"trainer", "tpw"}, []natsrun.Account{{"box1", "pw1"}})
	if err != nil {
		t.Fatal(err)
	}
	port := freeTCPPort(t)
	conf += "listen: 127.0.0.1:" + port + "\n"
	confFile := filepath.Join(dir, "nats.conf")
	os.WriteFile(confFile, []byte(conf), 0o600)
	if out, err := exec.Command(bin, "-c", confFile, "-t").CombinedOutput(); err != nil {
		t.Fatalf("nats-server refuses the configuration: %v\n%s\n%s", err, out, conf)
	}
	cmd := exec.Command(bin, "-c", confFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	url := "nats://127.0.0.1:" + port
	var tnc *nats.Conn
	for i := 0; ; i++ {
		if tnc, err = natsrun.Connect(url, "trainer", natsrun.Credentials{User: "trainer", Password: "tpw"}, ""); err == nil {
			break
		}
		if i == 100 {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	defer tnc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	trainer, err := natsrun.Create(ctx, tnc, "c4")
	if err != nil {
		t.Fatal(err)
	}
	net1 := bytes.Repeat([]byte{3}, 300000)
	if err := trainer.PublishConfig(ctx, []byte("game: connect4\n")); err != nil {
		t.Fatal(err)
	}
	if err := trainer.PublishNetwork(ctx, "g000001-s000000100.ckpt", 1, net1); err != nil {
		t.Fatal(err)
	}
	log := &ingestLog{written: map[string]string{}}
	go trainer.Ingest(ctx, t.TempDir(), nil, connect4Only, log.got, log.reject)
	nc, err := natsrun.Connect(url, "box1", natsrun.Credentials{User: "box1", Password: "pw1"}, "", natsrun.WorkerOption("box1"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}) // the violations hostile provokes
	box1, err := natsrun.Attach(ctx, nc, "c4", "box1")
	if err != nil {
		t.Fatal(err)
	}
	best, err := box1.Best(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := box1.Network(ctx, best); err != nil || !bytes.Equal(got, net1) {
		t.Fatalf("a worker reads the network from nats-server: %v", err)
	}
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	if _, err := box1.WatchBest(wctx); err != nil {
		t.Fatal(err)
	}
	name, b := datatest.ShardBytes(t, "connect4", "box1", 0)
	if err := box1.PublishShard(ctx, name, b); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, "the worker's shard in", func(l *ingestLog) bool { return l.written[name] == "box1" })
	if won := natsruntest.Attack(t, nc, "c4", func(subj string) { tnc.Publish(subj, []byte("x")); tnc.Flush() }); len(won) > 0 {
		t.Errorf("a worker account of nats-server could: %s", strings.Join(won, "; "))
	}
	natsruntest.CheckIntact(t, tnc, "c4")
	if b, err := box1.Best(ctx); err != nil || b != best {
		t.Errorf("best after the attacks: %+v, %v", b, err)
	}
}

func freeTCPPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func connect4Only(_ string, h data.Header) error {
	g, _ := game.Lookup("connect4")
	if h.Game != g.Name || h.EncoderVersion != g.Encoder.Version() {
		return fmt.Errorf("shard of %s encoder %d, the run is %s encoder %d", h.Game, h.EncoderVersion, g.Name, g.Encoder.Version())
	}
	return nil
}

// A trainer whose shard stream or consumer disappears (a server that
// lost its store, an operator's mistake) says so and makes them again:
// shards published afterwards are taken in.
func TestIngestRemakesItsConsumer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, trainer := natsruntest.OpenServer(t, "c4")
	if err := trainer.PublishNetwork(ctx, "g000001-s000000100.ckpt", 1, []byte("n")); err != nil {
		t.Fatal(err)
	}
	log := &ingestLog{written: map[string]string{}}
	go trainer.Ingest(ctx, t.TempDir(), nil, connect4Only, log.got, log.reject)
	worker, err := natsrun.Attach(ctx, natsruntest.Conn(t, s.ClientURL()), "c4", "")
	if err != nil {
		t.Fatal(err)
	}
	first, b := datatest.ShardBytes(t, "connect4", "w1", 0)
	if err := worker.PublishShard(ctx, first, b); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, "the first shard in", func(l *ingestLog) bool { return l.written[first] != "" })
	js, _ := jetstream.New(natsruntest.Conn(t, s.ClientURL()))
	n := natsrun.NamesOf("c4")
	if err := js.DeleteConsumer(ctx, n.Stream, "trainer"); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, "the lost consumer reported", func(l *ingestLog) bool {
		return strings.Contains(strings.Join(l.bad, " "), "making it again")
	})
	if err := js.DeleteStream(ctx, n.Stream); err != nil {
		t.Fatal(err)
	}
	second, b := datatest.ShardBytes(t, "connect4", "w1", 1)
	deadline := time.Now().Add(20 * time.Second)
	for worker.PublishShard(ctx, second, b) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the stream was not made again")
		}
		time.Sleep(100 * time.Millisecond)
	}
	log.waitFor(t, "a shard after the stream was made again", func(l *ingestLog) bool { return l.written[second] != "" })
}
