package player

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tabula-zero/tabula/alphabeta"
)

// specForms are each kind's required part and what it plays; every other
// key the kind takes (Keys) is optional.
var specForms = []struct {
	kind, required, what string
	requiredKeys         []string
}{
	{KindAB, "ab:depth=N|movetime=MS|nodes=N", "alpha-beta", []string{KnobDepth, KnobMoveTime, KnobNodes}},
	{KindNet, "net:FILE", "a network with MCTS (FILE: a checkpoint, a run directory or a game's name: its shipped model)", []string{"file"}},
	{KindABZero, "abzero:net=FILE,m=W,depth=N", "the Alpha-Beta-Zero blend", []string{KnobNetwork, KnobM, KnobDepth}},
}

// Placeholder is what a knob's value is written as in a usage text: its
// values (a|b), FILE, MS, N for an integer, X for a number.
func (k Knob) Placeholder() string {
	switch {
	case k.Values != nil:
		return strings.Join(k.Values, "|")
	case k.Key == KnobNetwork || k.Key == KnobEvalFile:
		return "FILE"
	case k.Key == KnobMoveTime:
		return "MS"
	case k.Int:
		return "N"
	}
	return "X"
}

// keyKnob is the knob behind a spec key (an alpha-beta feature's is
// FEATURE's, net's file= the network's).
func keyKnob(key string) Knob {
	if key == "file" {
		return Lookup(KnobNetwork)
	}
	if slices.Contains(alphabeta.FeatureNames(), key) {
		return Lookup(KnobFeatures)
	}
	return Lookup(key)
}

// SpecForms are the usage lines of the ab:, net: and abzero: specs, each
// with its required keys and the names of every optional one (their
// values: KeyUsage), from the knobs' rows: a form and the line that says
// what it plays.
func SpecForms() [][2]string {
	var out [][2]string
	for _, f := range specForms {
		var opt []string
		features := false
		for _, key := range Keys(f.kind) {
			k := keyKnob(key)
			switch {
			case slices.Contains(f.requiredKeys, key):
			case k.Key == KnobFeatures:
				if !features {
					opt = append(opt, "FEATURE")
				}
				features = true
			default:
				opt = append(opt, key)
			}
		}
		form := f.required
		if len(opt) > 0 {
			form += "[," + strings.Join(opt, ",") + "]"
		}
		out = append(out, [2]string{form, f.what})
	}
	return out
}

// KeyUsage lists the spec keys, one a line: the key and its value, the
// kinds that take it, its help, and its default and range from its knob.
func KeyUsage(indent string) string {
	var b strings.Builder
	for _, k := range Knobs {
		if k.Key == "" || len(k.Kinds) == 0 {
			continue
		}
		key := k.Key
		if k.Key == KnobFeatures {
			key = "FEATURE"
		}
		var notes []string
		if k.Default != "" {
			notes = append(notes, "default "+k.Default)
		}
		if k.Int && k.Min < k.Max && k.Max < 1e15 {
			notes = append(notes, fmt.Sprintf("%d..%d", int(k.Min), int(k.Max)))
		}
		help := k.Help
		if len(notes) > 0 {
			help += " (" + strings.Join(notes, "; ") + ")"
		}
		fmt.Fprintf(&b, "%s%s  (%s)\n%s    %s\n", indent, key+"="+k.Placeholder(), strings.Join(k.Kinds, ", "), indent, help)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
