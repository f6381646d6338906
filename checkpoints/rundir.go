package checkpoints

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tabula-zero/tabula/internal/atomicfile"
)

// Run directory layout: RUN/checkpoints/<name>.ckpt, and the pointer
// files RUN/best and RUN/latest holding a checkpoint's file name, its
// generation and checksum.
const (
	Subdir     = "checkpoints"
	Ext        = ".ckpt"
	BestFile   = "best"
	LatestFile = "latest"
)

// ErrNoCheckpoint is returned when a run has no checkpoint (a new run).
var ErrNoCheckpoint = errors.New("checkpoints: no checkpoint")

// Name is the file name of the checkpoint of a generation and step;
// names sort in training order.
func Name(generation int, step int64) string {
	return fmt.Sprintf("g%06d-s%09d%s", generation, step, Ext)
}

// SaveRun writes c into run's checkpoint directory and points latest at
// it. It returns the file name.
func SaveRun(run string, c *Checkpoint) (string, error) {
	return saveAndPoint(run, c, LatestFile)
}

// CreateRun writes the first checkpoint of a new run and points best and
// then latest at it. latest comes last: a run with a latest pointer is
// complete, and one killed before it is created anew.
func CreateRun(run string, c *Checkpoint) (string, error) {
	return saveAndPoint(run, c, BestFile, LatestFile)
}

// saveAndPoint saves c under its name and sets the pointers in order.
func saveAndPoint(run string, c *Checkpoint, pointers ...string) (string, error) {
	dir := filepath.Join(run, Subdir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("checkpoints: %w", err)
	}
	name := Name(c.Generation, c.Step)
	if err := Save(filepath.Join(dir, name), c); err != nil {
		return "", err
	}
	for _, p := range pointers {
		if err := SetPointer(run, p, name); err != nil {
			return "", err
		}
	}
	return name, nil
}

// List returns the checkpoint file names of run in training order.
func List(run string) ([]string, error) {
	es, err := os.ReadDir(filepath.Join(run, Subdir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	var names []string
	for _, e := range es {
		if !e.IsDir() && strings.HasSuffix(e.Name(), Ext) && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// SetPointer atomically points run's best or latest file at a checkpoint
// name, which must exist. The pointer records the checkpoint's generation
// and the SHA-256 its file ends with, so that a damaged pointer (a flipped
// byte naming another checkpoint) is detected rather than followed.
func SetPointer(run, pointer, name string) error {
	if pointer != BestFile && pointer != LatestFile {
		return fmt.Errorf("checkpoints: unknown pointer %q", pointer)
	}
	if name != filepath.Base(name) || !strings.HasSuffix(name, Ext) {
		return fmt.Errorf("checkpoints: bad checkpoint name %q", name)
	}
	id, err := identify(filepath.Join(run, Subdir, name))
	if err != nil {
		return fmt.Errorf("checkpoints: %s: %w", pointer, err)
	}
	text := fmt.Sprintf("%s\ngeneration %d\nsha256 %x\n", name, id.generation, id.sum)
	return atomicfile.WriteBytes(filepath.Join(run, pointer), []byte(text), 0o644)
}

// ErrDamagedPointer is returned by Pointer when a pointer's recorded
// generation or checksum does not match the checkpoint it names.
var ErrDamagedPointer = errors.New("checkpoints: damaged pointer")

// Pointer returns the path of the checkpoint run's best or latest file
// names, or ErrNoCheckpoint when the pointer does not exist. A pointer
// holding only a name (written by hand, or before pointers recorded their
// checkpoint) is taken as it is; one that records a generation and
// checksum must match the file it names (else ErrDamagedPointer).
func Pointer(run, pointer string) (string, error) {
	p, err := readPointer(run, pointer)
	if err != nil {
		return "", err
	}
	path := filepath.Join(run, Subdir, p.name)
	id, err := identify(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("checkpoints: %s/%s points at a missing checkpoint %q", run, pointer, p.name)
	}
	if err != nil {
		return "", fmt.Errorf("checkpoints: %s/%s points at an unreadable checkpoint: %w", run, pointer, err)
	}
	if p.recorded && id != p.fileID {
		return "", fmt.Errorf("%w: %s/%s names %q (generation %d, sha256 %.12x...) but records generation %d, sha256 %.12x...; "+
			"write the checkpoint's name into the file to choose one", ErrDamagedPointer, run, pointer, p.name, id.generation, id.sum, p.generation, p.sum)
	}
	return path, nil
}

// RepairPointer rewrites a damaged pointer to the checkpoint whose
// checksum it records, when exactly one checkpoint of that generation has
// it (the damage hit the name), and returns that checkpoint's name.
func RepairPointer(run, pointer string) (string, error) {
	p, err := readPointer(run, pointer)
	if err != nil {
		return "", err
	}
	if !p.recorded {
		return "", fmt.Errorf("checkpoints: %s/%s records no checksum to repair it by", run, pointer)
	}
	names, err := List(run)
	if err != nil {
		return "", err
	}
	var found []string
	for _, n := range names {
		if id, err := identify(filepath.Join(run, Subdir, n)); err == nil && id == p.fileID {
			found = append(found, n)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("checkpoints: %s/%s: %d checkpoints have the recorded generation %d and checksum; write the checkpoint's name into the file to choose one",
			run, pointer, len(found), p.generation)
	}
	return found[0], SetPointer(run, pointer, found[0])
}

// fileID identifies a checkpoint file: its generation and the SHA-256 of
// its contents that ends it.
type fileID struct {
	generation int
	sum        [sha256.Size]byte
}

// identify reads a checkpoint's generation from its header and the
// checksum from its end; Load verifies the whole file.
func identify(path string) (fileID, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileID{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fileID{}, err
	}
	var pre [16]byte
	if _, err := io.ReadFull(f, pre[:]); err != nil || !bytes.Equal(pre[:8], magic[:]) {
		return fileID{}, fmt.Errorf("%s is not a tabula checkpoint", path)
	}
	hl := int64(binary.LittleEndian.Uint32(pre[12:]))
	if 16+hl+sha256.Size > st.Size() {
		return fileID{}, fmt.Errorf("%s: truncated checkpoint", path)
	}
	hj := make([]byte, hl)
	if _, err := io.ReadFull(f, hj); err != nil {
		return fileID{}, fmt.Errorf("%s: %w", path, err)
	}
	var h header
	if err := json.Unmarshal(hj, &h); err != nil {
		return fileID{}, fmt.Errorf("%s: bad header: %w", path, err)
	}
	id := fileID{generation: h.Generation}
	if _, err := f.ReadAt(id.sum[:], st.Size()-sha256.Size); err != nil {
		return fileID{}, fmt.Errorf("%s: %w", path, err)
	}
	return id, nil
}

// pointerFile is a parsed pointer: the checkpoint name and, when recorded,
// the generation and checksum it had when the pointer was written.
type pointerFile struct {
	name string
	fileID
	recorded bool
}

// readPointer parses run's pointer file.
func readPointer(run, pointer string) (pointerFile, error) {
	b, err := os.ReadFile(filepath.Join(run, pointer))
	if errors.Is(err, fs.ErrNotExist) {
		return pointerFile{}, fmt.Errorf("%w: %s has no %s pointer", ErrNoCheckpoint, run, pointer)
	}
	if err != nil {
		return pointerFile{}, fmt.Errorf("checkpoints: %w", err)
	}
	bad := func(what string) (pointerFile, error) {
		return pointerFile{}, fmt.Errorf("%w: %s/%s %s: %.80q", ErrDamagedPointer, run, pointer, what, b)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\r\n"), "\n")
	p := pointerFile{name: strings.TrimSpace(lines[0])}
	if p.name == "" || p.name != filepath.Base(p.name) || !strings.HasSuffix(p.name, Ext) || strings.ContainsFunc(p.name, isControl) {
		return bad("holds a bad checkpoint name")
	}
	switch len(lines) {
	case 1:
		return p, nil
	case 3:
		var sum []byte
		_, gerr := fmt.Sscanf(lines[1], "generation %d", &p.generation)
		hexSum, ok := strings.CutPrefix(lines[2], "sha256 ")
		if ok {
			sum, err = hex.DecodeString(hexSum)
		}
		if gerr != nil || !ok || err != nil || len(sum) != sha256.Size || lines[1] != fmt.Sprintf("generation %d", p.generation) {
			return bad("is not a pointer (name, generation, sha256)")
		}
		copy(p.sum[:], sum)
		p.recorded = true
		return p, nil
	}
	return bad("is not a pointer (name, generation, sha256)")
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError }
