package datatest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"

	"github.com/tabula-zero/tabula/data"
)

// Shards a hostile worker might send: each is well framed (its header's
// checksum is right, so it reaches the records) and each must be refused
// without its stated sizes ever being allocated. The zstd payloads are
// built block by block: an RLE block repeats one byte up to 128 KiB times
// in 4 bytes, so 1 GiB of records fits in 32 KB.

// Bomb is a hostile shard: what it is and its bytes.
type Bomb struct {
	Name  string // what it tries
	Bytes []byte
}

// Bombs returns the hostile shapes for worker w (the worker name in their
// headers) of game g's encoder version ev.
func Bombs(w, g string, ev int) []Bomb {
	h := func(samples int) data.Header {
		return data.Header{Game: g, EncoderVersion: ev, Generation: 1, Worker: w, Seq: 900000 + samples%1000, Samples: samples}
	}
	const gib = 1 << 30
	return []Bomb{
		// The probe's first shard: 1 GiB of zeros (every 7 zeros a valid
		// empty record) under a header of 1,073,741,823 samples.
		{"1 GiB of records claiming 1,073,741,823 samples", Frame(h(gib-1), ZeroFrame(gib, true))},
		// The probe's second: 9.6M valid empty records in 2 KB.
		{"9.6M samples in 2 KB", Frame(h(9_600_000), ZeroFrame(9_600_000*7, false))},
		// Within the sample limit, but the records go on for 1 GiB.
		{"1 GiB of records after the samples claimed", Frame(h(data.MaxSamples), ZeroFrame(gib, false))},
		{"a zstd frame stating 1 TiB", Frame(h(10), statedFrame(1<<40))},
		{"a zstd window of 2 GiB", Frame(h(10), windowFrame(31))},
		// One record whose policy claims 40M entries (640 MB decoded), its
		// entries there as zeros.
		{"a record of 40M policy entries", Frame(h(1), PolicyBomb(40_000_000))},
		{"a payload length of 2^62", lie(Frame(h(10), ZeroFrame(70, false)), 1<<62)},
		{"a header length of 4 GiB", headerLie(Frame(h(10), ZeroFrame(70, false)))},
	}
}

// Frame assembles a shard file from a header and a payload (a zstd
// stream), with the right lengths and checksum.
func Frame(h data.Header, payload []byte) []byte {
	hj, _ := json.Marshal(h)
	var b bytes.Buffer
	b.WriteString("TABSHRD\x00")
	binary.Write(&b, binary.LittleEndian, uint32(data.FormatVersion))
	binary.Write(&b, binary.LittleEndian, uint32(len(hj)))
	b.Write(hj)
	binary.Write(&b, binary.LittleEndian, uint64(len(payload)))
	t := crc32.MakeTable(crc32.Castagnoli)
	binary.Write(&b, binary.LittleEndian, crc32.Update(crc32.Checksum(hj, t), t, payload))
	b.Write(payload)
	return b.Bytes()
}

const rleMax = 128 << 10 // a block's most bytes

// frameStart is a zstd frame's magic and header: a 128 KiB window, and
// the content size when stated is set (8 bytes).
func frameStart(size uint64, stated bool) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd}
	if stated {
		b = append(b, 3<<6, 7<<3) // 8-byte content size; window 2^(10+7)
		return binary.LittleEndian.AppendUint64(b, size)
	}
	return append(b, 0, 7<<3)
}

// block appends a block header: last, type (0 raw, 1 RLE) and size.
func block(b []byte, last bool, typ, size int) []byte {
	v := uint32(size)<<3 | uint32(typ)<<1
	if last {
		v |= 1
	}
	return append(b, byte(v), byte(v>>8), byte(v>>16))
}

// zeros appends RLE blocks of n zero bytes, the last one ending the frame.
func zeros(b []byte, n int) []byte {
	for n > 0 {
		k := min(n, rleMax)
		n -= k
		b = append(block(b, n == 0, 1, k), 0)
	}
	return b
}

// ZeroFrame is a zstd frame of n zero bytes in RLE blocks (n > 0), its
// content size stated or not.
func ZeroFrame(n int, stated bool) []byte {
	return zeros(frameStart(uint64(n), stated), n)
}

// PolicyBomb is a zstd frame of one record whose policy has entries
// entries (all zeros), then its tail.
func PolicyBomb(entries int) []byte {
	head := binary.AppendUvarint([]byte{0}, uint64(entries)) // no position text, then the count
	b := frameStart(0, false)
	b = append(block(b, false, 0, len(head)), head...)
	return zeros(b, 3*entries+3+2) // entries, result and value, ply, game id
}

// statedFrame states size bytes of content and holds 70 zeros.
func statedFrame(size uint64) []byte {
	return zeros(frameStart(size, true), 70)
}

// windowFrame declares a window of 2^log bytes and holds 70 zeros.
func windowFrame(log int) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0, byte(log-10) << 3}
	return zeros(b, 70)
}

// lie sets a shard's stated payload length (the checksum stays right: it
// covers the header and the payload, not the length).
func lie(shard []byte, plen uint64) []byte {
	hl := binary.LittleEndian.Uint32(shard[12:])
	binary.LittleEndian.PutUint64(shard[16+hl:], plen)
	return shard
}

// headerLie sets a shard's stated header length to 4 GiB - 1.
func headerLie(shard []byte) []byte {
	binary.LittleEndian.PutUint32(shard[12:], 0xffffffff)
	return shard
}
