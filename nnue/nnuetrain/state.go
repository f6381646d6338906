package nnuetrain

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/nnue"
)

// The trainer's state file (little endian), what a run resumes from:
//
//	"TABNNUET"                  magic, 8 bytes
//	uint32 version              StateVersion
//	uint32 header length, JSON  the configuration, where the run stands, the caller's notes
//	float32 weights [n], Adam's first moments [n], second moments [n]
//	SHA-256 of everything before it, 32 bytes
//
// n is the parameters of the header's sizes, in nnue.FloatNet's order
// and then the virtual rows when factorised (params).
const StateVersion = 1

// MaxStateFile bounds what LoadState reads: the widest network nnue runs
// (L1 2048) takes about 190 MB.
const MaxStateFile = 256 << 20

var stateMagic = [8]byte{'T', 'A', 'B', 'N', 'N', 'U', 'E', 'T'}

// stateHeader is the JSON header: everything of the Config but Threads,
// where the run stands, and Meta, the caller's (the run's data
// fingerprint, CPU time so far).
type stateHeader struct {
	L1           int             `json:"l1"`
	L2           int             `json:"l2"`
	L3           int             `json:"l3"`
	Batch        int             `json:"batch"`
	LR           float64         `json:"lr"`
	LRDecay      float64         `json:"lr_decay"`
	Lambda       float64         `json:"lambda"`
	K            float64         `json:"k"`
	Factorize    bool            `json:"factorize"`
	QuantAware   bool            `json:"quant_aware"`
	Seed         uint64          `json:"seed"`
	AdamSteps    int64           `json:"adam_steps"`
	Epoch        int             `json:"epoch"`
	Step         int             `json:"step"`
	EpochLoss    float64         `json:"epoch_loss"`
	EpochSamples int64           `json:"epoch_samples"`
	Meta         json.RawMessage `json:"meta,omitempty"`
}

// Save writes the trainer's state to path atomically, with meta (any
// value encoding/json takes; nil for none) in its header.
func (t *Trainer) Save(path string, meta any) error {
	h := stateHeader{L1: t.cfg.Sizes.L1, L2: t.cfg.Sizes.L2, L3: t.cfg.Sizes.L3, Batch: t.cfg.Batch,
		LR: t.cfg.LR, LRDecay: t.cfg.LRDecay, Lambda: t.cfg.Lambda, K: t.cfg.K, Factorize: t.cfg.Factorize, QuantAware: t.cfg.QuantAware, Seed: t.cfg.Seed,
		AdamSteps: t.adamT, Epoch: t.epoch, Step: t.step, EpochLoss: t.epochLoss, EpochSamples: t.epochSamples}
	if meta != nil {
		b, err := json.Marshal(meta)
		if err != nil {
			return fmt.Errorf("nnuetrain: state notes: %w", err)
		}
		h.Meta = b
	}
	hj, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("nnuetrain: state header: %w", err)
	}
	err = atomicfile.Write(path, 0o644, func(w io.Writer) error {
		sum := sha256.New()
		bw := bufio.NewWriterSize(io.MultiWriter(w, sum), 1<<16)
		bw.Write(stateMagic[:])
		bw.Write(binary.LittleEndian.AppendUint32(nil, StateVersion))
		bw.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(hj))))
		bw.Write(hj)
		var buf [4]byte
		for _, xs := range [][]float32{t.p.w, t.m, t.v} {
			for _, x := range xs {
				binary.LittleEndian.PutUint32(buf[:], math.Float32bits(x))
				bw.Write(buf[:])
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		_, err := w.Write(sum.Sum(nil))
		return err
	})
	if err != nil {
		return fmt.Errorf("nnuetrain: save state: %w", err)
	}
	return nil
}

// LoadState reads a state file into a trainer running on threads
// goroutines, and returns the Meta it was saved with. The file is
// checked whole (magic, version, header, length, checksum, finite
// values) before a trainer is made.
func LoadState(path string, threads int) (*Trainer, json.RawMessage, error) {
	b, err := inputfile.ReadFile(path, "training state", MaxStateFile)
	if err != nil {
		return nil, nil, fmt.Errorf("nnuetrain: %w", err)
	}
	t, meta, err := decodeState(b, threads)
	if err != nil {
		return nil, nil, fmt.Errorf("nnuetrain: state %s: %w", path, err)
	}
	return t, meta, nil
}

func decodeState(b []byte, threads int) (*Trainer, json.RawMessage, error) {
	if len(b) < 16+sha256.Size {
		return nil, nil, fmt.Errorf("truncated: %d bytes", len(b))
	}
	if !bytes.Equal(b[:8], stateMagic[:]) {
		return nil, nil, errors.New("not a training state (bad magic)")
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != StateVersion {
		return nil, nil, fmt.Errorf("state version %d, this build reads %d", v, StateVersion)
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) {
		return nil, nil, errors.New("checksum mismatch: the file is damaged")
	}
	hl := int64(binary.LittleEndian.Uint32(b[12:]))
	if 16+hl > int64(len(body)) {
		return nil, nil, fmt.Errorf("truncated: a header of %d bytes in a file of %d", hl, len(b))
	}
	var h stateHeader
	dec := json.NewDecoder(bytes.NewReader(body[16 : 16+hl]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	cfg := Config{Sizes: nnue.Sizes{L1: h.L1, L2: h.L2, L3: h.L3}, Batch: h.Batch, LR: h.LR, LRDecay: h.LRDecay,
		Lambda: h.Lambda, K: h.K, Factorize: h.Factorize, QuantAware: h.QuantAware, Seed: h.Seed, Threads: max(threads, 1)}
	if err := cfg.check(); err != nil {
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	if h.AdamSteps < 0 || h.Epoch < 0 || h.Step < 0 || h.EpochSamples < 0 || math.IsNaN(h.EpochLoss) || math.IsInf(h.EpochLoss, 0) {
		return nil, nil, fmt.Errorf("header: a negative or non-finite position (steps %d, epoch %d, step %d)", h.AdamSteps, h.Epoch, h.Step)
	}
	p := layout(cfg.Sizes, cfg.Factorize)
	data := body[16+hl:]
	if want := int64(p.n) * 3 * 4; int64(len(data)) != want {
		return nil, nil, fmt.Errorf("%d bytes of values, sizes %s need %d", len(data), cfg.Sizes, want)
	}
	// The weights first, checked, then the moments straight into the
	// trainer's arrays.
	read := func(dst []float32, from int) error {
		for i := range dst {
			x := math.Float32frombits(binary.LittleEndian.Uint32(data[4*(from+i):]))
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("value %d is %v", from+i, x)
			}
			dst[i] = x
		}
		return nil
	}
	p.w = make([]float32, p.n)
	if err := read(p.w, 0); err != nil {
		return nil, nil, err
	}
	for i, x := range p.w {
		if c := p.clipOf(i); c > 0 && (x > c || x < -c) {
			return nil, nil, fmt.Errorf("%s value %v beyond its bound %v", p.name(i), x, c)
		}
	}
	t := newTrainer(cfg, p)
	err := read(t.m, p.n)
	if err == nil {
		err = read(t.v, 2*p.n)
	}
	for _, x := range t.v {
		if err == nil && x < 0 {
			err = fmt.Errorf("a negative second moment %v", x)
		}
	}
	if err != nil {
		t.Close()
		return nil, nil, err
	}
	t.adamT, t.epoch, t.step, t.epochLoss, t.epochSamples = h.AdamSteps, h.Epoch, h.Step, h.EpochLoss, h.EpochSamples
	return t, h.Meta, nil
}
