package trainer

import (
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/train"
)

// trainConfig maps the config's training section to the net trainer's.
func trainConfig(t configs.Training) train.Config {
	s := net.Schedule{Kind: t.Schedule, LR: t.LearningRate}
	switch t.Schedule {
	case "piecewise":
		if len(t.Boundaries) == 0 {
			s.Kind = net.ScheduleConstant
		}
		s.Boundaries, s.Values = t.Boundaries, t.Rates
	case "cosine":
		s.Warmup, s.Total, s.MinLR = t.WarmupSteps, t.TotalSteps, t.MinLearningRate
	}
	return train.Config{Schedule: s, Momentum: t.Momentum, WeightDecay: t.WeightDecay}
}
