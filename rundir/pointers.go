package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/metrics"
)

// The pointer files RUN/best and RUN/latest hold a checkpoint's file name
// in RUN/checkpoints, its generation and checksum.
const (
	Best   = "best"
	Latest = "latest"
)

var (
	// ErrNoCheckpoint is returned when a run has no checkpoint (a new run).
	ErrNoCheckpoint = errors.New("rundir: no checkpoint")
	// ErrDamagedPointer is returned by Pointer when a pointer's recorded
	// generation or checksum does not match the checkpoint it names.
	ErrDamagedPointer = errors.New("rundir: damaged pointer")
)

// SetPointer atomically points the run's best or latest file at a
// checkpoint name, which must exist. The pointer records the checkpoint's
// generation and the SHA-256 its file ends with, so that a damaged pointer
// (a flipped byte naming another checkpoint) is detected rather than
// followed.
func (d Dir) SetPointer(pointer, name string) error {
	if pointer != Best && pointer != Latest {
		return fmt.Errorf("rundir: unknown pointer %q", pointer)
	}
	if name != filepath.Base(name) || !strings.HasSuffix(name, checkpoints.Ext) {
		return fmt.Errorf("rundir: bad checkpoint name %q", name)
	}
	id, err := checkpoints.Identify(d.Checkpoint(name))
	if err != nil {
		return fmt.Errorf("rundir: %s: %w", pointer, err)
	}
	text := fmt.Sprintf("%s\ngeneration %d\nsha256 %x\n", name, id.Generation, id.Sum)
	return atomicfile.WriteBytes(d.Path(pointer), []byte(text), 0o644)
}

// Pointer returns the path of the checkpoint the run's best or latest file
// names, or ErrNoCheckpoint when the pointer does not exist. A pointer
// holding only a name (written by hand, or before pointers recorded their
// checkpoint) is taken as it is; one that records a generation and
// checksum must match the file it names (else ErrDamagedPointer).
func (d Dir) Pointer(pointer string) (string, error) {
	p, err := d.readPointer(pointer)
	if err != nil {
		return "", err
	}
	path := d.Checkpoint(p.name)
	id, err := checkpoints.Identify(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("rundir: %s points at a missing checkpoint %q", d.Path(pointer), p.name)
	}
	if err != nil {
		return "", fmt.Errorf("rundir: %s points at an unreadable checkpoint: %w", d.Path(pointer), err)
	}
	if p.recorded && !p.matches(id) {
		return "", fmt.Errorf("%w: %s names %q (generation %d, sha256 %.12x...) but records generation %d, sha256 %.12x...; "+
			"write the checkpoint's name into the file to choose one", ErrDamagedPointer, d.Path(pointer), p.name, id.Generation, id.Sum, p.Generation, p.Sum)
	}
	return path, nil
}

// RepairPointer rewrites a damaged pointer to the checkpoint whose
// checksum it records, when exactly one checkpoint of that generation has
// it (the damage hit the name), and returns that checkpoint's name.
func (d Dir) RepairPointer(pointer string) (string, error) {
	p, err := d.readPointer(pointer)
	if err != nil {
		return "", err
	}
	if !p.recorded {
		return "", fmt.Errorf("rundir: %s records no checksum to repair it by", d.Path(pointer))
	}
	names, err := d.List()
	if err != nil {
		return "", err
	}
	var found []string
	for _, n := range names {
		if id, err := checkpoints.Identify(d.Checkpoint(n)); err == nil && p.matches(id) {
			found = append(found, n)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("rundir: %s: %d checkpoints have the recorded generation %d and checksum; write the checkpoint's name into the file to choose one",
			d.Path(pointer), len(found), p.Generation)
	}
	return found[0], d.SetPointer(pointer, found[0])
}

// maxPointerBytes bounds a pointer file: a name, a generation and a
// checksum.
const maxPointerBytes = 4096

// firstCheckpoint is the name of a new run's generation 0 (Create). A run
// killed while it was created has it and no latest pointer, and is
// created anew: nothing trained is lost.
var firstCheckpoint = checkpoints.Name(0, 0)

// Unpointed is what to do about a missing pointer (Pointer returned
// ErrNoCheckpoint): nil when the run has no checkpoint past its
// generation 0 (a new run, or one killed while it was created), else an
// error saying the run would be started over its own checkpoints, with
// the repair: the newest checkpoint that loads for g, to be written into
// the pointer. A run is never started anew over what it trained.
func (d Dir) Unpointed(pointer string, g game.Game) error {
	names, err := d.List()
	if err != nil {
		return err
	}
	if len(names) == 0 || len(names) == 1 && names[0] == firstCheckpoint {
		return nil
	}
	newest, verr := d.NewestVerified(g)
	var repair string
	switch {
	case newest == "":
		repair = fmt.Sprintf("none of its %d checkpoints loads (the newest: %v); move %s away to start the run anew", len(names), verr, d.Checkpoints())
	case pointer == Latest:
		repair = fmt.Sprintf("to resume from the newest checkpoint that loads, write %s into %s", newest, d.Path(Latest))
		if _, err := os.Lstat(d.Path(Best)); errors.Is(err, fs.ErrNotExist) {
			repair += fmt.Sprintf(", and the best network's checkpoint into %s (%s)", d.Path(Best), d.bestHint(newest))
		}
	default:
		repair = fmt.Sprintf("write the best network's checkpoint into %s (%s)", d.Path(Best), d.bestHint(newest))
	}
	return fmt.Errorf("%w: %s has %d checkpoints up to %s but no %s pointer (deleted?), and a new run would overwrite them: %s",
		ErrNoPointer, d, len(names), names[len(names)-1], pointer, repair)
}

// ErrNoPointer is Unpointed's error: a run with checkpoints whose pointer
// is missing.
var ErrNoPointer = errors.New("rundir: missing pointer")

// bestHint says which checkpoint was the best: the last promoted one by
// the run's metrics, when it loads, else the newest that loads.
func (d Dir) bestHint(newest string) string {
	promoted := ""
	metrics.Read(d.Metrics(), func(m metrics.Metric) {
		if m.Kind == "generation" && m.Promoted && m.Checkpoint != "" {
			promoted = m.Checkpoint
		}
	})
	if promoted != "" && promoted == filepath.Base(promoted) {
		if _, err := checkpoints.Identify(d.Checkpoint(promoted)); err == nil {
			return fmt.Sprintf("the last promoted by %s: %s", d.Metrics(), promoted)
		}
	}
	return fmt.Sprintf("%s names none that is there; the newest that loads is %s", d.Metrics(), newest)
}

// NewestVerified returns the name of the run's newest checkpoint that
// loads (its checksum verified) as a network of g, or "" and the newest
// one's error when none does.
func (d Dir) NewestVerified(g game.Game) (string, error) {
	names, err := d.List()
	if err != nil {
		return "", err
	}
	var first error
	for i := len(names) - 1; i >= 0; i-- {
		_, _, err := LoadNetwork(d.Checkpoint(names[i]), g)
		if err == nil {
			return names[i], nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = ErrNoCheckpoint
	}
	return "", first
}

// pointerFile is a parsed pointer: the checkpoint name and, when recorded,
// the generation and checksum it had when the pointer was written.
type pointerFile struct {
	name string
	checkpoints.ID
	recorded bool
}

// matches reports whether a checkpoint is the one the pointer recorded.
func (p pointerFile) matches(id checkpoints.ID) bool {
	return id.Generation == p.Generation && id.Sum == p.Sum
}

// readPointer parses one of the run's pointer files.
func (d Dir) readPointer(pointer string) (pointerFile, error) {
	b, err := inputfile.ReadFile(d.Path(pointer), "pointer", maxPointerBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return pointerFile{}, fmt.Errorf("%w: %s has no %s pointer", ErrNoCheckpoint, d, pointer)
	}
	if err != nil {
		return pointerFile{}, fmt.Errorf("rundir: %w", err)
	}
	bad := func(what string) (pointerFile, error) {
		return pointerFile{}, fmt.Errorf("%w: %s %s: %.80q", ErrDamagedPointer, d.Path(pointer), what, b)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\r\n"), "\n")
	p := pointerFile{name: strings.TrimSpace(lines[0])}
	if p.name == "" || p.name != filepath.Base(p.name) || !strings.HasSuffix(p.name, checkpoints.Ext) || strings.ContainsFunc(p.name, isControl) {
		return bad("holds a bad checkpoint name")
	}
	switch len(lines) {
	case 1:
		return p, nil
	case 3:
		var sum []byte
		_, gerr := fmt.Sscanf(lines[1], "generation %d", &p.Generation)
		hexSum, ok := strings.CutPrefix(lines[2], "sha256 ")
		if ok {
			sum, err = hex.DecodeString(hexSum)
		}
		if gerr != nil || !ok || err != nil || len(sum) != sha256.Size || lines[1] != fmt.Sprintf("generation %d", p.Generation) {
			return bad("is not a pointer (name, generation, sha256)")
		}
		copy(p.Sum[:], sum)
		p.recorded = true
		return p, nil
	}
	return bad("is not a pointer (name, generation, sha256)")
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError }
