package nnuedata

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/tabula-zero/tabula/internal/atomicfile"
)

// A shard file, written at once and atomically:
//
//	magic    "TABNNDT\x00"  8 bytes (a network file's is "TABNNUE\x00")
//	version  uint32         FormatVersion
//	hlen     uint32         length of the JSON header
//	header   JSON           Header
//	plen     uint64         length of the payload
//	crc      uint32         CRC-32C of the header and the payload
//	payload  one zstd frame of Header.Records records of RecordSize bytes,
//	         its content size stated in the frame
//
// Integers are little-endian.

// FormatVersion is the shard format's version; a reader refuses others.
const FormatVersion = 1

// Ext ends a shard's file name: shard-NNNNNN.nnuedata.
const Ext = ".nnuedata"

var magic = [8]byte{'T', 'A', 'B', 'N', 'N', 'D', 'T', 0}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Limits of a shard, the same for writing and reading (Encode refuses what
// Decode would), so that what a shard can cost a reader is known before it
// is read.
const (
	// MaxRecords is the most records a shard holds: 40 MiB decompressed,
	// 64 times the generator's default shard.
	MaxRecords = 1 << 20
	// MaxFile bounds a shard file: the records stored uncompressed plus
	// the header and framing.
	MaxFile = MaxRecords*RecordSize + 1<<20
	// maxHeader bounds the JSON header.
	maxHeader = 64 << 10
	// prefix is the bytes before the header: magic, version, length.
	prefix = 16
	// middle is the bytes between header and payload: length, checksum.
	middle = 12
	// maxRatio bounds how many times its size a payload may decompress
	// to. Real records compress about 4 to 1 (10 bytes a record,
	// docs/nnue.md), 160 times less than this allows; a crafted frame of a
	// few bytes stating megabytes is refused before its buffer is made, so
	// a reader allocates in proportion to the file, never to a count it
	// states.
	maxRatio = 640
)

// Budget is the search budget of every move of a shard's games: a node
// limit, a depth limit, or both (whichever comes first).
type Budget struct {
	Depth int    `json:"depth,omitempty"`
	Nodes uint64 `json:"nodes,omitempty"`
}

func (b Budget) String() string {
	switch {
	case b.Depth > 0 && b.Nodes > 0:
		return fmt.Sprintf("depth %d, %d nodes", b.Depth, b.Nodes)
	case b.Depth > 0:
		return fmt.Sprintf("depth %d", b.Depth)
	case b.Nodes > 0:
		return fmt.Sprintf("%d nodes", b.Nodes)
	}
	return "no budget"
}

// Stats count what a shard's games did.
type Stats struct {
	// Games ended by the rules or adjudication, by result for Red.
	RedWins   int `json:"red_wins"`
	Draws     int `json:"draws"`
	BlackWins int `json:"black_wins"`
	// Resigned and Adjudicated count the games ended by the resign rule
	// and the draw rule of long stretches of scores near zero.
	Resigned    int `json:"resigned"`
	Adjudicated int `json:"adjudicated_draws"`
	// Plies is the plies of all the games (random opening plies too).
	Plies int `json:"plies"`
	// Searched is the positions searched; the skipped ones by why.
	Searched    int `json:"searched"`
	SkipCheck   int `json:"skip_check"`
	SkipCapture int `json:"skip_capture"`
	SkipMate    int `json:"skip_mate,omitempty"`
	// Nodes is the nodes of every search.
	Nodes uint64 `json:"nodes"`
}

// Add counts o into s.
func (s *Stats) Add(o Stats) {
	s.RedWins += o.RedWins
	s.Draws += o.Draws
	s.BlackWins += o.BlackWins
	s.Resigned += o.Resigned
	s.Adjudicated += o.Adjudicated
	s.Plies += o.Plies
	s.Searched += o.Searched
	s.SkipCheck += o.SkipCheck
	s.SkipCapture += o.SkipCapture
	s.SkipMate += o.SkipMate
	s.Nodes += o.Nodes
}

// Games is the games counted.
func (s Stats) Games() int { return s.RedWins + s.Draws + s.BlackWins }

// Header describes a shard. It holds nothing that changes from one run
// to the next (no time), so the same seed writes the same bytes.
type Header struct {
	Game    string `json:"game"` // "xiangqi"
	Seq     int    `json:"seq"`  // the shard's number in its directory
	Seed    uint64 `json:"seed"` // game j of the shard is seeded GameSeed(Seed, Seq, j)
	Records int    `json:"records"`
	Games   int    `json:"games"`
	// GameRecords is the records of each game in turn (a game may have
	// none): where one game's records end and the next's begin, for a
	// trainer holding games out or a check of their results.
	GameRecords []int  `json:"game_records"`
	Budget      Budget `json:"budget"`
	// Eval names the evaluation the games were searched with:
	// "classical", or a network with its checksum.
	Eval     string   `json:"eval"`
	Settings Settings `json:"settings"`
	Stats    Stats    `json:"stats"`
}

// Settings are the generator's choices a shard was made with, kept for
// provenance.
type Settings struct {
	RandomPlies     [2]int  `json:"random_plies"`      // at the start, a number drawn from this range
	RandomMoveProb  float64 `json:"random_move_prob"`  // then a random move with this chance
	RandomMoveUntil int     `json:"random_move_until"` // before this ply
	Openings        string  `json:"openings,omitempty"`
	ResignScore     int     `json:"resign_score"`
	ResignPlies     int     `json:"resign_plies"`
	DrawScore       int     `json:"draw_score"`
	DrawPlies       int     `json:"draw_plies"`
	DrawAfter       int     `json:"draw_after"`
	SkipMate        bool    `json:"skip_mate,omitempty"`
	Search          string  `json:"search"` // the alpha-beta options
}

// Name is the shard's file name.
func Name(seq int) string { return fmt.Sprintf("shard-%06d%s", seq, Ext) }

// ParseName returns the sequence number of a shard file name.
func ParseName(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, "shard-")
	if !ok {
		return 0, false
	}
	if s, ok = strings.CutSuffix(s, Ext); !ok || len(s) < 6 || s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || Name(n) != name {
		return 0, false
	}
	return n, true
}

// Errors of a damaged or hostile shard. Each wraps ErrCorrupt; errors.Is
// finds either.
var (
	ErrCorrupt   = errors.New("corrupt shard")
	ErrNotShard  = errors.New("not a shard (bad magic)")
	ErrTruncated = errors.New("truncated")
	ErrChecksum  = errors.New("checksum mismatch")
	ErrLimit     = errors.New("past a shard's limits")
	ErrHeader    = errors.New("bad header")
	ErrPayload   = errors.New("bad payload")
)

// ErrVersion is a shard of another format version (not damage: a newer
// or older build wrote it).
var ErrVersion = errors.New("unknown shard format version")

func corrupt(kind error, format string, args ...any) error {
	return fmt.Errorf("%w: %w: %s", ErrCorrupt, kind, fmt.Sprintf(format, args...))
}

// encoder compresses hardest: shards are written once a few minutes and
// read many times, reading costs the same, and the best level takes 8%
// fewer bytes than the next (docs/nnue.md).
var encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))

// decoders decode whole payloads into a caller's buffer (DecodeAll), one
// goroutine each, never more than a shard's largest records.
var decoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(MaxRecords*RecordSize), zstd.WithDecoderMaxWindow(MaxRecords*RecordSize))
	if err != nil {
		panic(err) // constant options
	}
	return d
}}

// Encode returns the shard file bytes of recs (h.Records is set here).
// Every record is checked, so a shard this writes is one Decode reads.
func Encode(h Header, recs []Record) ([]byte, error) {
	h.Records = len(recs)
	if err := h.check(); err != nil {
		return nil, fmt.Errorf("nnuedata: %w", err)
	}
	raw := make([]byte, len(recs)*RecordSize)
	for i := range recs {
		if err := recs[i].Check(); err != nil {
			return nil, fmt.Errorf("nnuedata: record %d: %w", i, err)
		}
		recs[i].put(raw[i*RecordSize:])
	}
	payload := encoder.EncodeAll(raw, nil)
	hj, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("nnuedata: %w", err)
	}
	if len(hj) > maxHeader {
		return nil, fmt.Errorf("nnuedata: a header of %d bytes; at most %d", len(hj), maxHeader)
	}
	var b bytes.Buffer
	b.Grow(prefix + len(hj) + middle + len(payload))
	b.Write(magic[:])
	b.Write(binary.LittleEndian.AppendUint32(nil, FormatVersion))
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(hj))))
	b.Write(hj)
	b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(payload))))
	b.Write(binary.LittleEndian.AppendUint32(nil, crc32.Update(crc32.Checksum(hj, crcTable), crcTable, payload)))
	b.Write(payload)
	if b.Len() > MaxFile {
		return nil, fmt.Errorf("nnuedata: a shard of %d bytes; at most %d", b.Len(), MaxFile)
	}
	return b.Bytes(), nil
}

// Write stores recs as shard h.Seq in dir, atomically, and returns its
// path.
func Write(dir string, h Header, recs []Record) (string, error) {
	b, err := Encode(h, recs)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, Name(h.Seq))
	if err := atomicfile.WriteBytes(path, b, 0o644); err != nil {
		return "", fmt.Errorf("nnuedata: write shard: %w", err)
	}
	return path, nil
}

// check holds a header to what a shard may state.
func (h *Header) check() error {
	switch {
	case h.Game != "xiangqi":
		return fmt.Errorf("game %q, not xiangqi", h.Game)
	case h.Records < 1 || h.Records > MaxRecords:
		return fmt.Errorf("%d records; a shard holds 1 to %d", h.Records, MaxRecords)
	case h.Seq < 0 || h.Games < 0:
		return fmt.Errorf("sequence %d or games %d negative", h.Seq, h.Games)
	case h.Budget.Depth < 0 || h.Budget.Depth > maxDepth:
		return fmt.Errorf("budget depth %d", h.Budget.Depth)
	case len(h.GameRecords) != h.Games:
		return fmt.Errorf("%d games, records of %d", h.Games, len(h.GameRecords))
	}
	n := 0
	for _, k := range h.GameRecords {
		if k < 0 || k > h.Records {
			return fmt.Errorf("a game of %d records in a shard of %d", k, h.Records)
		}
		n += k
	}
	if n != h.Records {
		return fmt.Errorf("games of %d records in a shard of %d", n, h.Records)
	}
	return nil
}

// parse checks a shard's framing, lengths, checksum and header, and the
// size its zstd frame states, and returns the header and the payload.
func parse(data []byte) (Header, []byte, error) {
	var h Header
	if len(data) > MaxFile {
		return h, nil, corrupt(ErrLimit, "%d bytes; a shard file is at most %d", len(data), MaxFile)
	}
	if len(data) < len(magic) || !bytes.Equal(data[:len(magic)], magic[:]) {
		return h, nil, corrupt(ErrNotShard, "the file does not start with %q", magic[:7])
	}
	if len(data) < prefix {
		return h, nil, corrupt(ErrTruncated, "%d bytes, shorter than the header's length", len(data))
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != FormatVersion {
		return h, nil, fmt.Errorf("%w %d (this build reads %d)", ErrVersion, v, FormatVersion)
	}
	hl := binary.LittleEndian.Uint32(data[12:])
	if hl > maxHeader {
		return h, nil, corrupt(ErrLimit, "a header of %d bytes; at most %d", hl, maxHeader)
	}
	if int(hl) > len(data)-prefix-middle {
		return h, nil, corrupt(ErrTruncated, "the header states %d bytes, the file holds %d after it", hl, len(data)-prefix)
	}
	hj := data[prefix : prefix+hl]
	rest := data[prefix+hl:]
	plen := binary.LittleEndian.Uint64(rest)
	sum := binary.LittleEndian.Uint32(rest[8:])
	payload := rest[middle:]
	if uint64(len(payload)) != plen {
		if uint64(len(payload)) < plen {
			return h, nil, corrupt(ErrTruncated, "the payload is %d bytes, its length says %d", len(payload), plen)
		}
		return h, nil, corrupt(ErrPayload, "%d bytes after a payload of %d", uint64(len(payload))-plen, plen)
	}
	if crc32.Update(crc32.Checksum(hj, crcTable), crcTable, payload) != sum {
		return h, nil, corrupt(ErrChecksum, "CRC-32C of header and payload")
	}
	dec := json.NewDecoder(bytes.NewReader(hj))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return h, nil, corrupt(ErrHeader, "%v", err)
	}
	if err := h.check(); err != nil {
		return h, nil, corrupt(ErrHeader, "%v", err)
	}
	// The frame must state its size, and the size the header's count
	// gives: the decoder then stops at that many bytes, so a bomb costs
	// at most the records the header states, themselves bounded.
	var zh zstd.Header
	if err := zh.Decode(payload); err != nil {
		return h, nil, corrupt(ErrPayload, "zstd frame header: %v", err)
	}
	if want := uint64(h.Records) * RecordSize; !zh.HasFCS || zh.FrameContentSize != want {
		return h, nil, corrupt(ErrPayload, "the zstd frame states %d bytes (stated: %v), %d records take %d", zh.FrameContentSize, zh.HasFCS, h.Records, want)
	}
	if want := uint64(h.Records) * RecordSize; want > uint64(len(payload))*maxRatio {
		return h, nil, corrupt(ErrLimit, "%d records in a payload of %d bytes: more than %d times its size", h.Records, len(payload), maxRatio)
	}
	return h, payload, nil
}

// Decoder decodes shards into buffers it reuses: a trainer reading tens
// of millions of records allocates per shard at most until its buffers
// fit the largest. Not safe for concurrent use; one per goroutine.
type Decoder struct {
	raw  []byte
	recs []Record
}

// Decode parses shard file bytes. The records are valid until the next
// call; copy what must outlive it.
func (d *Decoder) Decode(data []byte) (Header, []Record, error) {
	h, payload, err := parse(data)
	if err != nil {
		return h, nil, err
	}
	n := h.Records * RecordSize // bounded by MaxRecords
	if cap(d.raw) < n {
		d.raw = make([]byte, 0, n)
	}
	zd := decoders.Get().(*zstd.Decoder)
	raw, err := zd.DecodeAll(payload, d.raw[:0])
	decoders.Put(zd)
	if err != nil {
		return h, nil, corrupt(ErrPayload, "zstd: %v", err)
	}
	if len(raw) != n {
		return h, nil, corrupt(ErrPayload, "%d bytes of records, %d records take %d", len(raw), h.Records, n)
	}
	if cap(d.recs) < h.Records {
		d.recs = make([]Record, h.Records)
	}
	recs := d.recs[:h.Records]
	for i := range recs {
		recs[i].get(raw[i*RecordSize:])
		if err := recs[i].Check(); err != nil {
			return h, nil, corrupt(ErrPayload, "record %d: %v", i, err)
		}
	}
	return h, recs, nil
}

// Decode parses shard file bytes into records of their own.
func Decode(data []byte) (Header, []Record, error) {
	var d Decoder
	return d.Decode(data)
}
