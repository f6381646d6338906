package trainer

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/rundir"
)

// Summary describes a run as it stands: its best network (the file and
// generation) and its last evaluation, if it has one (nil otherwise).
type Summary struct {
	Best           string
	BestGeneration int
	LastEvaluation *metrics.Metric
}

// Summarize reads run's best pointer, the checkpoint's header and the
// metrics, so a command can say where a run ended.
func Summarize(run string) (Summary, error) {
	dir := rundir.Dir(run)
	best, err := dir.Pointer(rundir.Best)
	if err != nil {
		return Summary{}, err
	}
	id, err := checkpoints.Identify(best)
	if err != nil {
		return Summary{}, fmt.Errorf("trainer: best network: %w", err)
	}
	s := Summary{Best: best, BestGeneration: id.Generation}
	f, _, err := inputfile.Open(dir.Metrics(), "metrics file", 0) // read line by line: any size
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("trainer: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m metrics.Metric
		// A line cut short by a kill is skipped, as the plots do.
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Kind == "evaluation" {
			s.LastEvaluation = &m
		}
	}
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("trainer: %s: %w", dir.Metrics(), err)
	}
	return s, nil
}

// Text is the summary for people: the best network, then the last
// evaluation's results, each match on its own line.
func (s Summary) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "best network: %s (generation %d)\n", s.Best, s.BestGeneration)
	if m := s.LastEvaluation; m != nil {
		at := time.Duration(m.TrainClock * float64(time.Second)).Round(time.Second)
		fmt.Fprintf(&b, "last evaluation, of generation %d at %s of training:%s\n", m.Best, at, evaluationText(*m))
	}
	return b.String()
}
