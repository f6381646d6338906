package nnuetrain

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/nnue/nnuedata"
)

// Sample is one training position in memory.
type Sample struct {
	// Squares is the record's board: the square of each piece slot
	// (nnuedata.SlotPiece), nnuedata.NoSquare when off the board.
	Squares [nnuedata.Slots]uint8
	// Score is the search's score for the side to move in centi-units,
	// within LoadOptions.MaxScore.
	Score int16
	// Result is the game's result for the side to move: 1, 0 or -1.
	Result int8
	// Side is the side to move: 0 Red, 1 Black.
	Side uint8
}

// SampleBytes is the memory a sample takes.
const SampleBytes = int(unsafe.Sizeof(Sample{}))

// slotColor and slotType are nnuedata.SlotPiece as tables.
var (
	slotColor [nnuedata.Slots]game.Color
	slotType  [nnuedata.Slots]int
)

func init() {
	for i := range nnuedata.Slots {
		slotColor[i], slotType[i] = nnuedata.SlotPiece(i)
	}
}

// features appends the active features of perspective persp of s to dst:
// nnue.Feature of every piece on the board, the definition the network's
// accumulators use (nnue.AppendFeatures lists the same set). ok is false
// when persp's general is not in its palace, which Load refuses.
func features(dst []uint16, s *Sample, persp game.Color) ([]uint16, bool) {
	general := int(s.Squares[int(persp)*16])
	for i, sq := range s.Squares {
		if sq == nnuedata.NoSquare {
			continue
		}
		f, ok := nnue.Feature(persp, general, slotColor[i], slotType[i], int(sq))
		if !ok {
			return dst, false
		}
		dst = append(dst, uint16(f))
	}
	return dst, true
}

// LoadOptions say which records Load keeps and how it splits them.
type LoadOptions struct {
	// Dirs are the directories of shards, read in this order.
	Dirs []string
	// ValidFraction is the share of games held out for validation.
	ValidFraction float64
	// KeepMate keeps positions whose score is a mate (capped like any
	// other); by default they are skipped: a mate score says how far the
	// mate is, not how good the position is.
	KeepMate bool
	// MaxScore caps |score| (0: no cap). The sigmoid saturates past a few
	// K anyway; a cap keeps won positions from dominating the squared
	// error's scale.
	MaxScore int
	// MaxRecords stops after this many kept positions (0: all).
	MaxRecords int
}

// DefaultValidFraction is the share of games held out by default.
const DefaultValidFraction = 0.05

// Data is the loaded training and validation positions.
type Data struct {
	Train, Valid []Sample
	Stats        LoadStats
}

// LoadStats count what Load read and kept.
type LoadStats struct {
	Shards, Records   int // read
	Games, ValidGames int // games of the kept positions, games held out
	SkippedMate       int // mate scores left out
	Capped            int // scores capped to MaxScore
	// Fingerprint is a hash of every kept sample and its split, in order:
	// a resumed run checks that it trains on the same data.
	Fingerprint uint64
}

// MemoryBytes is the memory the samples take, and the epoch's order.
func (d *Data) MemoryBytes() int64 {
	return int64(len(d.Train)+len(d.Valid))*int64(SampleBytes) + int64(len(d.Train))*4
}

// validSalt keeps the held-out games independent of anything else drawn
// from a game's seed.
const validSalt = 0x76616c6964617465

// heldOut says whether the game seeded gameSeed is a validation game: a
// hash of the seed against the fraction, so the split is the same
// whatever the order of directories, the training seed or MaxRecords.
func heldOut(gameSeed uint64, fraction float64) bool {
	if fraction <= 0 {
		return false
	}
	return float64(mix64(gameSeed^validSalt)>>11)/(1<<53) < fraction
}

// mix64 is SplitMix64's finaliser.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// errFull stops reading at MaxRecords.
var errFull = errors.New("full")

// Load reads every record of opt.Dirs into memory: the positions of the
// held-out games into Valid, the others into Train, in the order read. A
// record whose general stands outside its palace (no feature set for it)
// is an error naming its shard.
func Load(ctx context.Context, opt LoadOptions) (*Data, error) {
	if len(opt.Dirs) == 0 {
		return nil, errors.New("nnuetrain: no data directory")
	}
	if !(opt.ValidFraction >= 0 && opt.ValidFraction < 1) {
		return nil, fmt.Errorf("nnuetrain: validation fraction %v: want 0 <= f < 1", opt.ValidFraction)
	}
	if opt.MaxScore < 0 || opt.MaxRecords < 0 {
		return nil, fmt.Errorf("nnuetrain: negative score cap %d or record limit %d", opt.MaxScore, opt.MaxRecords)
	}
	// Sized from the headers first, so that tens of millions of samples
	// take one allocation: training samples fill it from the front,
	// validation ones from the back.
	total := 0
	for _, dir := range opt.Dirs {
		_, n, err := nnuedata.Count(dir)
		if err != nil {
			return nil, fmt.Errorf("nnuetrain: %w", err)
		}
		total += n
	}
	if opt.MaxRecords > 0 {
		total = min(total, opt.MaxRecords)
	}
	all := make([]Sample, total)
	front, back := 0, total
	var st LoadStats
	var feats []uint16
	fp := uint64(len(opt.Dirs))
	for _, dir := range opt.Dirs {
		err := nnuedata.ReadDir(dir, func(h *nnuedata.Header, recs []nnuedata.Record) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			st.Shards++
			st.Records += len(recs)
			i := 0
			for j, n := range h.GameRecords {
				valid := heldOut(nnuedata.GameSeed(h.Seed, h.Seq, j), opt.ValidFraction)
				kept := 0
				for _, r := range recs[i : i+n] {
					if r.Mate && !opt.KeepMate {
						st.SkippedMate++
						continue
					}
					if front == back {
						return errFull
					}
					s := Sample{Squares: r.Squares, Score: r.Score, Result: r.Result, Side: r.Side}
					if c := opt.MaxScore; c > 0 && (int(s.Score) > c || int(s.Score) < -c) {
						s.Score = int16(max(min(int(s.Score), c), -c))
						st.Capped++
					}
					var ok bool
					for c := range game.Color(2) {
						if feats, ok = features(feats[:0], &s, c); !ok {
							return fmt.Errorf("nnuetrain: %s, shard %d: a record whose general is outside its palace (%s)", dir, h.Seq, r.FEN())
						}
					}
					if valid {
						back--
						all[back] = s
					} else {
						all[front] = s
						front++
					}
					fp = mix64(fp ^ sampleHash(&s, valid))
					kept++
				}
				i += n
				if kept > 0 {
					st.Games++
					if valid {
						st.ValidGames++
					}
				}
			}
			return nil
		})
		if errors.Is(err, errFull) {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("nnuetrain: %w", err)
		}
	}
	// Mate scores skipped leave a gap between the two ends: close it so
	// the samples stay one block (a copy of the smaller side).
	if front < back {
		n := copy(all[front:], all[back:])
		all = all[:front+n]
		back = front
	}
	st.Fingerprint = fp
	return &Data{Train: all[:front:front], Valid: all[back:], Stats: st}, nil
}

// sampleHash mixes a sample's bytes and its split.
func sampleHash(s *Sample, valid bool) uint64 {
	var h uint64 = 0x736d706c
	for i := 0; i < len(s.Squares); i += 8 {
		var w uint64
		for k := range 8 {
			w |= uint64(s.Squares[i+k]) << (8 * k)
		}
		h = mix64(h ^ w)
	}
	v := uint64(uint16(s.Score)) | uint64(uint8(s.Result))<<16 | uint64(s.Side)<<24
	if valid {
		v |= 1 << 32
	}
	return mix64(h ^ v)
}
