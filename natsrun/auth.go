package natsrun

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
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
	b, err := os.ReadFile(path)
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
