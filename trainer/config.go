package trainer

import (
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/net"
)

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
		s.Warmup, s.Total, s.MinLR = t.WarmupSteps, t.TotalSteps, t.MinLearningRate
	}
	return net.TrainConfig{Schedule: s, Momentum: t.Momentum, WeightDecay: t.WeightDecay}
}
