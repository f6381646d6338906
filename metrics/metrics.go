// Package metrics is the schema of a run's metrics, RUN/metrics.jsonl:
// one JSON line per training stretch, generation, evaluation or stop.
// The trainer writes it; the charts, the dashboard and the remote
// workers' tally read or fill it, without importing the trainer.
package metrics

import (
	"bufio"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tabula-zero/tabula/internal/inputfile"
)

// Metric is one line of RUN/metrics.jsonl.
type Metric struct {
	Kind          string    `json:"kind"` // "train", "generation", "evaluation" or "stop"
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
	TrainCPU        float64       `json:"train_cpu_s,omitempty"`
	Checkpoint      string        `json:"checkpoint,omitempty"`
	Promoted        bool          `json:"promoted,omitempty"`
	Best            int           `json:"best,omitempty"`
	Matches         []MatchResult `json:"matches,omitempty"`
	SelfPlayGames   int64         `json:"selfplay_games,omitempty"`
	SelfPlaySamples int64         `json:"selfplay_samples,omitempty"`
	// Self-play totals for game length and outcome rates (generation
	// lines, in-process self-play).
	SelfPlayPlies int64 `json:"selfplay_plies,omitempty"`
	SelfPlayDraws int64 `json:"selfplay_draws,omitempty"`
	SelfPlayEvals int64 `json:"selfplay_evals,omitempty"` // network evaluations (positions)
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
	// Evaluation lines: Pons measures and the evaluation's own wall time.
	Pons        []PonsResult `json:"pons,omitempty"`
	EvalSeconds float64      `json:"eval_s,omitempty"`
	// The Lion oracle's measures (evaluation lines): the moves, one per
	// simulation count, and the value head.
	LionOracle []OracleResult `json:"lion_oracle,omitempty"`
	LionValue  *OracleValue   `json:"lion_value,omitempty"`
	// The Xiangqi set's measures (evaluation lines): the moves, one per
	// simulation count, and the value head.
	XiangqiSet   []SetResult `json:"xiangqi_set,omitempty"`
	XiangqiValue *SetValue   `json:"xiangqi_value,omitempty"`
}

// SetResult is one measure of the Xiangqi set (arena/xqset) in an
// evaluation: the best network's moves on the first Positions with
// Simulations (0: the raw policy), judged by Fairy-Stockfish's lines.
type SetResult struct {
	Simulations int     `json:"simulations"`
	Positions   int     `json:"positions"`
	Best        int     `json:"best"`
	Good        int     `json:"good"`
	Blunders    int     `json:"blunders"`
	BestRate    float64 `json:"best_rate"`
	GoodRate    float64 `json:"good_rate"`
	BlunderRate float64 `json:"blunder_rate"`
}

// SetValue is the best network's value head on the same positions: the
// share of those the engine calls decided where its sign is the engine's.
type SetValue struct {
	Decided   int     `json:"decided"`
	AgreeRate float64 `json:"agree_rate"`
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

// PonsResult is one Pons measure of an evaluation: the best network's
// optimal-move rate on the first Positions of Set with Simulations
// (0: the raw policy).
type PonsResult struct {
	Set         string  `json:"set"`
	Simulations int     `json:"simulations"`
	Positions   int     `json:"positions"`
	Optimal     int     `json:"optimal"`
	OptimalRate float64 `json:"optimal_rate"`
	OutcomeRate float64 `json:"outcome_rate"`
}

// OracleResult is one Lion oracle measure of an evaluation: the best
// network's moves on the first Positions of the Lion test set with
// Simulations (0: the raw policy), judged by the exact values.
type OracleResult struct {
	Simulations int     `json:"simulations"`
	Positions   int     `json:"positions"`
	Optimal     int     `json:"optimal"`
	OutcomeKept int     `json:"outcome_kept"`
	OptimalRate float64 `json:"optimal_rate"`
	OutcomeRate float64 `json:"outcome_rate"`
	// The optimal and outcome-kept rates by the exact outcome (win, draw,
	// loss) and by phase (opening, middle, late).
	OptimalBy map[string]float64 `json:"optimal_by,omitempty"`
	OutcomeBy map[string]float64 `json:"outcome_by,omitempty"`
}

// OracleValue is the best network's value head on the same positions:
// the share whose value says the exact outcome (a win above 1/3, a loss
// below -1/3) and the mean |value - exact|.
type OracleValue struct {
	Positions int     `json:"positions"`
	AgreeRate float64 `json:"agree_rate"`
	MeanError float64 `json:"mean_error"`
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
