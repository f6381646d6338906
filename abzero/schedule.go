package abzero

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Schedule kinds.
const (
	Constant = "constant" // Low always
	Linear   = "linear"   // Low at generation From, rising linearly to High at To
	Step     = "step"     // Low before generation To, High from To on
)

// Schedule gives the network weight m for a training generation: low
// early (lean on alpha-beta while the network is weak), high late (the
// network decides, alpha-beta only vetoes blunders).
type Schedule struct {
	Kind string  `json:"kind" yaml:"kind"`
	Low  float64 `json:"low" yaml:"low"`
	High float64 `json:"high" yaml:"high"`
	// From and To bound the linear ramp; To is the step's generation.
	From int `json:"from" yaml:"from"`
	To   int `json:"to" yaml:"to"`
}

// At returns m at generation gen.
func (s Schedule) At(gen int) float64 {
	switch s.Kind {
	case Linear:
		switch {
		case gen <= s.From:
			return s.Low
		case gen >= s.To:
			return s.High
		}
		return s.Low + (s.High-s.Low)*float64(gen-s.From)/float64(s.To-s.From)
	case Step:
		if gen >= s.To {
			return s.High
		}
	}
	return s.Low
}

// Check reports a schedule that cannot be used.
func (s Schedule) Check() error {
	for _, v := range []float64{s.Low, s.High} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("abzero: schedule weight %v must be finite and >= 0", v)
		}
	}
	switch s.Kind {
	case Constant:
	case Linear:
		if s.From < 0 || s.To <= s.From {
			return fmt.Errorf("abzero: linear schedule needs 0 <= from < to, got from %d to %d", s.From, s.To)
		}
	case Step:
		if s.To < 0 {
			return fmt.Errorf("abzero: step schedule at generation %d", s.To)
		}
	default:
		return fmt.Errorf("abzero: unknown schedule kind %q (valid: %s, %s, %s)", s.Kind, Constant, Linear, Step)
	}
	return nil
}

// ParseSchedule reads "W" (constant), "linear:LOW,HIGH,FROM,TO" or
// "step:LOW,HIGH,AT".
func ParseSchedule(text string) (Schedule, error) {
	kind, args, found := strings.Cut(strings.TrimSpace(text), ":")
	if !found {
		v, err := strconv.ParseFloat(kind, 64)
		if err != nil {
			return Schedule{}, fmt.Errorf("abzero: schedule %q: want W, linear:LOW,HIGH,FROM,TO or step:LOW,HIGH,AT", text)
		}
		s := Schedule{Kind: Constant, Low: v, High: v}
		return s, s.Check()
	}
	parts := strings.Split(args, ",")
	want := map[string]int{Linear: 4, Step: 3}[kind]
	if want == 0 || len(parts) != want {
		return Schedule{}, fmt.Errorf("abzero: schedule %q: want linear:LOW,HIGH,FROM,TO or step:LOW,HIGH,AT", text)
	}
	var f [2]float64
	for i := range f {
		v, err := strconv.ParseFloat(strings.TrimSpace(parts[i]), 64)
		if err != nil {
			return Schedule{}, fmt.Errorf("abzero: schedule %q: %q is not a number", text, parts[i])
		}
		f[i] = v
	}
	var g []int
	for _, p := range parts[2:] {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return Schedule{}, fmt.Errorf("abzero: schedule %q: %q is not a generation number", text, p)
		}
		g = append(g, n)
	}
	s := Schedule{Kind: kind, Low: f[0], High: f[1]}
	if kind == Linear {
		s.From, s.To = g[0], g[1]
	} else {
		s.To = g[0]
	}
	return s, s.Check()
}
