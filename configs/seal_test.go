package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run's frozen copy must carry its seal: without the checksum line, or
// with the line's tag altered, an edited value would otherwise read as
// the run's config. A hand-written config needs none, but a first line
// that is a damaged checksum line is refused there too.
func TestFrozenNeedsItsSeal(t *testing.T) {
	c := mustPreset(t, "lion")
	sealed := string(c.MarshalSealed())
	seal, body, _ := strings.Cut(sealed, "\n")
	if _, err := ParseFrozen([]byte(sealed), "config.yaml"); err != nil {
		t.Fatalf("a sealed copy: %v", err)
	}
	changed := strings.Replace(body, "seed: 1\n", "seed: 2\n", 1)
	if changed == body {
		t.Fatal("the test's edit changed nothing")
	}
	for _, d := range []struct {
		name, text string
		want       error
		lenient    bool // Parse, for a file given with -config, accepts it
	}{
		{"no checksum line", body, ErrNotSealed, true},
		{"no checksum line, a value changed", changed, ErrNotSealed, true},
		{"tag misspelt, a value changed", strings.Replace(seal, "sha256:", "sha265:", 1) + "\n" + changed, ErrSealBroken, false},
		{"tag removed, a value changed", strings.Replace(seal, "sha256:", "", 1) + "\n" + changed, ErrSealBroken, false},
		{"prefix altered, a value changed", strings.Replace(seal, "# tabula frozen", "# tabula Frozen", 1) + "\n" + changed, ErrSealBroken, false},
		{"line moved below the text", body + seal + "\n", ErrNotSealed, true},
		{"a blank line before it", "\n" + sealed, ErrNotSealed, true},
	} {
		_, err := ParseFrozen([]byte(d.text), "config.yaml")
		if !errors.Is(err, d.want) || !strings.Contains(err.Error(), "config.yaml") {
			t.Errorf("%s: ParseFrozen: %v; want %v", d.name, err, d.want)
		}
		if _, err := Parse([]byte(d.text), "c.yaml"); (err == nil) != d.lenient {
			t.Errorf("%s: Parse: %v", d.name, err)
		}
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFrozen(path); !errors.Is(err, ErrNotSealed) {
		t.Errorf("LoadFrozen of an unsealed file: %v", err)
	}
	if _, err := Load(path); err != nil {
		t.Errorf("Load of a hand-written file: %v", err)
	}
}

// A config is read only from a regular file of at most MaxBytes: a link
// to /dev/zero is refused before a byte is read, not read without end.
func TestConfigFileKinds(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, append([]byte("game: connect4\n"), make([]byte, MaxBytes)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "a config is at most") {
		t.Errorf("a config past MaxBytes: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	link := filepath.Join(dir, "config.yaml")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Skip(err)
	}
	for name, load := range map[string]func(string) (*Config, error){"Load": Load, "LoadFrozen": LoadFrozen} {
		if _, err := load(link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s of a link to /dev/zero: %v", name, err)
		}
	}
}
