package natsrun

import "github.com/tabula-zero/tabula/data"

// SetInspect replaces how Ingest checks a shard (set it before Ingest
// starts) and returns a function that puts the real one back.
func SetInspect(f func([]byte) (data.Header, data.Summary, error)) (restore func()) {
	old := inspect
	inspect = f
	return func() { inspect = old }
}
