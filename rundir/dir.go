// Package rundir owns a training run's directory: where each file lives,
// the checkpoints with their best and latest pointers, the frozen config,
// the lock, and turning "a checkpoint file or a run directory" into a
// network. Every package and command that touches a run goes through it.
//
//	RUN/config.yaml          the frozen config (sealed with its checksum)
//	RUN/config-changes.log   configs replaced with -accept-config-change
//	RUN/checkpoints/*.ckpt   checkpoints; RUN/best and RUN/latest point at them
//	RUN/replay/              self-play shards
//	RUN/arena/               gate and match records
//	RUN/metrics.jsonl        the trainer's metrics; RUN/selfplay-W.jsonl a worker's
//	RUN/plots/               PNG plots
//	RUN/lock                 held by the trainer
//	RUN/init                 the network a run started from (tabula train -init), if not fresh
package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tabula-zero/tabula/checkpoints"
)

// Dir is the path of a run directory.
type Dir string

// Path joins names below the run directory.
func (d Dir) Path(names ...string) string {
	return filepath.Join(append([]string{string(d)}, names...)...)
}

// The files and folders of a run.
func (d Dir) Config() string        { return d.Path("config.yaml") }
func (d Dir) ConfigChanges() string { return d.Path("config-changes.log") }
func (d Dir) Checkpoints() string   { return d.Path("checkpoints") }
func (d Dir) Replay() string        { return d.Path("replay") }
func (d Dir) Arena() string         { return d.Path("arena") }
func (d Dir) Metrics() string       { return d.Path("metrics.jsonl") }
func (d Dir) Plots() string         { return d.Path("plots") }

// Games is the log of sampled self-play games (the games people could
// watch live), one selfplay.LiveGame a line.
func (d Dir) Games() string { return d.Path("selfplay-games.jsonl") }

// Init records the network the run started from (RecordInit): "sha256
// HEX" and "from NAME" lines. A run started fresh has none.
func (d Dir) Init() string { return d.Path("init") }

func (d Dir) lockFile() string { return d.Path("lock") }

// WorkerMetrics is the metrics file of a self-play worker.
func (d Dir) WorkerMetrics(worker string) string { return d.Path("selfplay-" + worker + ".jsonl") }

// Checkpoint is the path of a checkpoint file name.
func (d Dir) Checkpoint(name string) string { return d.Path("checkpoints", name) }

// Save writes c under its name (checkpoints.Name) and points latest at
// it. It returns the file name.
func (d Dir) Save(c *checkpoints.Checkpoint) (string, error) {
	return d.saveAndPoint(c, Latest)
}

// Create writes the first checkpoint of a new run and points best and
// then latest at it. latest comes last: a run with a latest pointer is
// complete, and one killed before it is created anew.
func (d Dir) Create(c *checkpoints.Checkpoint) (string, error) {
	return d.saveAndPoint(c, Best, Latest)
}

// saveAndPoint saves c under its name and sets the pointers in order.
func (d Dir) saveAndPoint(c *checkpoints.Checkpoint, pointers ...string) (string, error) {
	if err := os.MkdirAll(d.Checkpoints(), 0o755); err != nil {
		return "", fmt.Errorf("rundir: %w", err)
	}
	name := checkpoints.Name(c.Generation, c.Step)
	if err := checkpoints.Save(d.Checkpoint(name), c); err != nil {
		return "", err
	}
	for _, p := range pointers {
		if err := d.SetPointer(p, name); err != nil {
			return "", err
		}
	}
	return name, nil
}

// List returns the checkpoint file names of the run in training order.
func (d Dir) List() ([]string, error) {
	es, err := os.ReadDir(d.Checkpoints())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	var names []string
	for _, e := range es {
		if !e.IsDir() && strings.HasSuffix(e.Name(), checkpoints.Ext) && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}
