package tablebase

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/inputfile"
)

// BuildHint says how to make the full table; tests and tools that need it
// print it when it is missing.
const BuildHint = "build it with: go run ./cmd/tabula liontb -out lion.tb (250 MB, minutes on two cores; then set TABULA_LION_TB=$PWD/lion.tb)"

// EnvFile names the environment variable tests read the table's path from.
const EnvFile = "TABULA_LION_TB"

// Result is the exact value of a position for the side to move (plies
// to the end with best play).
type Result = game.Exact

// Table answers exact values of Catch the Lion positions under the safe try
// rule. Opened from a file it reads entries on demand from a memory map.
// It is safe for concurrent use.
type Table struct {
	ix    *indexer
	data  []byte // one code per entry
	hdr   header
	unmap func() error
}

type header struct {
	mat     Material
	entries uint64
	sum     [32]byte
	counts  [256]uint64 // positions by code, see Stats
}

// File layout: a headerSize-byte header (magic, version, material, entry
// count, SHA-256 of the entries, the counts by code; little endian) and
// one byte per entry.
const (
	headerSize = 4096
	version    = 1
)

var magic = [8]byte{'L', 'I', 'O', 'N', 'T', 'B', 0, 0}

func (h *header) marshal() []byte {
	b := make([]byte, headerSize)
	copy(b, magic[:])
	binary.LittleEndian.PutUint32(b[8:], version)
	b[12], b[13], b[14] = byte(h.mat.Chicks), byte(h.mat.Giraffes), byte(h.mat.Elephants)
	binary.LittleEndian.PutUint64(b[16:], h.entries)
	copy(b[24:56], h.sum[:])
	for i, c := range h.counts {
		binary.LittleEndian.PutUint64(b[64+8*i:], c)
	}
	return b
}

func (h *header) unmarshal(b []byte) error {
	if len(b) < headerSize || !bytes.Equal(b[:8], magic[:]) {
		return errors.New("not a Catch the Lion tablebase")
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != version {
		return fmt.Errorf("format version %d, want %d", v, version)
	}
	h.mat = Material{int(b[12]), int(b[13]), int(b[14])}
	h.entries = binary.LittleEndian.Uint64(b[16:])
	copy(h.sum[:], b[24:56])
	for i := range h.counts {
		h.counts[i] = binary.LittleEndian.Uint64(b[64+8*i:])
	}
	return nil
}

// WriteFile writes the table to path atomically: to a temporary file in
// the same directory, synced, then renamed over path.
func (t *Table) WriteFile(path string) (err error) {
	if err := atomicfile.CheckTarget(path); err != nil {
		return fmt.Errorf("tablebase: %w", err)
	}
	t.hdr.sum = sha256.Sum256(t.data)
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("tablebase: write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(t.hdr.marshal()); err != nil {
		return fmt.Errorf("tablebase: write %s: %w", tmp.Name(), err)
	}
	if _, err = tmp.Write(t.data); err != nil {
		return fmt.Errorf("tablebase: write %s: %w", tmp.Name(), err)
	}
	if err = tmp.Chmod(0o644); err != nil { // CreateTemp makes it private
		return fmt.Errorf("tablebase: chmod %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("tablebase: sync %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("tablebase: close %s: %w", tmp.Name(), err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("tablebase: rename to %s: %w", path, err)
	}
	return nil
}

// maxFileBytes bounds a table file before its header is read: the full
// material's table is about 250 MB.
const maxFileBytes = 1 << 30

// Open maps the table file at path. Entries are read on demand; Verify
// checks the whole file against its checksum. Only a regular file is
// opened: a FIFO (opened without blocking) or a device such as
// /dev/stdin would hang or never end.
func Open(path string) (*Table, error) {
	f, _, err := inputfile.Open(path, "table file", maxFileBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("tablebase: %w (%s)", err, BuildHint)
		}
		return nil, fmt.Errorf("tablebase: %w", err)
	}
	defer f.Close()
	hb := make([]byte, headerSize)
	if _, err := io.ReadFull(f, hb); err != nil {
		return nil, fmt.Errorf("tablebase: read header of %s: %w", path, err)
	}
	var h header
	if err := h.unmarshal(hb); err != nil {
		return nil, fmt.Errorf("tablebase: %s: %w", path, err)
	}
	ix, err := newIndexer(h.mat)
	if err != nil {
		return nil, fmt.Errorf("tablebase: %s: %w", path, err)
	}
	if ix.size != h.entries {
		return nil, fmt.Errorf("tablebase: %s: %d entries, material %v has %d", path, h.entries, h.mat, ix.size)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("tablebase: %w", err)
	}
	if want := int64(headerSize) + int64(h.entries); st.Size() != want {
		return nil, fmt.Errorf("tablebase: %s is %d bytes, want %d (truncated?)", path, st.Size(), want)
	}
	data, unmap, err := mapFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("tablebase: map %s: %w", path, err)
	}
	return &Table{ix: ix, data: data[headerSize:], hdr: h, unmap: unmap}, nil
}

// Close releases the file mapping; the table must not be used after.
func (t *Table) Close() error {
	if t.unmap == nil {
		return nil
	}
	err := t.unmap()
	t.unmap, t.data = nil, nil
	return err
}

// Verify checks the entries against the checksum in the header.
func (t *Table) Verify() error {
	if sha256.Sum256(t.data) != t.hdr.sum {
		return errors.New("tablebase: checksum mismatch: the file is damaged, rebuild it")
	}
	return nil
}

// Material returns the material the table covers.
func (t *Table) Material() Material { return t.hdr.mat }

// Stats describes the whole game of a table's material, side to move
// fixed: Positions is every placement of the pieces (Tanaka's count,
// 1,567,925,964 for the full material), mirror images and positions the
// table decides without storing them included.
type Stats struct {
	Material                Material
	Entries                 uint64 // stored entries (bytes of the file's body)
	Positions               uint64
	Wins, Losses, Draws     uint64
	LongestWin, LongestLoss int
	// ByPlies[d] counts wins (d odd, and d = 0) and losses (d even) in d
	// plies; ByPlies[0] counts both (Wins0 says how many are wins).
	ByPlies []uint64
	Wins0   uint64
}

// Stats returns the counts recorded at build time.
func (t *Table) Stats() Stats {
	s := Stats{Material: t.hdr.mat, Entries: t.hdr.entries}
	for c, n := range t.hdr.counts {
		if n == 0 {
			continue
		}
		s.Positions += n
		r, d := decodeCode(uint8(c))
		for len(s.ByPlies) <= d {
			s.ByPlies = append(s.ByPlies, 0)
		}
		if r != game.Draw {
			s.ByPlies[d] += n
		}
		switch r {
		case game.Win:
			s.Wins += n
			s.LongestWin = max(s.LongestWin, d)
			if d == 0 {
				s.Wins0 += n
			}
		case game.Loss:
			s.Losses += n
			s.LongestLoss = max(s.LongestLoss, d)
		default:
			s.Draws += n
		}
	}
	return s
}

// ErrMaterial is returned for positions whose material the table does not
// cover.
var ErrMaterial = errors.New("tablebase: position's material is not the table's")

// Probe returns the exact value of p for its side to move. It does not
// look at p's history: repetitions and the ply cap are the game's, not the
// table's (see Build).
func (t *Table) Probe(p *lion.Position) (Result, error) {
	if p.Immediate() {
		return Result{}, errors.New("tablebase: the table is for TryRule=safe")
	}
	var n [nkinds]int
	for s := range nsq {
		if tp, _, ok := p.PieceAt(s); ok && tp != lionT {
			n[kindOf(tp)]++
		}
	}
	for k := range nkinds {
		n[k] += p.InHand(game.First, k) + p.InHand(game.Second, k)
		if n[k] != t.hdr.mat.count(k) {
			return Result{}, ErrMaterial
		}
	}
	q, ok := fromLion(p)
	if !ok {
		return Result{Outcome: game.Loss, Plies: 0}, nil // our lion has just been taken
	}
	if _, theirs := q.lions(); theirs < 0 {
		return Result{}, errors.New("tablebase: the side not to move has no lion")
	}
	r, d := decodeCode(t.code(&q))
	return Result{Outcome: r, Plies: d}, nil
}

// code returns the code of a normalised position with both lions.
func (t *Table) code(p *pos) uint8 {
	ours, theirs := p.lions()
	if c, ok := p.trivial(ours, theirs); ok {
		return c
	}
	return t.data[t.ix.index(p, ours, theirs)]
}

// MoveResult is a legal move with the value it leaves the mover: the
// result after the move, seen from the side that made it.
type MoveResult struct {
	Move   game.Move
	Result Result
}

// Optimal reports whether the move keeps the position's value exactly: the
// quickest win, the slowest loss, or a draw.
func (m MoveResult) Optimal(root Result) bool { return m.Result == root }

// Keeps reports whether the move keeps the position's outcome (a win still
// won, however slowly; a draw not lost; every move of a lost position).
func (m MoveResult) Keeps(root Result) bool { return m.Result.Outcome == root.Outcome }

// Moves appends to dst[:0] every legal move of p with its result, in
// p.GenerateMoves order, and returns p's value. It plays and takes back
// each move on p, which it leaves as it was.
func (t *Table) Moves(p *lion.Position, dst []MoveResult) ([]MoveResult, Result, error) {
	dst = dst[:0]
	root, err := t.Probe(p)
	if err != nil {
		return dst, root, err
	}
	var buf [maxChildren]game.Move
	for _, m := range p.GenerateMoves(buf[:0]) {
		p.Make(m)
		r, err := t.Probe(p)
		p.Unmake()
		if err != nil {
			return dst, root, err
		}
		dst = append(dst, MoveResult{m, r.Before()})
	}
	return dst, root, nil
}

// BestMoves appends to dst[:0] the optimal moves of p: those that keep its
// value with the fewest plies to a win, the most to a loss, or a draw. It
// plays and takes back each move on p, which it leaves as it was.
func (t *Table) BestMoves(p *lion.Position, dst []game.Move) ([]game.Move, Result, error) {
	dst = dst[:0]
	var buf [maxChildren]MoveResult
	moves, root, err := t.Moves(p, buf[:0])
	if err != nil {
		return dst, root, err
	}
	for _, m := range moves {
		if m.Optimal(root) {
			dst = append(dst, m.Move)
		}
	}
	return dst, root, nil
}
