package nnue

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/inputfile"
)

// File format (little endian):
//
//	"TABNNUE\x00"                     magic, 8 bytes
//	uint32 format version             FileVersion
//	uint32 header length, JSON header  feature set and version, sizes, scales, notes
//	int16 ft weights [NumFeatures][L1], int16 ft biases [L1]
//	int8 W1 [L2][2*L1], int32 B1 [L2]
//	int8 W2 [L3][L2],   int32 B2 [L3]
//	int8 W3 [L3],       int32 B3
//	SHA-256 of everything before it, 32 bytes
const (
	FileVersion = 1
	// MaxFileSize bounds what Load reads: the widest network this package
	// runs (L1 2048) is about 31 MB.
	MaxFileSize = 64 << 20
	maxHeader   = 1 << 20
)

var magic = [8]byte{'T', 'A', 'B', 'N', 'N', 'U', 'E', 0}

// header is the JSON header. The scales are this package's constants; a
// file stating others was made for other kernels and is refused.
type header struct {
	FeatureSet        string `json:"feature_set"`
	FeatureSetVersion int    `json:"feature_set_version"`
	NumFeatures       int    `json:"num_features"`
	L1                int    `json:"l1"`
	L2                int    `json:"l2"`
	L3                int    `json:"l3"`
	FTScale           int    `json:"ft_scale"`
	HiddenWeightScale int    `json:"hidden_weight_scale"`
	OutputScale       int    `json:"output_scale"`
	OutputDiv         int    `json:"output_div"`
	Notes             string `json:"notes,omitempty"`
}

func (h *header) check() error {
	if h.FeatureSet != FeatureSet || h.FeatureSetVersion != FeatureSetVersion {
		return fmt.Errorf("feature set %q version %d, this build reads %q version %d", h.FeatureSet, h.FeatureSetVersion, FeatureSet, FeatureSetVersion)
	}
	if h.NumFeatures != NumFeatures {
		return fmt.Errorf("%d features, %s has %d", h.NumFeatures, FeatureSet, NumFeatures)
	}
	if h.FTScale != FTScale || h.HiddenWeightScale != HiddenWeightScale || h.OutputScale != OutputScale || h.OutputDiv != OutputDiv {
		return fmt.Errorf("scales ft %d, hidden %d, output %d/%d; this build runs %d, %d, %d/%d",
			h.FTScale, h.HiddenWeightScale, h.OutputScale, h.OutputDiv, FTScale, HiddenWeightScale, OutputScale, OutputDiv)
	}
	return Sizes{h.L1, h.L2, h.L3}.Check()
}

// payloadSize is the arrays' size in bytes for sizes s (checked, so no
// overflow).
func payloadSize(s Sizes) int64 {
	l1, l2, l3 := int64(s.L1), int64(s.L2), int64(s.L3)
	return NumFeatures*l1*2 + l1*2 + l2*2*l1 + l2*4 + l3*l2 + l3*4 + l3 + 4
}

// Encode returns the network in the file format.
func (n *Net) Encode() []byte {
	s := n.sizes
	h, _ := json.Marshal(header{ // a struct of strings and ints always marshals
		FeatureSet: FeatureSet, FeatureSetVersion: FeatureSetVersion, NumFeatures: NumFeatures,
		L1: s.L1, L2: s.L2, L3: s.L3,
		FTScale: FTScale, HiddenWeightScale: HiddenWeightScale, OutputScale: OutputScale, OutputDiv: OutputDiv,
		Notes: n.notes,
	})
	b := make([]byte, 0, 16+int64(len(h))+payloadSize(s)+sha256.Size)
	b = append(b, magic[:]...)
	b = binary.LittleEndian.AppendUint32(b, FileVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(h)))
	b = append(b, h...)
	for _, v := range n.ftW {
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
	}
	for _, v := range n.ftB {
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
	}
	b = appendInt8s(b, n.w1)
	b = appendInt32s(b, n.b1)
	b = appendInt8s(b, n.w2)
	b = appendInt32s(b, n.b2)
	b = appendInt8s(b, n.w3)
	b = binary.LittleEndian.AppendUint32(b, uint32(n.b3))
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

func appendInt8s(b []byte, xs []int8) []byte {
	for _, v := range xs {
		b = append(b, byte(v))
	}
	return b
}

func appendInt32s(b []byte, xs []int32) []byte {
	for _, v := range xs {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

// Decode reads a network in the file format. It refuses another magic or
// format version, another feature set or scales, sizes this package does
// not run, a length other than the header's sizes imply (a truncated file
// or trailing bytes) and a checksum mismatch, all before the arrays are
// allocated.
func Decode(data []byte) (*Net, error) {
	if len(data) < 16 {
		return nil, fmt.Errorf("nnue: truncated: %d bytes, shorter than the file's head", len(data))
	}
	if !bytes.Equal(data[:8], magic[:]) {
		return nil, errors.New("nnue: not a network file (bad magic)")
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != FileVersion {
		return nil, fmt.Errorf("nnue: file format version %d, this build reads %d", v, FileVersion)
	}
	hl := int64(binary.LittleEndian.Uint32(data[12:]))
	if hl > maxHeader {
		return nil, fmt.Errorf("nnue: header of %d bytes, more than %d", hl, maxHeader)
	}
	if 16+hl > int64(len(data)) {
		return nil, fmt.Errorf("nnue: truncated: the header needs %d bytes, the file has %d", 16+hl, len(data))
	}
	var h header
	dec := json.NewDecoder(bytes.NewReader(data[16 : 16+hl]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("nnue: header: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("nnue: header: data after the JSON object")
	}
	if err := h.check(); err != nil {
		return nil, fmt.Errorf("nnue: header: %w", err)
	}
	s := Sizes{h.L1, h.L2, h.L3}
	want := 16 + hl + payloadSize(s) + sha256.Size
	if got := int64(len(data)); got != want {
		if got < want {
			return nil, fmt.Errorf("nnue: truncated: %d bytes, sizes %s need %d", got, s, want)
		}
		return nil, fmt.Errorf("nnue: %d bytes, sizes %s need %d: trailing data", got, s, want)
	}
	body := data[:len(data)-sha256.Size]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], data[len(body):]) {
		return nil, errors.New("nnue: checksum mismatch: the file is damaged")
	}
	n := newNet(s)
	n.notes = h.Notes
	r := body[16+hl:]
	for i := range n.ftW {
		n.ftW[i] = int16(binary.LittleEndian.Uint16(r[2*i:]))
	}
	r = r[2*len(n.ftW):]
	for i := range n.ftB {
		n.ftB[i] = int16(binary.LittleEndian.Uint16(r[2*i:]))
	}
	r = r[2*len(n.ftB):]
	r = readInt8s(n.w1, r)
	r = readInt32s(n.b1, r)
	r = readInt8s(n.w2, r)
	r = readInt32s(n.b2, r)
	r = readInt8s(n.w3, r)
	n.b3 = int32(binary.LittleEndian.Uint32(r))
	n.finish()
	return n, nil
}

func readInt8s(dst []int8, r []byte) []byte {
	for i := range dst {
		dst[i] = int8(r[i])
	}
	return r[len(dst):]
}

func readInt32s(dst []int32, r []byte) []byte {
	for i := range dst {
		dst[i] = int32(binary.LittleEndian.Uint32(r[4*i:]))
	}
	return r[4*len(dst):]
}

// Save writes the network to path atomically.
func (n *Net) Save(path string) error {
	if err := atomicfile.WriteBytes(path, n.Encode(), 0o644); err != nil {
		return fmt.Errorf("nnue: save %s: %w", path, err)
	}
	return nil
}

// Load reads a network file: a regular file of at most MaxFileSize bytes,
// checked as Decode does.
func Load(path string) (*Net, error) {
	b, err := inputfile.ReadFile(path, "network file", MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("nnue: %w", err)
	}
	n, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%w (network file %s)", err, path)
	}
	return n, nil
}
