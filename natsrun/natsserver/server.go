// Package natsserver is the server side of natsrun: the NATS server with
// JetStream that the trainer embeds (Start), with the trainer's and the
// workers' accounts, and the configuration file of a server of one's own
// (ServerConf). It is apart from natsrun so that a self-play worker, which
// only connects, does not link a NATS server.
package natsserver

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/tabula-zero/tabula/natsrun"
)

// Config configures an embedded NATS server with JetStream.
type Config struct {
	// Addr is host:port to listen on (port 0: any free port).
	Addr string
	// StoreDir holds JetStream's files (RUN/nats): streams survive a
	// restart of the trainer.
	StoreDir string
	// User and Password are the trainer's account, with every right; Run
	// and Workers the run served and its worker accounts, each allowed
	// natsrun.WorkerPermissions only: workers never hold the trainer's
	// credentials. A server listening beyond loopback must have them;
	// without them the server is open to whoever reaches it.
	User, Password string
	Run            string
	Workers        []natsrun.Account
	// TLSCert and TLSKey are PEM files; with them clients must use TLS.
	TLSCert, TLSKey string
	// MaxPayload bounds a message (default 8 MiB: a shard is well below).
	MaxPayload int32
}

// DefaultMaxPayload is the message bound of an embedded server.
const DefaultMaxPayload = 8 << 20

// Server is an embedded NATS server whose worker accounts can be changed
// while it runs (SetWorkers).
type Server struct {
	*server.Server
	opts *server.Options
	c    Config
}

// Start starts an embedded NATS server with JetStream and waits until it
// accepts connections.
func Start(c Config) (*Server, error) {
	host, portText, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return nil, fmt.Errorf("natsserver: listen address %q: %w", c.Addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("natsserver: listen address %q: bad port", c.Addr)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	if !loopback(host) && c.Password == "" {
		return nil, fmt.Errorf("natsserver: a server listening on %q (beyond loopback) needs the trainer's user and password and worker accounts", host)
	}
	if (c.User == "") != (c.Password == "") {
		return nil, errors.New("natsserver: a user needs a password and a password a user")
	}
	if (c.Password != "") != (len(c.Workers) > 0) {
		return nil, errors.New("natsserver: the trainer's credentials and worker accounts go together (workers must not hold the trainer's credentials)")
	}
	if len(c.Workers) > 0 {
		if err := natsrun.CheckRun(c.Run); err != nil {
			return nil, err
		}
	}
	if c.StoreDir == "" {
		return nil, errors.New("natsserver: no JetStream store directory")
	}
	if err := os.MkdirAll(c.StoreDir, 0o755); err != nil {
		return nil, fmt.Errorf("natsserver: %w", err)
	}
	opts := &server.Options{
		Host: host, Port: port, JetStream: true, StoreDir: c.StoreDir,
		MaxPayload: c.MaxPayload, NoSigs: true, NoLog: true,
	}
	if len(c.Workers) > 0 {
		if opts.Users, err = users(c, c.Workers); err != nil {
			return nil, err
		}
	}
	if opts.MaxPayload == 0 {
		opts.MaxPayload = DefaultMaxPayload
	}
	if c.TLSCert != "" || c.TLSKey != "" {
		cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("natsserver: TLS: %w", err)
		}
		opts.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		opts.TLS = true
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("natsserver: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, errors.New("natsserver: the embedded server did not start within 10s")
	}
	return &Server{Server: s, opts: opts, c: c}, nil
}

// permissions is p in the server's form.
func permissions(p natsrun.Permissions) *server.Permissions {
	return &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: p.Publish, Deny: p.PublishDeny},
		Subscribe: &server.SubjectPermission{Allow: p.Subscribe},
	}
}

// users are the server's accounts: the trainer's with every right and
// each worker's with natsrun.WorkerPermissions.
func users(c Config, workers []natsrun.Account) ([]*server.User, error) {
	us := []*server.User{{Username: c.User, Password: c.Password}}
	for _, w := range workers {
		if err := natsrun.CheckAccount(w.User); err != nil {
			return nil, err
		}
		if w.User == c.User {
			return nil, fmt.Errorf("natsserver: worker account %q is the trainer's", w.User)
		}
		us = append(us, &server.User{Username: w.User, Password: w.Password, Permissions: permissions(natsrun.WorkerPermissions(c.Run, w.User))})
	}
	return us, nil
}

// SetWorkers replaces the server's worker accounts: a worker whose
// account is gone is disconnected and refused from then on.
func (s *Server) SetWorkers(workers []natsrun.Account) error {
	if len(s.c.Workers) == 0 {
		return errors.New("natsserver: the server was started without worker accounts")
	}
	if len(workers) == 0 {
		return errors.New("natsserver: no worker accounts left (a server with credentials needs one)")
	}
	us, err := users(s.c, workers)
	if err != nil {
		return err
	}
	opts := s.opts.Clone()
	opts.Users = us
	if err := s.ReloadOptions(opts); err != nil {
		return fmt.Errorf("natsserver: worker accounts: %w", err)
	}
	s.opts = opts
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// InProcess returns the URL and options of a client inside the server's
// own process (the trainer of an embedded server): it connects through a
// pipe, for which the server does not require TLS.
func InProcess(s *Server) (string, []nats.Option) {
	return strings.Replace(s.ClientURL(), "tls://", "nats://", 1), []nats.Option{nats.InProcessServer(s.Server)}
}

// ServerConf is a nats-server configuration file for a server of your own
// that serves run with both roles: the trainer's account with every right
// and each worker's with natsrun.WorkerPermissions. storeDir is JetStream's
// directory.
func ServerConf(run, storeDir string, trainer natsrun.Account, workers []natsrun.Account) (string, error) {
	if err := natsrun.CheckRun(run); err != nil {
		return "", err
	}
	if trainer.User == "" || trainer.Password == "" {
		return "", fmt.Errorf("natsserver: the trainer needs a user and a password")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# nats-server configuration for the tabula run %q: the trainer and %d worker accounts.\n", run, len(workers))
	fmt.Fprintf(&b, "jetstream {\n  store_dir: %q\n}\nmax_payload: %d\n", storeDir, DefaultMaxPayload)
	b.WriteString("authorization {\n  users: [\n")
	fmt.Fprintf(&b, "    {user: %q, password: %q}\n", trainer.User, trainer.Password)
	for _, w := range workers {
		if err := natsrun.CheckAccount(w.User); err != nil {
			return "", err
		}
		if w.User == trainer.User {
			return "", fmt.Errorf("natsserver: worker account %q is the trainer's", w.User)
		}
		p := natsrun.WorkerPermissions(run, w.User)
		fmt.Fprintf(&b, "    {user: %q, password: %q, permissions: {\n      publish: {allow: [%s], deny: [%s]}\n      subscribe: {allow: [%s]}\n    }}\n",
			w.User, w.Password, quoteList(p.Publish), quoteList(p.PublishDeny), quoteList(p.Subscribe))
	}
	b.WriteString("  ]\n}\n")
	return b.String(), nil
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
