// Package natsrun carries a training run between a trainer and self-play
// workers on other machines through NATS JetStream: the frozen config
// and the best network (a key-value bucket and an object store) go out,
// replay shards come in (a work-queue stream with de-duplication by
// message id). The trainer embeds a server (StartServer) or uses an
// existing one; workers only connect. Everything received is data that
// is checked before use: configs are parsed strictly, networks are
// verified against their SHA-256, shards are decoded (CRC, game,
// encoder) before they are written, under names derived from their
// verified headers.
package natsrun

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
)

// ServerConfig configures an embedded NATS server with JetStream.
type ServerConfig struct {
	// Addr is host:port to listen on (port 0: any free port).
	Addr string
	// StoreDir holds JetStream's files (RUN/nats): streams survive a
	// restart of the trainer.
	StoreDir string
	// User and Password are the trainer's account, with every right; Run
	// and Workers the run served and its worker accounts, each allowed
	// WorkerPermissions only: workers never hold the trainer's
	// credentials. A server listening beyond loopback must have them;
	// without them the server is open to whoever reaches it.
	User, Password string
	Run            string
	Workers        []Account
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
	c    ServerConfig
}

// StartServer starts an embedded NATS server with JetStream and waits
// until it accepts connections.
func StartServer(c ServerConfig) (*Server, error) {
	host, portText, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return nil, fmt.Errorf("natsrun: listen address %q: %w", c.Addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("natsrun: listen address %q: bad port", c.Addr)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	if !loopback(host) && c.Password == "" {
		return nil, fmt.Errorf("natsrun: a server listening on %q (beyond loopback) needs the trainer's user and password and worker accounts", host)
	}
	if (c.User == "") != (c.Password == "") {
		return nil, errors.New("natsrun: a user needs a password and a password a user")
	}
	if (c.Password != "") != (len(c.Workers) > 0) {
		return nil, errors.New("natsrun: the trainer's credentials and worker accounts go together (workers must not hold the trainer's credentials)")
	}
	if len(c.Workers) > 0 {
		if err := CheckRun(c.Run); err != nil {
			return nil, err
		}
	}
	if c.StoreDir == "" {
		return nil, errors.New("natsrun: no JetStream store directory")
	}
	if err := os.MkdirAll(c.StoreDir, 0o755); err != nil {
		return nil, fmt.Errorf("natsrun: %w", err)
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
			return nil, fmt.Errorf("natsrun: TLS: %w", err)
		}
		opts.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		opts.TLS = true
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("natsrun: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, errors.New("natsrun: the embedded server did not start within 10s")
	}
	return &Server{Server: s, opts: opts, c: c}, nil
}

// users are the server's accounts: the trainer's with every right and
// each worker's with WorkerPermissions.
func users(c ServerConfig, workers []Account) ([]*server.User, error) {
	us := []*server.User{{Username: c.User, Password: c.Password}}
	for _, w := range workers {
		if err := CheckAccount(w.User); err != nil {
			return nil, err
		}
		if w.User == c.User {
			return nil, fmt.Errorf("natsrun: worker account %q is the trainer's", w.User)
		}
		us = append(us, &server.User{Username: w.User, Password: w.Password, Permissions: WorkerPermissions(c.Run, w.User)})
	}
	return us, nil
}

// SetWorkers replaces the server's worker accounts: a worker whose
// account is gone is disconnected and refused from then on.
func (s *Server) SetWorkers(workers []Account) error {
	if len(s.c.Workers) == 0 {
		return errors.New("natsrun: the server was started without worker accounts")
	}
	if len(workers) == 0 {
		return errors.New("natsrun: no worker accounts left (a server with credentials needs one)")
	}
	us, err := users(s.c, workers)
	if err != nil {
		return err
	}
	opts := s.opts.Clone()
	opts.Users = us
	if err := s.ReloadOptions(opts); err != nil {
		return fmt.Errorf("natsrun: worker accounts: %w", err)
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
