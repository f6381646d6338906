// Package kvlist reads the comma-separated "key=value" lists of the
// command line and the config: game rule options (TryRule=immediate),
// player specs (ab:depth=3, net:RUN,sims=200, uci:ENGINE,Hash=16) and
// tabula tune's -fix terms (advisor,tempo=-2.5). One reader, so that every
// list trims, rejects and reports in the same way.
package kvlist

import (
	"fmt"
	"strings"
)

// Pair is one key=value part, both trimmed, the key's case kept.
type Pair struct{ Key, Value string }

// Parse splits text at commas into key=value pairs and positional parts
// (those without '='), in order. Blank text is an empty list. An empty
// part, an empty key, or a key given twice (in any case) is an error.
func Parse(text string) (pairs []Pair, positional []string, err error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil, nil
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, nil, fmt.Errorf("empty part in %q", text)
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			positional = append(positional, part)
			continue
		}
		k = strings.TrimSpace(k)
		if k == "" {
			return nil, nil, fmt.Errorf("%q has no key", part)
		}
		if lk := strings.ToLower(k); seen[lk] {
			return nil, nil, fmt.Errorf("key %s given twice", k)
		} else {
			seen[lk] = true
		}
		pairs = append(pairs, Pair{Key: k, Value: strings.TrimSpace(v)})
	}
	return pairs, positional, nil
}

// Pairs is Parse for lists of key=value parts only: a positional part is
// an error.
func Pairs(text string) ([]Pair, error) {
	pairs, pos, err := Parse(text)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, fmt.Errorf("%q is not key=value", pos[0])
	}
	return pairs, nil
}

// Map returns the pairs by key, lower-cased when fold is set.
func Map(pairs []Pair, fold bool) map[string]string {
	m := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k := p.Key
		if fold {
			k = strings.ToLower(k)
		}
		m[k] = p.Value
	}
	return m
}
