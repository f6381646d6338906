// Package models holds the trained networks that ship with tabula,
// embedded in the binary so that a fresh clone (or an installed `tabula`)
// plays without training first. They are of two kinds, told apart by
// their files' suffix:
//
//   - GAME.ckpt, a conv net for every game that has one: a playing
//     checkpoint (`tabula export -o GAME.ckpt`: no optimizer state),
//     which MCTS and the blends search with. All and Lookup list and
//     name these.
//   - GAME.nnue, an evaluation network for alpha-beta (package nnue's
//     file format; Xiangqi's learned evaluation, docs/nnue.md). Eval
//     returns it.
//
// Each has a model card beside it (GAME.md or GAME-nnue.md: how it was
// made and what it measures) and its SHA-256 in SHA256SUMS, which every
// load checks. A model is replaced only by one measured stronger on its
// card's anchors, and its card says so; docs/repro/models.sh rebuilds
// each conv net from scratch, docs/repro/runs/nnue/README.md each round
// of the evaluation network.
//
// A conv net is named by its game wherever a checkpoint is taken
// (`net:connect4`, the engine's Network option, export's -checkpoint,
// the dashboard's Play page); package rundir resolves the names, a file
// or directory of the same name winning. The evaluation network is what
// Eval=learned (the engine's option, the arena's eval=learned, `tabula
// nnue gen -eval learned`) searches with when no file is given; this
// package imports nothing of the project, so package nnue decodes it
// (nnue.Shipped).
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

//go:embed *.ckpt *.nnue SHA256SUMS
var files embed.FS

// Dir is the models' folder in the repository, as names may spell it
// (models/connect4).
const Dir = "models"

// The suffixes of the two kinds of model, the only ones SHA256SUMS may
// list.
const (
	// CheckpointExt is a conv net's: a playing checkpoint.
	CheckpointExt = ".ckpt"
	// EvalExt is an evaluation network's (package nnue's file).
	EvalExt = ".nnue"
)

// Model is one shipped network.
type Model struct {
	Game   string // the game it plays, which is also its name
	File   string // file name under models/: GAME.ckpt or GAME.nnue
	SHA256 string // hex, from SHA256SUMS
}

// String is the model's path in the repository.
func (m Model) String() string { return path.Join(Dir, m.File) }

// All returns the shipped conv nets (the .ckpt models) in name order.
func All() []Model { return slices.Clone(listed()[CheckpointExt]) }

// Evals returns the shipped evaluation networks (the .nnue models) in
// name order.
func Evals() []Model { return slices.Clone(listed()[EvalExt]) }

// Eval returns the shipped evaluation network of the game gameName
// ("xiangqi"), if one ships; its Bytes are the network file, checked.
func Eval(gameName string) (Model, bool) {
	for _, m := range listed()[EvalExt] {
		if m.Game == gameName {
			return m, true
		}
	}
	return Model{}, false
}

// all is the conv nets SHA256SUMS lists.
func all() []Model { return listed()[CheckpointExt] }

// listed is the models SHA256SUMS lists by suffix, each kind in name
// order, read once: every name a command resolves asks it.
var listed = sync.OnceValue(func() map[string][]Model {
	sums, err := readSums()
	if err != nil {
		// The sums file is embedded with the models; a build without a
		// readable one is broken, and Check (and this package's test) says so.
		return nil
	}
	out := map[string][]Model{}
	for file, sum := range sums {
		ext := path.Ext(file)
		out[ext] = append(out[ext], Model{Game: strings.TrimSuffix(file, ext), File: file, SHA256: sum})
	}
	for _, ms := range out {
		slices.SortFunc(ms, func(a, b Model) int { return strings.Compare(a.Game, b.Game) })
	}
	return out
})

// Lookup returns the shipped conv net a name means: a game's name
// ("connect4"), or that under the folder's name ("models/connect4",
// with or without ".ckpt"). Evaluation networks are not names of
// checkpoints: Eval returns them.
func Lookup(name string) (Model, bool) {
	n := strings.TrimSuffix(strings.TrimPrefix(path.Clean(name), Dir+"/"), CheckpointExt)
	for _, m := range all() {
		if m.Game == n {
			return m, true
		}
	}
	return Model{}, false
}

// Bytes returns the model's file (a checkpoint, or an evaluation
// network) after checking it against its SHA-256 in SHA256SUMS.
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

// readSums parses the embedded SHA256SUMS.
func readSums() (map[string]string, error) {
	data, err := files.ReadFile("SHA256SUMS")
	if err != nil {
		return nil, err
	}
	return parseSums(data)
}

// parseSums parses SHA256SUMS (sha256sum's format: "HEX  FILE" a line,
// FILE a .ckpt or a .nnue): file name -> hex sum.
func parseSums(data []byte) (map[string]string, error) {
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		var file string
		if len(f) == 2 {
			file = strings.TrimPrefix(f[1], "*") // sha256sum's binary mode
		}
		if len(f) != 2 || len(f[0]) != 2*sha256.Size || !isModel(file) || path.Base(file) != file || !isHex(f[0]) {
			return nil, fmt.Errorf("models: SHA256SUMS line %d: want \"HEX  GAME%s\" or \"HEX  GAME%s\", have %q", n, CheckpointExt, EvalExt, sc.Text())
		}
		if _, dup := sums[file]; dup {
			return nil, fmt.Errorf("models: SHA256SUMS line %d: %s listed twice", n, file)
		}
		sums[file] = strings.ToLower(f[0])
	}
	return sums, sc.Err()
}

// isModel reports whether file has the suffix of a kind of model, with
// a name before it.
func isModel(file string) bool {
	for _, ext := range []string{CheckpointExt, EvalExt} {
		if name, ok := strings.CutSuffix(file, ext); ok && name != "" {
			return true
		}
	}
	return false
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

// Check verifies SHA256SUMS: every line well formed, every listed file
// (conv nets and evaluation networks) embedded with its sum, every
// embedded network listed.
func Check() error {
	sums, err := readSums()
	if err != nil {
		return err
	}
	entries, err := files.ReadDir(".")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if isModel(e.Name()) {
			if _, ok := sums[e.Name()]; !ok {
				return fmt.Errorf("models: %s is not in SHA256SUMS", e.Name())
			}
		}
	}
	for _, m := range append(All(), Evals()...) {
		if _, err := m.Bytes(); err != nil {
			return err
		}
	}
	return nil
}
