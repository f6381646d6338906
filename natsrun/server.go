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
	// Credentials: a user and password, or a token. A server listening
	// beyond loopback must have one.
	User, Password, Token string
	// TLSCert and TLSKey are PEM files; with them clients must use TLS.
	TLSCert, TLSKey string
	// MaxPayload bounds a message (default 8 MiB: a shard is well below).
	MaxPayload int32
}

// DefaultMaxPayload is the message bound of an embedded server.
const DefaultMaxPayload = 8 << 20

// StartServer starts an embedded NATS server with JetStream and waits
// until it accepts connections.
func StartServer(c ServerConfig) (*server.Server, error) {
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
	if !loopback(host) && c.Password == "" && c.Token == "" {
		return nil, fmt.Errorf("natsrun: a server listening on %q (beyond loopback) needs credentials (a user and password, or a token)", host)
	}
	if (c.User == "") != (c.Password == "") {
		return nil, errors.New("natsrun: a user needs a password and a password a user")
	}
	if c.StoreDir == "" {
		return nil, errors.New("natsrun: no JetStream store directory")
	}
	if err := os.MkdirAll(c.StoreDir, 0o755); err != nil {
		return nil, fmt.Errorf("natsrun: %w", err)
	}
	opts := &server.Options{
		Host: host, Port: port, JetStream: true, StoreDir: c.StoreDir,
		Username: c.User, Password: c.Password, Authorization: c.Token,
		MaxPayload: c.MaxPayload, NoSigs: true, NoLog: true,
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
	return s, nil
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
func InProcess(s *server.Server) (string, []nats.Option) {
	return strings.Replace(s.ClientURL(), "tls://", "nats://", 1), []nats.Option{nats.InProcessServer(s)}
}
