package configs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// retiredKey is a config key whose switch was measured and lost, or was
// built and never used, and was then removed (docs/retired.md). Every
// run frozen before the removal carries some of them (frozen copies
// spell out every key), so a key at its off value, which asked for
// nothing, is dropped and named in Config.Retired: the run resumes as it
// was. Any other value asked for code that is gone and is an error.
type retiredKey struct {
	// path is the dotted key; "[]" after a list's key stands for each
	// of its items.
	path string
	// off reports whether a value asked for nothing.
	off func(*yaml.Node) bool
}

var retiredKeys = []retiredKey{
	{"search.forced_playouts", isZero},
	{"search.discount", isNumber(0, 1)}, // 1 discounted nothing
	{"network.reply_head", isFalse},
	{"training.reply_weight", isZero},
	{"replay.window_grow_from", isZero},
	{"selfplay.abzero.options", isString("", "classic")},
	{"selfplay.abzero.played_weight", isZero},
	{"selfplay.abzero.expert_temperature", isZero},
	{"gating.every", isNumber(0, 1)},
	{"gating.matches[].candidate", isString("", "net")},
	{"evaluation.matches[].candidate", isString("", "net")},
	{"gating.matches[].sprt", isNull},
	{"evaluation.matches[].sprt", isNull}, // read there and never used
	{"selfplay.resign_threshold", isZero},
	// The share of games played out to count false resignations did
	// nothing without a threshold: every share asked for nothing.
	{"selfplay.resign_off_share", isIn(0, 1)},
	{"selfplay.discount_floor", isZero},
}

// isZero: the number 0.
func isZero(n *yaml.Node) bool { return isNumber(0)(n) }

// isNull: no value.
func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// isFalse: the boolean false.
func isFalse(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!bool" && n.Value == "false"
}

// isString: one of the strings vs.
func isString(vs ...string) func(*yaml.Node) bool {
	return func(n *yaml.Node) bool {
		return n.Kind == yaml.ScalarNode && n.Tag == "!!str" && slices.Contains(vs, n.Value)
	}
}

// isIn: a number in [lo, hi].
func isIn(lo, hi float64) func(*yaml.Node) bool {
	return func(n *yaml.Node) bool {
		f, err := strconv.ParseFloat(n.Value, 64)
		return n.Kind == yaml.ScalarNode && err == nil && f >= lo && f <= hi
	}
}

// isNumber: one of the numbers vs.
func isNumber(vs ...float64) func(*yaml.Node) bool {
	return func(n *yaml.Node) bool {
		f, err := strconv.ParseFloat(n.Value, 64)
		return n.Kind == yaml.ScalarNode && err == nil && slices.Contains(vs, f)
	}
}

// dropRetired removes the retired keys from the document in b. It
// returns the names of those it dropped with the text without them, or b
// itself when it has none; a retired key at another value than its off
// value is an error.
func dropRetired(b []byte) ([]string, []byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, b, nil // the strict decoding that follows says what is wrong
	}
	var dropped, errs []string
	for _, k := range retiredKeys {
		for _, f := range find(doc.Content[0], strings.Split(k.path, "."), "") {
			if k.off(f.value) {
				dropped = append(dropped, f.name)
				f.remove()
				continue
			}
			v, _ := yaml.Marshal(f.value)
			errs = append(errs, fmt.Sprintf("%s = %s: this switch was retired (docs/retired.md names the commit that removed it); remove the key",
				f.name, strings.TrimSpace(string(v))))
		}
	}
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	if len(dropped) == 0 {
		return nil, b, nil
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, nil, err
	}
	return dropped, out, nil
}

// found is one occurrence of a retired key.
type found struct {
	name   string // with list indexes: gating.matches[0].candidate
	value  *yaml.Node
	remove func()
}

// find returns the occurrences of path below mapping n (named prefix).
func find(n *yaml.Node, path []string, prefix string) []found {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	key, each := strings.CutSuffix(path[0], "[]")
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != key {
			continue
		}
		name, child := prefix+key, n.Content[i+1]
		switch {
		case len(path) == 1:
			return []found{{name: name, value: child, remove: func() {
				for j := 0; j+1 < len(n.Content); j += 2 {
					if n.Content[j].Value == key {
						n.Content = append(n.Content[:j], n.Content[j+2:]...)
						return
					}
				}
			}}}
		case each:
			if child.Kind != yaml.SequenceNode {
				return nil
			}
			var out []found
			for j, item := range child.Content {
				out = append(out, find(item, path[1:], fmt.Sprintf("%s[%d].", name, j))...)
			}
			return out
		default:
			return find(child, path[1:], name+".")
		}
	}
	return nil
}
