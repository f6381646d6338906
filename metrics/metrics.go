// Package metrics is the schema of a run's metrics, RUN/metrics.jsonl:
// one JSON line per training stretch, generation, evaluation, and each
// invocation's start and stop.
// The trainer writes it; the charts, the dashboard and the remote
// workers' tally read or fill it, without importing the trainer.
package metrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/internal/inputfile"
)

// Metric is one line of RUN/metrics.jsonl.
type Metric struct {
	Kind string `json:"kind"` // "train", "generation", "evaluation", "start" or "stop"
	// Time is when the line was written (an evaluation's: when it ended).
	Time          time.Time `json:"time"`
	Generation    int       `json:"generation"`
	Step          int64     `json:"step"`
	Loss          float64   `json:"loss,omitempty"`
	ValueLoss     float64   `json:"value_loss,omitempty"`
	PolicyLoss    float64   `json:"policy_loss,omitempty"`
	L2            float64   `json:"l2,omitempty"`
	GradNorm      float64   `json:"grad_norm,omitempty"`
	LR            float64   `json:"lr,omitempty"`
	SamplesPerSec float64   `json:"samples_per_s,omitempty"`
	Window        int       `json:"window"`
	// TrainClock is the run's training time so far in seconds (summed
	// over invocations, without evaluations): the learning benchmark's
	// time axis.
	TrainClock float64 `json:"train_clock_s,omitempty"`
	// TrainCPU is the process's CPU time over the same (user and
	// system, all threads): the CPU-hours a run's learning cost.
	TrainCPU float64 `json:"train_cpu_s,omitempty"`
	// Checkpoint is a generation line's new checkpoint, an evaluation
	// line's the network it measured (the file name in RUN/checkpoints).
	Checkpoint string        `json:"checkpoint,omitempty"`
	Promoted   bool          `json:"promoted,omitempty"`
	Best       int           `json:"best,omitempty"`
	Matches    []MatchResult `json:"matches,omitempty"`
	// The in-process self-play's totals since the run began (generation
	// and stop lines): games, samples and, for game length and outcome
	// rates, plies and draws. Lines of a build before "start" lines
	// counted each invocation from zero.
	SelfPlayGames   int64 `json:"selfplay_games,omitempty"`
	SelfPlaySamples int64 `json:"selfplay_samples,omitempty"`
	SelfPlayPlies   int64 `json:"selfplay_plies,omitempty"`
	SelfPlayDraws   int64 `json:"selfplay_draws,omitempty"`
	SelfPlayEvals   int64 `json:"selfplay_evals,omitempty"` // network evaluations (positions)
	// BatchWaitShare is the share of training time the steps waited for
	// their batch (train lines).
	BatchWaitShare float64 `json:"batch_wait_share,omitempty"`
	// Where a generation's wall time went: waiting for self-play samples,
	// training steps, gate matches.
	GatherSeconds float64 `json:"gather_s,omitempty"`
	TrainSeconds  float64 `json:"train_s,omitempty"`
	GateSeconds   float64 `json:"gate_s,omitempty"`
	// Workers are the remote self-play workers (generation lines).
	Workers []WorkerStat `json:"workers,omitempty"`
	// EvalSeconds is an evaluation line's own wall time.
	EvalSeconds float64 `json:"eval_s,omitempty"`
	// Measures are an evaluation line's position-set measures
	// (arena/measure), by key: each is a key of the line itself ("pons",
	// "lion_oracle", ...), which the measure that wrote it reads.
	Measures map[string]json.RawMessage `json:"-"`
}

// WorkerStat is what the trainer knows of a remote worker: the shards,
// samples and games it took in from it, and when the last came.
type WorkerStat struct {
	Name     string    `json:"name"`
	Shards   int       `json:"shards"`
	Samples  int       `json:"samples"`
	Games    int       `json:"games"`
	First    time.Time `json:"first"`
	LastSeen time.Time `json:"last_seen"`
	// IngestSeconds is the trainer's time spent taking in the worker's
	// shards (decode, check, write, acknowledgement).
	IngestSeconds float64 `json:"ingest_s"`
	// SamplesPerSec is the worker's rate by its shards' creation times;
	// 0 (unknown) until they span long enough to say (remote.Tally).
	SamplesPerSec float64 `json:"samples_per_s,omitempty"`
	// Rejected counts the shards refused from the worker's account (bad,
	// hostile, or from a revoked account): terminated, never taken in.
	Rejected int `json:"rejected,omitempty"`
}

// MatchResult is one gate match from the candidate's side. Elo is
// clamped to +-1000 so that a clean sweep stays a finite number.
type MatchResult struct {
	Opponent  string  `json:"opponent"`
	Candidate string  `json:"candidate,omitempty"`
	Games     int     `json:"games"`
	Wins      int     `json:"wins"`
	Draws     int     `json:"draws"`
	Losses    int     `json:"losses"`
	Score     float64 `json:"score"`
	Elo       float64 `json:"elo"`
	EloCI95   float64 `json:"elo_ci95"`
	LOS       float64 `json:"los"`
	Threshold float64 `json:"threshold,omitempty"`
	Passed    bool    `json:"passed"`
}

// Read calls f with each line of the metrics file at path, in order. A
// line that does not decode (cut off by a crash) is skipped, and a file
// that does not open reads as empty: metrics are a record, never a reason
// to stop. Only a regular file is read (inputfile): a FIFO would block
// the reader and a device never end.
func Read(path string, f func(Metric)) {
	_ = ReadErr(path, f)
}

// ReadErr is Read that says why a file was not read (or not to its end):
// a missing file (wrapping fs.ErrNotExist), one that is not a regular
// file, or a line longer than 16 MiB.
func ReadErr(path string, f func(Metric)) error {
	fl, _, err := inputfile.Open(path, "metrics file", 0) // read line by line: any size
	if err != nil {
		return err
	}
	defer fl.Close()
	sc := bufio.NewScanner(fl)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m Metric
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			f(m)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("metrics file %s: %w", path, err)
	}
	return nil
}

// plain is Metric without its methods, for its JSON.
type plain Metric

// fieldKeys are the JSON keys of Metric's fields: a line's other keys are
// its Measures.
var fieldKeys = func() map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeFor[Metric]()
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); k != "" && k != "-" {
			out[k] = true
		}
	}
	return out
}()

// MarshalJSON writes the fields, then the Measures as keys of the line
// in sorted order.
func (m Metric) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(plain(m))
	if err != nil || len(m.Measures) == 0 {
		return b, err
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	sep := len(b) > 2
	for _, k := range slices.Sorted(maps.Keys(m.Measures)) {
		if fieldKeys[k] {
			return nil, fmt.Errorf("metrics: measure key %q is a field's", k)
		}
		if sep {
			buf.WriteByte(',')
		}
		sep = true
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		if err := json.Compact(&buf, m.Measures[k]); err != nil {
			return nil, fmt.Errorf("metrics: measure %q: %w", k, err)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads the fields, and every other key into Measures.
func (m *Metric) UnmarshalJSON(b []byte) error {
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for k, v := range all {
		if !fieldKeys[k] {
			if p.Measures == nil {
				p.Measures = map[string]json.RawMessage{}
			}
			p.Measures[k] = v
		}
	}
	*m = Metric(p)
	return nil
}

// SetMeasures stores entries (values by key, as a measure returns them)
// in Measures.
func (m *Metric) SetMeasures(entries map[string]any) error {
	for k, v := range entries {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("metrics: measure %q: %w", k, err)
		}
		if m.Measures == nil {
			m.Measures = map[string]json.RawMessage{}
		}
		m.Measures[k] = b
	}
	return nil
}
