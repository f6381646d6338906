package natsserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	stdnet "net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/data/datatest"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all"
	"github.com/tabula-zero/tabula/natsrun"
)

func connect4Only(_ string, h data.Header) error {
	g, _ := game.Lookup("connect4")
	if h.Game != g.Name || h.EncoderVersion != g.Encoder.Version() {
		return fmt.Errorf("shard of %s encoder %d, the run is %s encoder %d", h.Game, h.EncoderVersion, g.Name, g.Encoder.Version())
	}
	return nil
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

func TestServerConfigChecked(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Addr: "0.0.0.0:0", StoreDir: dir}, "beyond loopback"},
		{Config{Addr: "127.0.0.1:0", StoreDir: dir, User: "u"}, "needs a password"},
		{Config{Addr: "127.0.0.1:0", StoreDir: dir, User: "u", Password: "p", Run: "c4"}, "worker accounts go together"},
		{Config{Addr: "127.0.0.1:0", StoreDir: dir, Run: "c4", Workers: []natsrun.Account{{User: "w", Password: "p"}}}, "worker accounts go together"},
		{Config{Addr: "127.0.0.1:0", StoreDir: dir, User: "u", Password: "p", Run: "c4", Workers: []natsrun.Account{{User: "u", Password: "p"}}}, "is the trainer's"},
		{Config{Addr: "127.0.0.1:0", StoreDir: dir, User: "u", Password: "p", Run: "c4", Workers: []natsrun.Account{{User: "a_b", Password: "p"}}}, "letters or digits"},
		{Config{Addr: "127.0.0.1", StoreDir: dir}, "listen address"},
		{Config{Addr: "127.0.0.1:0"}, "store directory"},
		{Config{Addr: "127.0.0.1:0", StoreDir: dir, TLSCert: "/nonexistent.pem", TLSKey: "/nonexistent.key"}, "TLS"},
	} {
		if _, err := Start(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.cfg, err, c.want)
		}
	}
}

// Two workers upload shards through their spools while the trainer
// ingests: every shard lands in the replay directory exactly once, also
// when a worker publishes one again (a retry after a crash); a corrupt
// shard and a shard of another game are rejected with named errors; a
// wrong password is refused; shards published while the trainer is away
// and across a server restart (file storage) are taken in.
func TestShardsExactlyOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := t.TempDir()
	cfg := Config{Addr: "127.0.0.1:0", StoreDir: store, User: "tabula", Password: "s3cret",
		Run: "c4", Workers: []natsrun.Account{{User: "w1", Password: "pw1"}, {User: "w2", Password: "pw2"}}}
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	url := s.ClientURL()
	auth := nats.UserInfo("tabula", "s3cret")
	for _, wrong := range []nats.Option{nats.UserInfo("tabula", "wrong"), nats.UserInfo("w1", "pw2")} {
		if _, err := nats.Connect(url, wrong); err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization") {
			t.Fatalf("wrong password: %v", err)
		}
	}
	trainer, err := natsrun.Create(ctx, connect(t, url, auth), "c4")
	if err != nil {
		t.Fatal(err)
	}
	if err := trainer.PublishNetwork(ctx, "g000001-s000000100.ckpt", 1, []byte("network")); err != nil {
		t.Fatal(err)
	}
	// Published before the trainer takes anything in.
	var want []string
	early, b := datatest.ShardBytes(t, "connect4", "early", 1)
	if err := trainer.PublishShard(ctx, early, b); err != nil {
		t.Fatal(err)
	}
	want = append(want, early)
	// A server restart with file storage keeps it.
	s.Shutdown()
	s.WaitForShutdown()
	cfg.Addr = strings.TrimPrefix(url, "nats://")
	if s, err = Start(cfg); err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()

	replay := t.TempDir()
	var mu sync.Mutex
	var bad []string
	written := map[string]int{}
	go trainer.Ingest(ctx, replay, nil, connect4Only,
		func(s natsrun.Stored) {
			mu.Lock()
			written[filepath.Base(s.Path)]++
			if s.Busy <= 0 || s.Games == 0 {
				bad = append(bad, fmt.Sprintf("%s: busy %v, %d games", s.Path, s.Busy, s.Games))
			}
			mu.Unlock()
		},
		func(err error) { mu.Lock(); bad = append(bad, err.Error()); mu.Unlock() })

	var wg sync.WaitGroup
	for _, w := range []string{"w1", "w2"} {
		spool := t.TempDir()
		for seq := range 8 {
			name, b := datatest.ShardBytes(t, "connect4", w, seq)
			if err := os.WriteFile(filepath.Join(spool, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
			want = append(want, name)
		}
		hub, err := natsrun.Attach(ctx, connect(t, url, nats.UserInfo(w, "pw"+w[1:]), natsrun.WorkerOption(w), nats.MaxReconnects(-1)), "c4", w)
		if err != nil {
			t.Fatal(err)
		}
		// A retry: the first shard again, as after a crash between the
		// publish and the delete.
		first, b := datatest.ShardBytes(t, "connect4", w, 0)
		if err := hub.PublishShard(ctx, first, b); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			uctx, ucancel := context.WithCancel(ctx)
			defer ucancel()
			go func() {
				for {
					if names, _ := filepath.Glob(filepath.Join(spool, "*"+data.Ext)); len(names) == 0 {
						ucancel()
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
			}()
			var sent []natsrun.Sent
			hub.Upload(uctx, spool, func(s natsrun.Sent) { sent = append(sent, s) }, func(err error) { t.Log(err) })
			for _, s := range sent {
				if s.Publish <= 0 || s.Age < s.Publish || !strings.HasSuffix(s.Name, data.Ext) {
					t.Errorf("worker %s: sent %+v", w, s)
				}
			}
			if len(sent) != 8 {
				t.Errorf("worker %s: %d shards reported sent, 8 written", w, len(sent))
			}
			// A restart of this worker continues after the shards it sent.
			if n := data.NextSeq(spool, w); n != 8 {
				t.Errorf("worker %s: next sequence %d after sending 8 shards", w, n)
			}
		}()
	}
	wg.Wait()
	corrupt, b := datatest.ShardBytes(t, "connect4", "w3", 1)
	b[len(b)/2] ^= 0xff
	xq, xb := datatest.ShardBytes(t, "xiangqi", "w3", 2)
	for name, b := range map[string][]byte{corrupt: b, xq: xb} {
		if err := trainer.PublishShard(ctx, name, b); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n, nbad := len(written), len(bad)
		mu.Unlock()
		if n == len(want) && nbad == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30s: %d of %d shards written, %d rejected", n, len(want), nbad)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // a duplicate would arrive by now
	mu.Lock()
	defer mu.Unlock()
	for _, name := range want {
		if written[name] != 1 {
			t.Errorf("%s written %d times", name, written[name])
		}
	}
	files, _ := filepath.Glob(filepath.Join(replay, "*"+data.Ext))
	if len(files) != len(want) {
		t.Errorf("%d shard files for %d shards", len(files), len(want))
	}
	slices.Sort(bad)
	if !strings.Contains(bad[0]+bad[1], "xiangqi") || !strings.Contains(strings.Join(bad, " "), "rejected: corrupt shard") {
		t.Errorf("rejections: %q", bad)
	}
}

// writeSelfSigned writes a self-signed certificate for 127.0.0.1 and its
// key as PEM files.
func writeSelfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tabula test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []stdnet.IP{stdnet.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return certFile, keyFile
}

// With TLS a client that trusts the certificate connects and one that
// does not is refused; a token file reads.
func TestTLSAndToken(t *testing.T) {
	dir := t.TempDir()
	cert, key := writeSelfSigned(t, dir)
	tokenFile := filepath.Join(dir, "token")
	os.WriteFile(tokenFile, []byte("a-long-token\n"), 0o600)
	creds, err := natsrun.ReadCredentials(tokenFile)
	if err != nil || creds.Token != "a-long-token" {
		t.Fatalf("token file read as %+v, %v", creds, err)
	}
	s, err := Start(Config{Addr: "127.0.0.1:0", StoreDir: t.TempDir(), User: "trainer", Password: "tpw",
		Run: "tls", Workers: []natsrun.Account{{User: "box", Password: "bpw"}}, TLSCert: cert, TLSKey: key})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	url := strings.Replace(s.ClientURL(), "nats://", "tls://", 1)
	creds = natsrun.Credentials{User: "box", Password: "bpw"}
	nc, err := natsrun.Connect(url, "t", creds, cert, natsrun.WorkerOption("box"))
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	if nc, err := natsrun.Connect(url, "t", creds, ""); err == nil {
		nc.Close()
		t.Fatal("a client that does not trust the certificate connected")
	}
	// The trainer's own client of its embedded server connects in-process.
	ipURL, ipOpts := InProcess(s)
	nc, err = natsrun.Connect(ipURL, "trainer", natsrun.Credentials{User: "trainer", Password: "tpw"}, "", ipOpts...)
	if err != nil {
		t.Fatalf("in-process client of a TLS server: %v", err)
	}
	if _, err := natsrun.Create(context.Background(), nc, "tls"); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	if nc, err := natsrun.Connect(url, "t", natsrun.Credentials{User: "box", Password: "guess"}, cert); err == nil {
		nc.Close()
		t.Fatal("a wrong password connected")
	}
	for content, want := range map[string]string{"": "empty", ":pw": "empty part", "user:": "empty part"} {
		f := filepath.Join(dir, "c")
		os.WriteFile(f, []byte(content), 0o600)
		if _, err := natsrun.ReadCredentials(f); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("credentials %q: %v", content, err)
		}
	}
}
