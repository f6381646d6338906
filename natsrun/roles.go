package natsrun

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/tabula-zero/tabula/internal/inputfile"
)

// A run on a server has two roles. The trainer may do everything. A
// worker account may publish shards on its own subject and read the run's
// config and networks, nothing else: no puts or deletes in the key-value
// bucket or the object store, no stream administration, no consumers at
// all (it reads the best entry and a network's chunks message by message
// with direct gets, so it needs none, and a consumer is server state that
// one account could pile up without bound), no acknowledgements, no
// subscriptions beyond its own inbox. Each worker account has a name,
// which is on the subject of every shard it publishes: the trainer knows
// who sent a shard, takes it only under that name, and can refuse a named
// worker.

// Account is a worker's (or the trainer's) user name and password.
type Account struct {
	User, Password string
}

// anyWorker is the subject token of a worker without an account (a server
// without worker accounts, open to whoever reaches it).
const anyWorker = "any"

var accountName = regexp.MustCompile(`^[A-Za-z0-9]{1,32}$`)

// CheckAccount reports whether name can name a worker account: it is a
// subject token and the prefix of its workers' shard names.
func CheckAccount(name string) error {
	if !accountName.MatchString(name) || name == anyWorker {
		return fmt.Errorf("natsrun: worker account %q must be 1-32 letters or digits (and not %q)", name, anyWorker)
	}
	return nil
}

// maxAccountsFile bounds a file of worker accounts or credentials.
const maxAccountsFile = 1 << 20

// ReadWorkers reads a file of worker accounts: one user:password a line
// ('#' starts a comment). Removing a line revokes that worker.
func ReadWorkers(path string) ([]Account, error) {
	b, err := inputfile.ReadFile(path, "worker accounts file", maxAccountsFile)
	if err != nil {
		return nil, fmt.Errorf("natsrun: worker accounts: %w", err)
	}
	var out []Account
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		user, pass, ok := strings.Cut(line, ":")
		if !ok || pass == "" {
			return nil, fmt.Errorf("natsrun: %s:%d: want user:password", path, n)
		}
		if err := CheckAccount(user); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if seen[user] {
			return nil, fmt.Errorf("natsrun: %s:%d: worker account %q twice", path, n, user)
		}
		seen[user] = true
		out = append(out, Account{User: user, Password: pass})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("natsrun: %s: %w", path, err)
	}
	return out, nil
}

// InboxPrefix is the inbox of a worker account: replies to its requests
// come there, and it may subscribe nowhere else (the default _INBOX.>
// would let one worker read every client's replies).
func InboxPrefix(account string) string { return "_INBOX_" + account }

// Permissions are the subjects an account may publish to and subscribe
// to, and those it may never publish to whatever the others allow: plain
// lists, which the server side (natsrun/natsserver) turns into its own
// form, so that a worker links no server.
type Permissions struct {
	Publish, Subscribe []string
	PublishDeny        []string
}

// WorkerPermissions are what a worker account may do on run's streams
// and buckets: publish its shards, read the stream info and messages of
// the key-value bucket and the network store (direct gets), and nothing
// of the consumer API: not a durable consumer, not an ephemeral one, not
// a push consumer with a deliver subject of its choosing. The deny list
// says so explicitly, so that a wider allow list added later cannot give
// it back.
func WorkerPermissions(run, account string) Permissions {
	api := "$JS.API."
	kv, obj := "KV_"+bucketName(run), "OBJ_"+netsName(run)
	var pub []string
	pub = append(pub, shardSubject(run)+"."+account)
	for _, s := range []string{kv, obj} {
		pub = append(pub,
			api+"STREAM.INFO."+s,
			api+"STREAM.MSG.GET."+s,
			api+"DIRECT.GET."+s, api+"DIRECT.GET."+s+".>",
		)
	}
	return Permissions{Publish: pub, Subscribe: []string{InboxPrefix(account) + ".>"}, PublishDeny: []string{api + "CONSUMER.>"}}
}

// WorkerOption is the connection option of a worker with an account: its
// own inbox.
func WorkerOption(account string) nats.Option {
	return nats.CustomInboxPrefix(InboxPrefix(account))
}

// Roster is whom the trainer takes shards from: the worker accounts (all
// accounts when it has none, as on a server without worker accounts)
// less the refused ones. Safe for concurrent use.
type Roster struct {
	mu       sync.Mutex
	accounts map[string]bool // nil: any
	refused  map[string]bool
}

// NewRoster returns a roster of the accounts (nil: any) less refused.
func NewRoster(accounts []Account, refused []string) *Roster {
	r := &Roster{}
	r.SetAccounts(accounts)
	r.refused = map[string]bool{}
	for _, n := range refused {
		r.refused[n] = true
	}
	return r
}

// SetAccounts replaces the accounts (a file of them read again).
func (r *Roster) SetAccounts(accounts []Account) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if accounts == nil {
		r.accounts = nil
		return
	}
	r.accounts = map[string]bool{}
	for _, a := range accounts {
		r.accounts[a.User] = true
	}
}

// Check reports whether a shard from the account from is taken.
func (r *Roster) Check(from string) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.refused[from]:
		return fmt.Errorf("worker %q is refused", from)
	case r.accounts != nil && !r.accounts[from]:
		return fmt.Errorf("worker %q has no account (revoked?)", from)
	}
	return nil
}
