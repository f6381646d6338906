package trainer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/net"
)

// frozenConfig settles the run's configuration: a new run freezes cfg as
// RUN/config.yaml; a resumed run keeps its frozen copy, and a different
// cfg is an error unless accept is set, in which case the change is
// recorded in RUN/config-changes.log and the new config frozen.
func frozenConfig(run string, cfg *configs.Config, accept bool) (*configs.Config, error) {
	path := filepath.Join(run, "config.yaml")
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if cfg == nil {
			return nil, fmt.Errorf("trainer: %s has no config.yaml and no config was given", run)
		}
		return cfg, atomicfile.WriteBytes(path, cfg.MarshalSealed(), 0o644)
	}
	if err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	frozen, err := configs.Parse(old, path)
	if err != nil {
		return nil, err
	}
	if cfg == nil || bytes.Equal(frozen.Marshal(), cfg.Marshal()) {
		return frozen, nil
	}
	if !accept {
		return nil, fmt.Errorf("trainer: the config differs from the run's frozen %s; pass -accept-config-change to continue with the new one", path)
	}
	if frozen.Game != cfg.Game {
		return nil, fmt.Errorf("trainer: the run plays %s, the new config %s: start a new run", frozen.Game, cfg.Game)
	}
	f, err := os.OpenFile(filepath.Join(run, "config-changes.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	fmt.Fprintf(f, "=== %s: config changed; previous config:\n%s", time.Now().UTC().Format(time.RFC3339), old)
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	return cfg, atomicfile.WriteBytes(path, cfg.MarshalSealed(), 0o644)
}

// trainConfig maps the config's training section to the net trainer's.
func trainConfig(c *configs.Config) net.TrainConfig {
	t := c.Training
	s := net.Schedule{Kind: t.Schedule, LR: t.LearningRate}
	switch t.Schedule {
	case "piecewise":
		if len(t.Boundaries) == 0 {
			s.Kind = net.ScheduleConstant
		}
		s.Boundaries, s.Values = t.Boundaries, t.Rates
	case "cosine":
		s.Warmup, s.Total = t.WarmupSteps, t.TotalSteps
	}
	return net.TrainConfig{Schedule: s, Momentum: t.Momentum, WeightDecay: t.WeightDecay}
}
