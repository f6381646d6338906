package configs

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Override applies settings "PATH=VALUE" to a config's YAML text. PATH is
// dotted keys, a list item as key[i] (training.rates[1],
// gating.matches[0].games); VALUE is YAML (5m, [0, 64], {opponent: random,
// games: 20}). A missing key is added, so optional sections can be set; a
// wrong key or value is caught when the result is parsed.
//
// The result spells out every key the text left out at the value Parse
// would have given it (its default, or zero in a sealed copy), so that a
// list the text does not name can be indexed (training.rates[1]) and the
// result reads as the text did apart from the settings.
func Override(b []byte, sets []string) ([]byte, error) {
	if len(sets) == 0 {
		return b, nil
	}
	// A sealed copy loses its seal: the result is a new config.
	if err := checkSeal(b); err != nil {
		return nil, fmt.Errorf("configs: %w", err)
	}
	base := Defaults()
	if bytes.HasPrefix(b, []byte(sealPrefix)) {
		_, b, _ = bytes.Cut(b, []byte("\n"))
		base = &Config{}
	}
	var doc, full yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("configs: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("configs: the config is not a mapping of sections")
	}
	if err := yaml.Unmarshal(base.Marshal(), &full); err != nil {
		panic("configs: the defaults do not read back: " + err.Error())
	}
	fillMissing(doc.Content[0], full.Content[0])
	for _, s := range sets {
		path, value, ok := strings.Cut(s, "=")
		if !ok || path == "" {
			return nil, fmt.Errorf("configs: setting %q: want PATH=VALUE (e.g. training.learning_rate=0.01)", s)
		}
		var v yaml.Node
		if err := yaml.Unmarshal([]byte(value), &v); err != nil || len(v.Content) != 1 {
			return nil, fmt.Errorf("configs: setting %s: value %q is not YAML", path, value)
		}
		if err := set(doc.Content[0], strings.Split(path, "."), v.Content[0]); err != nil {
			return nil, fmt.Errorf("configs: setting %s: %w", path, err)
		}
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, fmt.Errorf("configs: %w", err)
	}
	return out, nil
}

// fillMissing adds to mapping dst the keys of mapping src that it lacks,
// in the mappings both have too.
func fillMissing(dst, src *yaml.Node) {
	if dst.Kind != yaml.MappingNode || src.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		if d := lookupNode(dst, k.Value); d != nil {
			fillMissing(d, v)
			continue
		}
		dst.Content = append(dst.Content, k, v)
	}
}

// set puts value at the path below node n.
func set(n *yaml.Node, path []string, value *yaml.Node) error {
	key, index, err := splitIndex(path[0])
	if err != nil {
		return err
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%q is inside a value that is not a mapping", key)
	}
	var child *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			child = n.Content[i+1]
			break
		}
	}
	last := len(path) == 1
	if child == nil {
		if index >= 0 {
			return fmt.Errorf("no list %q to index", key)
		}
		child = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if last {
			child = value
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, child)
		if last {
			return nil
		}
		return set(child, path[1:], value)
	}
	if index >= 0 {
		if child.Kind != yaml.SequenceNode || index >= len(child.Content) {
			return fmt.Errorf("%s has no item %d", key, index)
		}
		if last {
			child.Content[index] = value
			return nil
		}
		return set(child.Content[index], path[1:], value)
	}
	if last {
		*child = *value
		return nil
	}
	if child.Kind == yaml.ScalarNode && child.Tag == "!!null" {
		*child = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	return set(child, path[1:], value)
}

// splitIndex reads "key" (index -1) or "key[i]".
func splitIndex(s string) (string, int, error) {
	key, rest, ok := strings.Cut(s, "[")
	if !ok {
		if key == "" {
			return "", 0, fmt.Errorf("empty key")
		}
		return key, -1, nil
	}
	i, err := strconv.Atoi(strings.TrimSuffix(rest, "]"))
	if key == "" || !strings.HasSuffix(rest, "]") || err != nil || i < 0 {
		return "", 0, fmt.Errorf("%q: want key or key[i]", s)
	}
	return key, i, nil
}
