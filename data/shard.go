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
//
// Shards come from outside the process (other workers, other machines),
// so reading one allocates nothing from a count it states: the sample
// count, the header and the file are held to hard limits (MaxSamples,
// MaxFile, MaxRecordBytes, MaxDecoded) first, then a first pass over the
// decompressed records checks and counts them without keeping them, and
// only a shard that passes is decoded into memory of exactly the size
// counted. A decompression bomb is refused after at most MaxRecordBytes of
// decompression (usually far less: at the first byte past the records its
// header states) and the decoder's 8 MiB window.
package data

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/inputfile"
)

// FormatVersion is the shard format version.
const FormatVersion = 1

// Ext is the shard file extension.
const Ext = ".shard"

var magic = [8]byte{'T', 'A', 'B', 'S', 'H', 'R', 'D', 0}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Limits of a shard, the same for writing and reading (Encode refuses what
// Decode would), so that what a shard can cost a reader is known before
// it is read.
const (
	// MaxSamples is the most samples a shard may hold: 131 times the
	// default selfplay.shard_samples (2,000, which no preset changes;
	// self-play writes a shard once that many are pending, so a shard
	// holds that many and at most the games that ended meanwhile), and
	// above the largest preset's replay window (200,000), which would keep
	// no more of a shard anyway.
	MaxSamples = 1 << 18
	// MaxRecordBytes bounds a shard's decompressed records: 128 MiB, about
	// 500 bytes for each of MaxSamples samples (a Xiangqi sample with the
	// policy over all its moves is about 250).
	MaxRecordBytes = 128 << 20
	// MaxDecoded bounds the memory a decoded shard takes (its samples,
	// their policy entries and position texts): 256 MiB, about 1 KB for
	// each of MaxSamples samples (a Xiangqi sample is about 800 bytes with
	// a full policy, a Connect Four one about 220).
	MaxDecoded = 256 << 20
	// MaxFile bounds a shard file (its compressed bytes); a shard sent to
	// a trainer over NATS is further bound by the server's message size
	// (8 MiB).
	MaxFile = 64 << 20
	// maxHeader bounds the JSON header.
	maxHeader = 64 << 10
	// maxPosition bounds a position's text.
	maxPosition = 4096
	// minRecord is the least a record takes: a position's length and
	// its policy's (one byte each), the result and root value (3), the
	// ply and the game id (one byte each).
	minRecord = 7
	// maxWindow bounds the zstd window a shard's frames may declare: the
	// encoder's is 8 MiB, and the decoder's history is about this size.
	maxWindow = 8 << 20
)

// decodedSize is what a decoded shard of samples samples, entries policy
// entries and text bytes of positions takes in memory.
func decodedSize(samples, entries, text int64) int64 {
	return samples*int64(unsafe.Sizeof(Sample{})) + entries*int64(unsafe.Sizeof(PolicyEntry{})) + text
}

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

var encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))

// decoders are streaming zstd decoders (one goroutine each, a bounded
// window): a shard's records are read as they are decompressed, never
// inflated whole.
var decoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(maxWindow), zstd.WithDecoderMaxMemory(MaxRecordBytes), zstd.WithDecodeBuffersBelow(0))
	if err != nil {
		panic(err) // constant options
	}
	return d
}}

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

// Encode returns the shard file bytes. A shard past a limit that Decode
// holds shards to (MaxSamples, MaxRecordBytes, MaxDecoded, MaxFile) is
// refused here, where it is made, rather than by every reader.
func Encode(h Header, samples []Sample) ([]byte, error) {
	h.Samples = len(samples)
	if len(samples) > MaxSamples {
		return nil, fmt.Errorf("data: %d samples in one shard; a shard holds at most %d (lower selfplay.shard_samples)", len(samples), MaxSamples)
	}
	var raw []byte
	var entries, text int64
	for i := range samples {
		var err error
		if raw, err = appendRecord(raw, &samples[i]); err != nil {
			return nil, fmt.Errorf("data: sample %d: %w", i, err)
		}
		if len(raw) > MaxRecordBytes {
			return nil, fmt.Errorf("data: the shard's records pass %d bytes at sample %d; a shard holds at most that (lower selfplay.shard_samples)", MaxRecordBytes, i)
		}
		entries += int64(len(samples[i].Policy))
		text += int64(len(samples[i].Position))
	}
	if d := decodedSize(int64(len(samples)), entries, text); d > MaxDecoded {
		return nil, fmt.Errorf("data: the shard's samples would take %d bytes decoded; a shard takes at most %d (lower selfplay.shard_samples)", d, MaxDecoded)
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
	if b.Len() > MaxFile {
		return nil, fmt.Errorf("data: the shard is %d bytes; a shard file is at most %d (lower selfplay.shard_samples)", b.Len(), MaxFile)
	}
	return b.Bytes(), nil
}

func appendRecord(b []byte, s *Sample) ([]byte, error) {
	if len(s.Position) > maxPosition { // empty is a position too (Connect Four's start)
		return nil, errors.New("position text too long")
	}
	if s.Result < -1 || s.Result > 1 || s.RootValue < -1 || s.RootValue > 1 || s.Ply < 0 {
		return nil, fmt.Errorf("result %v, root value %v or ply %d out of range", s.Result, s.RootValue, s.Ply)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Position)))
	b = append(b, s.Position...)
	b = binary.AppendUvarint(b, uint64(len(s.Policy)))
	for _, e := range s.Policy {
		if e.Action < 0 || e.Action > math.MaxInt32 || e.Prob < 0 || e.Prob > 1 || math.IsNaN(float64(e.Prob)) {
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

// Read loads a shard file: a regular file of at most MaxFile bytes (a
// FIFO, a device or a larger file is refused before a byte is read, so
// none can hang or exhaust the reader). Any damage (truncation, flipped
// bytes, bad lengths, a limit passed) is an error wrapping ErrCorrupt and
// naming the file.
func Read(path string) (Header, []Sample, error) {
	b, err := inputfile.ReadFile(path, "shard", MaxFile)
	if err != nil {
		return Header{}, nil, fmt.Errorf("data: %w", err)
	}
	h, s, err := Decode(b)
	if err != nil {
		return Header{}, nil, fmt.Errorf("data: %s: %w", path, err)
	}
	return h, s, nil
}

// Summary is what a pass over a shard's records counts.
type Summary struct {
	Samples     int   // records, as many as the header states
	Games       int   // distinct game ids (Inspect only)
	Entries     int64 // policy entries
	Text        int64 // bytes of position text
	RecordBytes int64 // decompressed bytes of the records
}

// Decoded is the memory the shard's samples take once decoded.
func (s Summary) Decoded() int64 { return decodedSize(int64(s.Samples), s.Entries, s.Text) }

// Inspect checks shard file bytes as Decode does (every limit, every
// record) and counts them, without keeping a sample: what a shard costs
// the caller is a zstd decoder and a set of game ids.
func Inspect(data []byte) (Header, Summary, error) {
	h, payload, err := parse(data)
	if err != nil {
		return h, Summary{}, err
	}
	sum, err := scan(payload, h.Samples, true, nil)
	return h, sum, err
}

// Decode parses shard file bytes. A first pass checks every record and
// counts what the samples need; only then is memory allocated, of exactly
// that size.
func Decode(data []byte) (Header, []Sample, error) {
	h, payload, err := parse(data)
	if err != nil {
		return h, nil, err
	}
	sum, err := scan(payload, h.Samples, false, nil)
	if err != nil {
		return h, nil, err
	}
	out := &decoded{samples: make([]Sample, h.Samples), policy: make([]PolicyEntry, sum.Entries)}
	out.text.Grow(int(sum.Text))
	if _, err := scan(payload, h.Samples, false, out); err != nil {
		return h, nil, err
	}
	return h, out.samples, nil
}

// parse checks a shard's framing, lengths, checksum and header and
// returns the header and the compressed payload.
func parse(data []byte) (Header, []byte, error) {
	var h Header
	if len(data) > MaxFile {
		return h, nil, corrupt("%d bytes; a shard file is at most %d", len(data), MaxFile)
	}
	if len(data) < 16 || !bytes.Equal(data[:8], magic[:]) {
		return h, nil, corrupt("bad magic or truncated header")
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != FormatVersion {
		return h, nil, fmt.Errorf("shard format version %d, this build reads %d", v, FormatVersion)
	}
	hl := binary.LittleEndian.Uint32(data[12:])
	if hl > maxHeader {
		return h, nil, corrupt("header of %d bytes; a header is at most %d", hl, maxHeader)
	}
	if int(hl) > len(data)-16-12 {
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
	if h.Samples < 0 || h.Samples > MaxSamples {
		return h, nil, corrupt("header states %d samples; a shard holds at most %d", h.Samples, MaxSamples)
	}
	// A frame that states its size says at once whether it is a bomb.
	var zh zstd.Header
	if zh.Decode(payload) == nil && zh.HasFCS && zh.FrameContentSize > MaxRecordBytes {
		return h, nil, corrupt("payload decompresses to %d bytes (its zstd frame says); a shard's records are at most %d", zh.FrameContentSize, MaxRecordBytes)
	}
	return h, payload, nil
}

// decoded is the storage of a shard's samples, sized by a first pass:
// their policy entries in one block, their positions in one string.
type decoded struct {
	samples []Sample
	policy  []PolicyEntry
	text    strings.Builder
}

// scan reads n records from the compressed payload as it decompresses
// it. Without out (the first pass) it checks every record against the
// limits and counts what the samples need, keeping nothing (game ids when
// games is set); with out it fills out, sized by the first pass.
func scan(payload []byte, n int, games bool, out *decoded) (sum Summary, err error) {
	dec := decoders.Get().(*zstd.Decoder)
	defer func() {
		dec.Reset(nil) // lets go of payload
		decoders.Put(dec)
	}()
	if err := dec.Reset(bytes.NewReader(payload)); err != nil {
		return sum, corrupt("zstd: %v", err)
	}
	lim := &io.LimitedReader{R: dec, N: MaxRecordBytes + 1}
	r := &records{br: bufio.NewReaderSize(lim, maxPosition+64), lim: lim}
	var ids map[uint64]struct{}
	if games {
		ids = map[uint64]struct{}{}
	}
	for i := 0; i < n; i++ {
		var s Sample
		if err := r.record(&s, &sum, out); err != nil {
			if errors.Is(err, errShort) {
				return sum, corrupt("the header states %d samples, the records end after %d (%d bytes; a record takes at least %d)", n, i, r.consumed(), minRecord)
			}
			return sum, corrupt("record %d: %v", i, err)
		}
		if out != nil {
			if i >= len(out.samples) {
				return sum, corrupt("record %d: more than the first pass counted", i)
			}
			out.samples[i] = s
		}
		if ids != nil {
			ids[s.GameID] = struct{}{}
		}
		sum.Samples++
	}
	switch _, err := r.br.ReadByte(); {
	case err == nil:
		return sum, corrupt("bytes after the last of the %d records the header states", n)
	case err != io.EOF:
		return sum, corrupt("after the last record: %v", r.fail(err))
	}
	sum.RecordBytes = r.consumed()
	sum.Games = len(ids)
	return sum, nil
}

// records reads records from a decompressing reader.
type records struct {
	br  *bufio.Reader
	lim *io.LimitedReader
}

var (
	errShort   = errors.New("record cut short")
	errTooLong = fmt.Errorf("records pass %d bytes; a shard's records are at most that", MaxRecordBytes)
)

// consumed is the decompressed bytes read so far.
func (r *records) consumed() int64 {
	return MaxRecordBytes + 1 - r.lim.N - int64(r.br.Buffered())
}

// fail names a read error: the records' end (errShort), the limit on
// their size or the decompressor's complaint.
func (r *records) fail(err error) error {
	switch {
	case r.lim.N == 0 && (err == io.EOF || err == io.ErrUnexpectedEOF):
		return errTooLong
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return errShort
	}
	return fmt.Errorf("zstd: %w", err)
}

// uvarint reads an unsigned varint of at most max.
func (r *records) uvarint(max uint64, what string) (uint64, error) {
	var x uint64
	for i := 0; i < binary.MaxVarintLen64; i++ {
		b, err := r.br.ReadByte()
		if err != nil {
			return 0, r.fail(err)
		}
		if i == binary.MaxVarintLen64-1 && b > 1 {
			break
		}
		x |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			if x > max {
				return 0, fmt.Errorf("%s is %d, at most %d", what, x, max)
			}
			return x, nil
		}
	}
	return 0, fmt.Errorf("%s overflows 64 bits", what)
}

// take returns the next n bytes (n <= the reader's buffer), valid until
// the next read.
func (r *records) take(n int) ([]byte, error) {
	b, err := r.br.Peek(n)
	if err != nil {
		return nil, r.fail(err)
	}
	r.br.Discard(n)
	return b, nil
}

// record reads one record into s, counting it into sum; with out, its
// policy and position go into out's storage.
func (r *records) record(s *Sample, sum *Summary, out *decoded) error {
	n, err := r.uvarint(maxPosition, "position text length")
	if err != nil {
		return err
	}
	text, err := r.take(int(n))
	if err != nil {
		return err
	}
	if out != nil {
		if int64(out.text.Len())+int64(n) > int64(out.text.Cap()) {
			return errors.New("more position text than the first pass counted")
		}
		start := out.text.Len()
		out.text.Write(text)
		s.Position = out.text.String()[start:]
	}
	entries, err := r.uvarint(MaxRecordBytes/3, "policy entry count")
	if err != nil {
		return err
	}
	sum.Text += int64(n)
	sum.Entries += int64(entries)
	if d := decodedSize(int64(sum.Samples)+1, sum.Entries, sum.Text); d > MaxDecoded {
		return fmt.Errorf("the samples so far would take %d bytes decoded; a shard takes at most %d", d, MaxDecoded)
	}
	if out != nil {
		end := sum.Entries
		if end > int64(len(out.policy)) {
			return errors.New("more policy entries than the first pass counted")
		}
		s.Policy = out.policy[end-int64(entries) : end : end]
	}
	for i := range int(entries) {
		a, err := r.uvarint(math.MaxInt32, "policy action")
		if err != nil {
			return err
		}
		q, err := r.take(2)
		if err != nil {
			return err
		}
		if out != nil {
			s.Policy[i] = PolicyEntry{Action: int(a), Prob: float32(binary.LittleEndian.Uint16(q)) / 65535}
		}
	}
	tail, err := r.take(3)
	if err != nil {
		return err
	}
	s.Result = float32(int8(tail[0])) / 127
	s.RootValue = float32(int16(binary.LittleEndian.Uint16(tail[1:]))) / 32767
	ply, err := r.uvarint(math.MaxInt32, "ply")
	if err != nil {
		return err
	}
	s.Ply = int(ply)
	if s.GameID, err = r.uvarint(math.MaxUint64, "game id"); err != nil {
		return err
	}
	if r.consumed() > MaxRecordBytes {
		return errTooLong
	}
	return nil
}
