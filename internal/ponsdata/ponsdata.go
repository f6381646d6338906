// Package ponsdata holds Pascal Pons' six Connect Four benchmark sets
// (1,000 positions each, with their exact scores for the side to move),
// embedded so that the tests that check against them run on a fresh clone.
// README.md says where the copies come from, their licence, format and
// how they were checked. `tabula arena -pons Test_L2_R1` names a set from
// any directory (arena/pons.OpenSet).
package ponsdata

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed Test_L*_R*
var sets embed.FS

// Names are the sets, from the end game (L3) to the opening (L1).
var Names = []string{"Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3"}

// Open opens a set by name.
func Open(name string) (fs.File, error) {
	f, err := sets.Open(name)
	if err != nil {
		return nil, fmt.Errorf("ponsdata: no set %q (known: %v)", name, Names)
	}
	return f, nil
}

// WriteTo copies a set into dir (for commands that take a file name) and
// returns the file's path.
func WriteTo(dir, name string) (string, error) {
	b, err := sets.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("ponsdata: no set %q (known: %v)", name, Names)
	}
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, b, 0o644)
}
