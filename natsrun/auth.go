package natsrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tabula-zero/tabula/internal/inputfile"
)

// Credentials are what a credentials file holds: "user:password" or a
// token, on its first line.
type Credentials struct {
	User, Password, Token string
}

// ReadCredentials reads a credentials file ("" gives none).
func ReadCredentials(path string) (Credentials, error) {
	if path == "" {
		return Credentials{}, nil
	}
	b, err := inputfile.ReadFile(path, "credentials file", maxAccountsFile)
	if err != nil {
		return Credentials{}, fmt.Errorf("natsrun: credentials: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSpace(line)
	if line == "" {
		return Credentials{}, fmt.Errorf("natsrun: credentials file %s is empty (want user:password or a token)", path)
	}
	if user, pass, ok := strings.Cut(line, ":"); ok {
		if user == "" || pass == "" {
			return Credentials{}, fmt.Errorf("natsrun: credentials file %s: user:password with an empty part", path)
		}
		return Credentials{User: user, Password: pass}, nil
	}
	return Credentials{Token: line}, nil
}

// Connect connects to a NATS server as a long-lived client of a run: it
// reconnects by itself for as long as the process lives. caFile, if set,
// is the PEM certificate authority to trust for TLS; extra options follow
// (nats.InProcessServer for the embedded server's own client).
func Connect(url, name string, c Credentials, caFile string, extra ...nats.Option) (*nats.Conn, error) {
	opts := append([]nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second)}, extra...)
	switch {
	case c.Token != "":
		opts = append(opts, nats.Token(c.Token))
	case c.User != "":
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	}
	if caFile != "" {
		opts = append(opts, nats.RootCAs(caFile))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("natsrun: connect to %s: %w", url, err)
	}
	return nc, nil
}

// The waits between a worker's attempts to reach its server: the first,
// doubled after each failure up to the last. Tests shorten them.
var (
	retryFirst = time.Second
	retryMax   = 30 * time.Second
)

// ConnectRetry is Connect for a worker, which may start while its server
// is down (or before the trainer that embeds it): while no server can be
// reached it tries again, waiting retryFirst, then twice as long each
// time up to retryMax, and says so in log, until ctx ends. A server that
// answers and refuses (a wrong password, a TLS failure) is an error at
// once: trying again would not change it.
func ConnectRetry(ctx context.Context, log *slog.Logger, url, name string, c Credentials, caFile string, extra ...nats.Option) (*nats.Conn, error) {
	wait := retryFirst
	for attempt := 1; ; attempt++ {
		nc, err := Connect(url, name, c, caFile, extra...)
		if err == nil {
			if attempt > 1 {
				log.Info("connected to the NATS server", "url", url, "attempts", attempt)
			}
			return nc, nil
		}
		if !errors.Is(err, nats.ErrNoServers) {
			return nil, err
		}
		log.Warn("the NATS server cannot be reached; trying again", "url", url, "attempt", attempt, "wait", wait, "err", err)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("natsrun: connect to %s: %w (after %d attempts: %v)", url, ctx.Err(), attempt, err)
		case <-time.After(wait):
		}
		wait = min(2*wait, retryMax)
	}
}
