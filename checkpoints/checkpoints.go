// Package checkpoints stores networks with their training state, one
// self-describing file per checkpoint (a run directory's list and its
// pointers are package rundir's).
//
// File format (little endian):
//
//	magic    "TABCKPT\x00"  8 bytes
//	version  uint32         format version (FormatVersion, or FormatVersionWDL)
//	hlen     uint32         length of the JSON header
//	header   JSON           game, encoder version, net spec, step, generation, section sizes
//	sections float32 arrays: parameters (in Params order), then optimizer buffers
//	rng      bytes          RNG state
//	sum      32 bytes       SHA-256 of everything before it
//
// Loading a truncated, corrupted, wrong-game or wrong-version file fails
// with an error that names the file and the problem.
package checkpoints

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/net"
)

// FormatVersion is the checkpoint file format version.
const FormatVersion = 1

// FormatVersionWDL is the format of a network with the win/draw/loss
// value head (net.ValueWDL): the layout of version 1, its value head's
// last layer three logits wide. A network with the scalar head is still
// written as version 1, byte for byte as before, so that older builds
// read it; they refuse a WDL network by its version rather than misread
// its parameters.
const FormatVersionWDL = 2

// formatVersion is the version a network of spec s is written in.
func formatVersion(s net.Spec) uint32 {
	if s.WDLHead() {
		return FormatVersionWDL
	}
	return FormatVersion
}

var magic = [8]byte{'T', 'A', 'B', 'C', 'K', 'P', 'T', 0}

// Checkpoint is a network with the state needed to resume training.
type Checkpoint struct {
	Step       int64 // training steps taken
	Generation int   // generation of the training loop
	Params     *net.Params
	// OptimizerStep and Optimizer are the trainer's state (momentum
	// buffers in the trainer's documented parameter order); empty for a
	// network that was never trained.
	OptimizerStep int64
	Optimizer     [][]float32
	RNG           []byte            // the training RNG's state (encoding.BinaryMarshaler output)
	Meta          map[string]string // free-form notes (config hash, parent checkpoint)
	Created       time.Time
}

type header struct {
	Game           string            `json:"game"`
	EncoderVersion int               `json:"encoder_version"`
	Spec           net.Spec          `json:"spec"`
	Step           int64             `json:"step"`
	Generation     int               `json:"generation"`
	OptimizerStep  int64             `json:"optimizer_step"`
	ParamFloats    int               `json:"param_floats"`
	Optimizer      []int             `json:"optimizer"` // length of each buffer
	RNGBytes       int               `json:"rng_bytes"`
	Meta           map[string]string `json:"meta,omitempty"`
	Created        time.Time         `json:"created"`
}

// Ext is the file name extension of checkpoints.
const Ext = ".ckpt"

// Name is the file name of the checkpoint of a generation and step;
// names sort in training order.
func Name(generation int, step int64) string {
	return fmt.Sprintf("g%06d-s%09d%s", generation, step, Ext)
}

// ID identifies a checkpoint file: its game, generation and the SHA-256
// of its contents that ends it.
type ID struct {
	Game       string
	Generation int
	Sum        [sha256.Size]byte
}

// Identify reads a checkpoint's game and generation from its header and the
// checksum from its end, without reading the rest; Load verifies the
// whole file.
func Identify(path string) (ID, error) {
	f, size, err := inputfile.Open(path, "checkpoint", MaxFileBytes)
	if err != nil {
		return ID{}, fmt.Errorf("checkpoints: %w", err)
	}
	defer f.Close()
	return IdentifyAt(f, size, path)
}

// IdentifyAt is Identify for a checkpoint of size bytes read from r
// (a file or bytes.Reader); name labels its errors.
func IdentifyAt(r io.ReaderAt, size int64, name string) (ID, error) {
	h, _, err := readHeader(r, size, name)
	if err != nil {
		return ID{}, err
	}
	id := ID{Game: h.Game, Generation: h.Generation}
	if _, err := r.ReadAt(id.Sum[:], size-sha256.Size); err != nil {
		return ID{}, fmt.Errorf("%s: %w", name, err)
	}
	return id, nil
}

// readHeader reads the header of a checkpoint of size bytes from r and
// returns it with its length.
func readHeader(r io.ReaderAt, size int64, name string) (header, int, error) {
	var h header
	var pre [16]byte
	if _, err := r.ReadAt(pre[:], 0); err != nil || !bytes.Equal(pre[:8], magic[:]) {
		return h, 0, fmt.Errorf("%s is not a tabula checkpoint", name)
	}
	hl := int64(binary.LittleEndian.Uint32(pre[12:]))
	if 16+hl+sha256.Size > size {
		return h, 0, fmt.Errorf("%s: truncated checkpoint", name)
	}
	if hl > maxHeaderBytes {
		return h, 0, fmt.Errorf("%s: a %d-byte header, more than a checkpoint's %d", name, hl, maxHeaderBytes)
	}
	hj := make([]byte, hl)
	if _, err := r.ReadAt(hj, 16); err != nil {
		return h, 0, fmt.Errorf("%s: %w", name, err)
	}
	if err := json.Unmarshal(hj, &h); err != nil {
		return h, 0, fmt.Errorf("%s: bad header: %w", name, err)
	}
	return h, int(hl), nil
}

// statedSize is the file size a header states: its sections' sizes
// around it (-1 when they are out of range).
func statedSize(h header, hl int) int64 {
	n := int64(16 + hl + sha256.Size)
	add := func(v int64) {
		if v < 0 || n < 0 || v > MaxFileBytes {
			n = -1
		} else {
			n += v
		}
	}
	add(4 * int64(h.ParamFloats))
	for _, o := range h.Optimizer {
		add(4 * int64(o))
	}
	add(int64(h.RNGBytes))
	return n
}

// Save writes c to path atomically.
func Save(path string, c *Checkpoint) error {
	data, err := Encode(c)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(path, data, 0o644); err != nil {
		return fmt.Errorf("checkpoints: save %s: %w", path, err)
	}
	return nil
}

// Encode returns the file bytes of c.
func Encode(c *Checkpoint) ([]byte, error) {
	if c.Params == nil {
		return nil, errors.New("checkpoints: no parameters")
	}
	if err := c.Params.Check(); err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	arrays := paramArrays(c.Params)
	h := header{
		Game: c.Params.Spec.Game, EncoderVersion: c.Params.Spec.EncoderVersion, Spec: c.Params.Spec,
		Step: c.Step, Generation: c.Generation, OptimizerStep: c.OptimizerStep,
		ParamFloats: floats(arrays), RNGBytes: len(c.RNG), Meta: c.Meta, Created: c.Created,
	}
	for _, o := range c.Optimizer {
		h.Optimizer = append(h.Optimizer, len(o))
	}
	hj, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	var b bytes.Buffer
	b.Write(magic[:])
	binary.Write(&b, binary.LittleEndian, formatVersion(c.Params.Spec))
	binary.Write(&b, binary.LittleEndian, uint32(len(hj)))
	b.Write(hj)
	for _, a := range append(arrays, c.Optimizer...) {
		writeFloats(&b, a)
	}
	b.Write(c.RNG)
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes(), nil
}

// MaxFileBytes bounds a checkpoint file, so that a device, a sparse file
// or a planted giant is refused before it is read: a 100-block network of
// 256 filters with its optimizer state is about 950 MB.
const MaxFileBytes = 2 << 30

// maxHeaderBytes bounds the JSON header (a spec, sizes and notes).
const maxHeaderBytes = 1 << 20

// Load reads a checkpoint file. Only a regular file of at most
// MaxFileBytes is read, and only after its first bytes are a checkpoint's.
func Load(path string) (*Checkpoint, error) {
	f, size, err := inputfile.Open(path, "checkpoint", MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	defer f.Close()
	// The header states the file's size: a file of another size (a
	// sparse giant, a truncated copy) is refused before it is read.
	h, hl, err := readHeader(f, size, path)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	if want := statedSize(h, hl); want != size {
		return nil, fmt.Errorf("checkpoints: %s is %d bytes, its header states %d (truncated, or not one checkpoint)", path, size, want)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("checkpoints: %s: %w", path, err)
	}
	c, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %s: %w", path, err)
	}
	return c, nil
}

// LoadGame reads a checkpoint and checks it was made for game.
func LoadGame(path, game string) (*Checkpoint, error) {
	c, err := Load(path)
	if err != nil {
		return nil, err
	}
	if err := c.CheckGame(path, game); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadFor reads a checkpoint and checks it was made for game with the
// given encoder version.
func LoadFor(path, game string, encoderVersion int) (*Checkpoint, error) {
	c, err := Load(path)
	if err != nil {
		return nil, err
	}
	if err := c.CheckFor(path, game, encoderVersion); err != nil {
		return nil, err
	}
	return c, nil
}

// CheckGame reports a network of another game than game; name labels
// the checkpoint in the error.
func (c *Checkpoint) CheckGame(name, game string) error {
	if s := c.Params.Spec; s.Game != game {
		return fmt.Errorf("checkpoints: %s is a %s network, not %s", name, s.Game, game)
	}
	return nil
}

// CheckFor reports a network of another game than game, or made with
// another encoder version than encoderVersion.
func (c *Checkpoint) CheckFor(name, game string, encoderVersion int) error {
	if err := c.CheckGame(name, game); err != nil {
		return err
	}
	if s := c.Params.Spec; s.EncoderVersion != encoderVersion {
		return fmt.Errorf("checkpoints: %s uses encoder version %d, the game now has %d", name, s.EncoderVersion, encoderVersion)
	}
	return nil
}

// Decode parses checkpoint file bytes.
func Decode(data []byte) (*Checkpoint, error) {
	if len(data) < 16+sha256.Size || !bytes.Equal(data[:8], magic[:]) {
		if len(data) >= 8 && bytes.Equal(data[:8], magic[:]) {
			return nil, errors.New("truncated checkpoint")
		}
		return nil, errors.New("not a tabula checkpoint (bad magic)")
	}
	version := binary.LittleEndian.Uint32(data[8:])
	if version != FormatVersion && version != FormatVersionWDL {
		return nil, fmt.Errorf("checkpoint format version %d, this build reads %d and %d", version, FormatVersion, FormatVersionWDL)
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, errors.New("checksum mismatch: the file is truncated or corrupted")
	}
	hl := int(binary.LittleEndian.Uint32(data[12:]))
	if hl > len(body)-16 {
		return nil, errors.New("header length beyond the end of the file")
	}
	if hl > maxHeaderBytes {
		return nil, fmt.Errorf("a %d-byte header, more than a checkpoint's %d", hl, maxHeaderBytes)
	}
	var h header
	if err := json.Unmarshal(body[16:16+hl], &h); err != nil {
		return nil, fmt.Errorf("bad header: %w", err)
	}
	// A network trained with the opponent's-reply head stored the head's
	// parameters among the playing network's; the head was retired.
	var reply struct {
		Spec struct{ ReplyPolicy bool } `json:"spec"`
	}
	if json.Unmarshal(body[16:16+hl], &reply); reply.Spec.ReplyPolicy {
		return nil, errors.New("the network has the opponent's-reply head, which was retired (docs/retired.md): load it with a build from before the head's removal")
	}
	// The spec says how much to allocate: it must fit in the file first
	// (a checksum proves no origin, so a small file may claim a giant).
	if err := h.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("bad network spec: %w", err)
	}
	if want := formatVersion(h.Spec); version != want {
		return nil, fmt.Errorf("format version %d for a network with value head %q, which version %d holds", version, h.Spec.ValueHead, want)
	}
	if need, have := specFloats(h.Spec), uint64(len(body)-16-hl)/4; need > have {
		return nil, fmt.Errorf("the spec needs %d parameters, the file holds at most %d", need, have)
	}
	p, err := emptyParams(h.Spec)
	if err != nil {
		return nil, err
	}
	arrays := paramArrays(p)
	if floats(arrays) != h.ParamFloats {
		return nil, fmt.Errorf("header says %d parameters, the spec needs %d", h.ParamFloats, floats(arrays))
	}
	r := bytes.NewReader(body[16+hl:])
	for _, a := range arrays {
		if err := readFloats(r, a); err != nil {
			return nil, err
		}
	}
	c := &Checkpoint{Step: h.Step, Generation: h.Generation, Params: p, OptimizerStep: h.OptimizerStep, Meta: h.Meta, Created: h.Created}
	for _, n := range h.Optimizer {
		if n < 0 || n > r.Len()/4 {
			return nil, errors.New("optimizer section beyond the end of the file")
		}
		o := make([]float32, n)
		if err := readFloats(r, o); err != nil {
			return nil, err
		}
		c.Optimizer = append(c.Optimizer, o)
	}
	if h.RNGBytes != r.Len() {
		return nil, fmt.Errorf("%d bytes left for a %d-byte RNG state", r.Len(), h.RNGBytes)
	}
	c.RNG = make([]byte, h.RNGBytes)
	io.ReadFull(r, c.RNG)
	if err := p.Check(); err != nil {
		return nil, err
	}
	return c, nil
}

// specFloats counts the floats of a spec's parameters as the file stores
// them (the trainable tensors and each batch norm's running mean and
// variance), saturating instead of overflowing.
func specFloats(s net.Spec) uint64 {
	var n uint64
	add := func(v uint64) {
		if n += v; n < v {
			n = math.MaxUint64
		}
	}
	for _, t := range s.ParamTensors() {
		size := uint64(1)
		for _, d := range t.Shape {
			hi, lo := bits.Mul64(size, uint64(max(d, 0)))
			if size = lo; hi != 0 {
				size = math.MaxUint64
			}
		}
		add(size)
		if strings.HasSuffix(t.Name, ".gamma") {
			add(2 * size) // the running mean and variance of that batch norm
		}
	}
	return n
}

// emptyParams allocates parameters of the spec's shape.
func emptyParams(s net.Spec) (*net.Params, error) {
	p, err := net.NewParams(s, 0)
	if err != nil {
		return nil, fmt.Errorf("bad network spec: %w", err)
	}
	return p, nil
}

// paramArrays lists every parameter slice of p in file order.
func paramArrays(p *net.Params) [][]float32 {
	var out [][]float32
	for _, l := range p.Layers() {
		out = append(out, l.W, l.Gamma, l.Beta, l.Mean, l.Var)
	}
	for _, d := range p.Denses() {
		out = append(out, d.W, d.B)
	}
	return append(out, p.FromTo.W, p.FromTo.B) // empty without the from-to head
}

func floats(arrays [][]float32) int {
	n := 0
	for _, a := range arrays {
		n += len(a)
	}
	return n
}

func writeFloats(w io.Writer, a []float32) {
	buf := make([]byte, 4*len(a))
	for i, v := range a {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
	w.Write(buf)
}

func readFloats(r io.Reader, a []float32) error {
	buf := make([]byte, 4*len(a))
	if _, err := io.ReadFull(r, buf); err != nil {
		return errors.New("truncated parameter section")
	}
	for i := range a {
		a[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
	}
	return nil
}
