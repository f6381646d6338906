// Package models holds the trained networks that ship with tabula, one
// per game, embedded in the binary so that a fresh clone (or an installed
// `tabula`) plays without training first. Each network is a playing
// checkpoint (`tabula export -o GAME.ckpt`: no optimizer state) with a
// model card beside it (GAME.md: how it was made and what it measures)
// and its SHA-256 in SHA256SUMS, which every load checks. A model is
// replaced only by one measured stronger on its card's anchors, and its
// card says so; docs/repro/models.sh rebuilds each from scratch.
//
// A network is named by its game wherever a checkpoint is taken
// (`net:connect4`, the engine's Network option, export's -checkpoint,
// the dashboard's Play page); package rundir resolves the names, a file
// or directory of the same name winning.
package models

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
)

//go:embed *.ckpt SHA256SUMS
var files embed.FS

// Dir is the models' folder in the repository, as names may spell it
// (models/connect4).
const Dir = "models"

// Model is one shipped network.
type Model struct {
	Game   string // the game it plays, which is also its name
	File   string // file name under models/
	SHA256 string // hex, from SHA256SUMS
}

// String is the model's path in the repository.
func (m Model) String() string { return path.Join(Dir, m.File) }

// All returns the shipped models in name order.
func All() []Model { return slices.Clone(all()) }

// all is the models SHA256SUMS lists, read once: every name a command
// resolves asks it.
var all = sync.OnceValue(func() []Model {
	sums, err := readSums()
	if err != nil {
		// The sums file is embedded with the models; a build without a
		// readable one is broken, and Check (and this package's test) says so.
		return nil
	}
	var out []Model
	for file, sum := range sums {
		out = append(out, Model{Game: strings.TrimSuffix(file, ".ckpt"), File: file, SHA256: sum})
	}
	slices.SortFunc(out, func(a, b Model) int { return strings.Compare(a.Game, b.Game) })
	return out
})

// Lookup returns the shipped model a name means: a game's name
// ("connect4"), or that under the folder's name ("models/connect4",
// with or without ".ckpt").
func Lookup(name string) (Model, bool) {
	n := strings.TrimSuffix(strings.TrimPrefix(path.Clean(name), Dir+"/"), ".ckpt")
	for _, m := range all() {
		if m.Game == n {
			return m, true
		}
	}
	return Model{}, false
}

// Bytes returns the model's checkpoint bytes after checking them against
// their SHA-256 in SHA256SUMS.
func (m Model) Bytes() ([]byte, error) {
	data, err := files.ReadFile(m.File)
	if err != nil {
		return nil, fmt.Errorf("models: %s: %w", m, err)
	}
	if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != m.SHA256 {
		return nil, fmt.Errorf("models: %s: sha256 %x, SHA256SUMS says %s", m, got, m.SHA256)
	}
	return data, nil
}

// readSums parses SHA256SUMS (sha256sum's format: "HEX  FILE" a line).
func readSums() (map[string]string, error) {
	data, err := files.ReadFile("SHA256SUMS")
	if err != nil {
		return nil, err
	}
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 || len(f[0]) != 2*sha256.Size || !strings.HasSuffix(f[1], ".ckpt") {
			return nil, fmt.Errorf("models: SHA256SUMS line %d: want \"HEX  NAME.ckpt\", have %q", n, sc.Text())
		}
		sums[strings.TrimPrefix(f[1], "*")] = f[0]
	}
	return sums, sc.Err()
}

// Check verifies SHA256SUMS: every line well formed, every listed file
// embedded with its sum, every embedded network listed.
func Check() error {
	sums, err := readSums()
	if err != nil {
		return err
	}
	ckpts, err := files.ReadDir(".")
	if err != nil {
		return err
	}
	for _, e := range ckpts {
		if strings.HasSuffix(e.Name(), ".ckpt") {
			if _, ok := sums[e.Name()]; !ok {
				return fmt.Errorf("models: %s is not in SHA256SUMS", e.Name())
			}
		}
	}
	for _, m := range All() {
		if _, err := m.Bytes(); err != nil {
			return err
		}
	}
	return nil
}
