package configs

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// checkIntegers reports the integer fields whose value in the text is not
// an integer of the field's type. yaml.v3 decodes a float into an integer
// field by truncating it (simulations: 8.5 becomes 8) and a number past
// the largest uint64 through a float (seed: 2^64 becomes 2^63), both
// without an error, so the text is checked before it is decoded. Each
// error names the line and the key.
func checkIntegers(b []byte) []string {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil // the strict decoding that follows says what is wrong
	}
	w := integerWalk{budget: maxIntegerNodes}
	w.walk(doc.Content[0], reflect.TypeFor[Config](), "")
	return w.errs
}

// maxIntegerNodes bounds the nodes checkIntegers visits: aliases can make
// a small text a huge tree, which the decoder then refuses itself.
const maxIntegerNodes = 1 << 20

type integerWalk struct {
	errs   []string
	budget int
}

// walk checks node n, which decodes into a value of type t named name.
func (w *integerWalk) walk(n *yaml.Node, t reflect.Type, name string) {
	if w.budget--; w.budget < 0 {
		return
	}
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "<<" && k.ShortTag() == "!!merge" {
				// A merge key brings in the fields of the mappings it names.
				if v.Kind == yaml.SequenceNode {
					for _, m := range v.Content {
						w.walk(m, t, name)
					}
				} else {
					w.walk(v, t, name)
				}
				continue
			}
			if f, ok := fieldByTag(t, k.Value); ok {
				w.walk(v, f.Type, joinKey(name, k.Value))
			} else if m, ok := inlineMap(t); ok {
				w.walk(v, m.Type.Elem(), joinKey(name, k.Value))
			}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, item := range n.Content {
			w.walk(item, t.Elem(), fmt.Sprintf("%s[%d]", name, i))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if t == durationType || n.Kind != yaml.ScalarNode {
			return // durations are text ("5m"), which the decoder parses
		}
		if msg := integerProblem(n, t); msg != "" {
			w.errs = append(w.errs, fmt.Sprintf("line %d: %s = %s %s", n.Line, name, n.Value, msg))
		}
	}
}

func joinKey(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// integerProblem says what is wrong with scalar n as a value of the
// integer type t, or "" when nothing is (or when the decoder will say
// it: a string or a boolean for a number).
func integerProblem(n *yaml.Node, t reflect.Type) string {
	unsigned := t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64
	zero := reflect.New(t).Elem()
	rangeText := func() string {
		if unsigned {
			return fmt.Sprintf("is outside [0, %d]", uint64(math.MaxUint64)>>(64-t.Bits()))
		}
		return fmt.Sprintf("is outside [%d, %d]", int64(-1)<<(t.Bits()-1), int64(math.MaxInt64)>>(64-t.Bits()))
	}
	switch n.ShortTag() {
	case "!!int":
		var v any
		if err := n.Decode(&v); err != nil {
			return "is not an integer"
		}
		switch x := v.(type) {
		case int:
			if unsigned && x < 0 || !unsigned && zero.OverflowInt(int64(x)) || unsigned && zero.OverflowUint(uint64(x)) {
				return rangeText()
			}
		case int64:
			if unsigned && x < 0 || !unsigned && zero.OverflowInt(x) || unsigned && zero.OverflowUint(uint64(x)) {
				return rangeText()
			}
		case uint64:
			if unsigned && zero.OverflowUint(x) || !unsigned && x > math.MaxInt64 || !unsigned && zero.OverflowInt(int64(x)) {
				return rangeText()
			}
		default:
			return "is not an integer"
		}
		return ""
	case "!!float":
		// An integer too long for 64 bits reads as a float too.
		digits := strings.TrimLeft(strings.ReplaceAll(n.Value, "_", ""), "+-")
		if digits != "" && strings.Trim(digits, "0123456789") == "" {
			return rangeText()
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
			lo, hi := -math.Ldexp(1, t.Bits()-1), math.Ldexp(1, t.Bits()-1)
			if unsigned {
				lo, hi = 0, math.Ldexp(1, t.Bits())
			}
			if f < lo || f >= hi {
				return rangeText()
			}
			return "is not an integer (write it in digits alone, without a point or an exponent)"
		}
		return "is not an integer"
	}
	return ""
}
