// Package data stores self-play samples in replay shards and serves
// training batches from a window over the newest of them.
//
// A shard file holds finished samples of one game, written at once and
// atomically:
//
//	magic    "TABSHRD\x00"  8 bytes
//	version  uint32         FormatVersion
//	hlen     uint32         length of the JSON header
//	header   JSON           game, encoder version, generation, worker, sequence, sample count
//	plen     uint64         length of the payload
//	crc      uint32         CRC-32C of the header and the payload
//	payload  zstd stream of records
//
// A record is compact: the position as the game's text (FEN for Xiangqi),
// the policy target as sparse (action, probability) pairs with 16-bit
// probabilities, the result z, the root value, the ply and the game id.
// Everything the encoder needs is in the position text, so planes are
// rebuilt at sampling time.
package data

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"regexp"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/tabula-zero/tabula/internal/atomicfile"
)

// FormatVersion is the shard format version.
const FormatVersion = 1

// Ext is the shard file extension.
const Ext = ".shard"

var magic = [8]byte{'T', 'A', 'B', 'S', 'H', 'R', 'D', 0}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// maxPayload bounds a shard's decompressed size, so a corrupt length
// cannot exhaust memory.
const maxPayload = 1 << 30

// PolicyEntry is one move's share of the policy target.
type PolicyEntry struct {
	Action int
	Prob   float32
}

// Sample is one training position.
type Sample struct {
	Position  string // the game's text of the position
	Policy    []PolicyEntry
	Result    float32 // z: the game's result from the side to move's view, -1, 0 or 1
	RootValue float32 // the search's value of the position
	Ply       int
	GameID    uint64
}

// Header describes a shard.
type Header struct {
	Game           string    `json:"game"`
	EncoderVersion int       `json:"encoder_version"`
	Generation     int       `json:"generation"`
	Worker         string    `json:"worker"`
	Seq            int       `json:"seq"`
	GameSeed       uint64    `json:"game_seed,omitempty"` // the PCG seed of the games, with Sample.GameID the stream
	Samples        int       `json:"samples"`
	Created        time.Time `json:"created"`
}

var workerName = regexp.MustCompile(`^[A-Za-z0-9_.]{1,64}$`)

// Name is the file name of a shard: generation, worker and sequence, so
// names sort by generation and identify their origin.
func (h Header) Name() string {
	return fmt.Sprintf("g%06d-%s-%06d%s", h.Generation, h.Worker, h.Seq, Ext)
}

var (
	encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))
	decoder, _ = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxPayload))
)

// CheckWorker reports whether name can name a worker in shard file names.
func CheckWorker(name string) error {
	if !workerName.MatchString(name) {
		return fmt.Errorf("worker name %q must be 1-64 letters, digits, '_' or '.'", name)
	}
	return nil
}

// Write stores samples as the shard described by h (its Samples field is
// set here) in dir, atomically, and returns the file's path.
func Write(dir string, h Header, samples []Sample) (string, error) {
	if err := CheckWorker(h.Worker); err != nil {
		return "", fmt.Errorf("data: %w", err)
	}
	h.Samples = len(samples)
	data, err := Encode(h, samples)
	if err != nil {
		return "", err
	}
	path := dir + string(os.PathSeparator) + h.Name()
	if err := atomicfile.WriteBytes(path, data, 0o644); err != nil {
		return "", fmt.Errorf("data: write shard: %w", err)
	}
	return path, nil
}

// Encode returns the shard file bytes.
func Encode(h Header, samples []Sample) ([]byte, error) {
	h.Samples = len(samples)
	var raw []byte
	for i := range samples {
		var err error
		if raw, err = appendRecord(raw, &samples[i]); err != nil {
			return nil, fmt.Errorf("data: sample %d: %w", i, err)
		}
	}
	payload := encoder.EncodeAll(raw, nil)
	hj, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	var b bytes.Buffer
	b.Write(magic[:])
	binary.Write(&b, binary.LittleEndian, uint32(FormatVersion))
	binary.Write(&b, binary.LittleEndian, uint32(len(hj)))
	b.Write(hj)
	binary.Write(&b, binary.LittleEndian, uint64(len(payload)))
	binary.Write(&b, binary.LittleEndian, crc32.Update(crc32.Checksum(hj, crcTable), crcTable, payload))
	b.Write(payload)
	return b.Bytes(), nil
}

func appendRecord(b []byte, s *Sample) ([]byte, error) {
	if len(s.Position) > 4096 { // empty is a position too (Connect Four's start)
		return nil, errors.New("position text too long")
	}
	if s.Result < -1 || s.Result > 1 || s.RootValue < -1 || s.RootValue > 1 || s.Ply < 0 {
		return nil, fmt.Errorf("result %v, root value %v or ply %d out of range", s.Result, s.RootValue, s.Ply)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Position)))
	b = append(b, s.Position...)
	b = binary.AppendUvarint(b, uint64(len(s.Policy)))
	for _, e := range s.Policy {
		if e.Action < 0 || e.Prob < 0 || e.Prob > 1 || math.IsNaN(float64(e.Prob)) {
			return nil, fmt.Errorf("bad policy entry %+v", e)
		}
		b = binary.AppendUvarint(b, uint64(e.Action))
		b = binary.LittleEndian.AppendUint16(b, uint16(math.Round(float64(e.Prob)*65535)))
	}
	b = append(b, byte(int8(math.Round(float64(s.Result)*127))))
	b = binary.LittleEndian.AppendUint16(b, uint16(int16(math.Round(float64(s.RootValue)*32767))))
	b = binary.AppendUvarint(b, uint64(s.Ply))
	b = binary.AppendUvarint(b, s.GameID)
	return b, nil
}

// ErrCorrupt marks shards that fail a check; errors.Is finds it.
var ErrCorrupt = errors.New("corrupt shard")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// Read loads a shard file. Any damage (truncation, flipped bytes, bad
// lengths) is an error wrapping ErrCorrupt and naming the file.
func Read(path string) (Header, []Sample, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Header{}, nil, fmt.Errorf("data: %w", err)
	}
	h, s, err := Decode(data)
	if err != nil {
		return Header{}, nil, fmt.Errorf("data: %s: %w", path, err)
	}
	return h, s, nil
}

// Decode parses shard file bytes.
func Decode(data []byte) (Header, []Sample, error) {
	var h Header
	if len(data) < 16 || !bytes.Equal(data[:8], magic[:]) {
		return h, nil, corrupt("bad magic or truncated header")
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != FormatVersion {
		return h, nil, fmt.Errorf("shard format version %d, this build reads %d", v, FormatVersion)
	}
	hl := int(binary.LittleEndian.Uint32(data[12:]))
	if hl > len(data)-16-12 {
		return h, nil, corrupt("truncated header")
	}
	hj := data[16 : 16+hl]
	rest := data[16+hl:]
	plen := binary.LittleEndian.Uint64(rest)
	sum := binary.LittleEndian.Uint32(rest[8:])
	payload := rest[12:]
	if uint64(len(payload)) != plen {
		return h, nil, corrupt("payload is %d bytes, header says %d (truncated?)", len(payload), plen)
	}
	if crc32.Update(crc32.Checksum(hj, crcTable), crcTable, payload) != sum {
		return h, nil, corrupt("checksum mismatch")
	}
	if err := json.Unmarshal(hj, &h); err != nil {
		return h, nil, corrupt("bad header: %v", err)
	}
	raw, err := decoder.DecodeAll(payload, nil)
	if err != nil {
		return h, nil, corrupt("zstd: %v", err)
	}
	if h.Samples < 0 || h.Samples > len(raw) {
		return h, nil, corrupt("sample count %d", h.Samples)
	}
	samples := make([]Sample, 0, h.Samples)
	r := reader{b: raw}
	for i := 0; i < h.Samples; i++ {
		s, err := r.record()
		if err != nil {
			return h, nil, corrupt("record %d: %v", i, err)
		}
		samples = append(samples, s)
	}
	if len(r.b) != 0 {
		return h, nil, corrupt("%d bytes after the last record", len(r.b))
	}
	return h, samples, nil
}

type reader struct{ b []byte }

var errShort = errors.New("record cut short")

func (r *reader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		return 0, errShort
	}
	r.b = r.b[n:]
	return v, nil
}

func (r *reader) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(r.b)) {
		return nil, errShort
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out, nil
}

func (r *reader) record() (Sample, error) {
	var s Sample
	n, err := r.uvarint()
	if err != nil {
		return s, err
	}
	text, err := r.bytes(n)
	if err != nil {
		return s, err
	}
	s.Position = string(text)
	if n, err = r.uvarint(); err != nil {
		return s, err
	}
	if n > uint64(len(r.b))/3 {
		return s, errShort
	}
	s.Policy = make([]PolicyEntry, n)
	for i := range s.Policy {
		a, err := r.uvarint()
		if err != nil {
			return s, err
		}
		q, err := r.bytes(2)
		if err != nil {
			return s, err
		}
		s.Policy[i] = PolicyEntry{Action: int(a), Prob: float32(binary.LittleEndian.Uint16(q)) / 65535}
	}
	tail, err := r.bytes(3)
	if err != nil {
		return s, err
	}
	s.Result = float32(int8(tail[0])) / 127
	s.RootValue = float32(int16(binary.LittleEndian.Uint16(tail[1:]))) / 32767
	ply, err := r.uvarint()
	if err != nil {
		return s, err
	}
	s.Ply = int(ply)
	if s.GameID, err = r.uvarint(); err != nil {
		return s, err
	}
	return s, nil
}
