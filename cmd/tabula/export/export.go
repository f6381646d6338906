package export

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all" // registers every game
	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/onnx"
	"github.com/tabula-zero/tabula/rundir"
)

// maxSamples bounds -samples (each sample runs the slow reference pass).
const maxSamples = 100000

type options struct {
	newGame    string
	seed       uint64
	checkpoint string
	out        string
	samples    int
	samplesOut string
}

// parseFlags reads the command line. -h prints the usage to stdout and
// returns flag.ErrHelp.
func parseFlags(args []string, stdout io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	var errs bytes.Buffer
	fs.SetOutput(&errs)
	fs.StringVar(&o.newGame, "new", "", "export a freshly initialised preset network for this game (connect4, lion, xiangqi) instead of a checkpoint")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the -new network's initialisation and of the sample games")
	fs.StringVar(&o.checkpoint, "checkpoint", "", "checkpoint `FILE` to export, or a run directory (its best checkpoint)")
	fs.StringVar(&o.out, "o", "", "write the ONNX model to `FILE` (required); a FILE ending in .ckpt gets the network as a playing checkpoint instead (no optimizer state: what models/ ships)")
	fs.IntVar(&o.samples, "samples", 0, "also write `N` positions from seeded random play with the native network's outputs (needs -samples-out)")
	fs.StringVar(&o.samplesOut, "samples-out", "", "write the samples as JSON to `FILE`")
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: tabula export (-checkpoint FILE|RUN|GAME | -new GAME [-seed S]) -o model.onnx|network.ckpt [-samples N -samples-out FILE.json]\n\n")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(&errs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, fmt.Errorf("export: %v", err)
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("export: unexpected argument %q", fs.Arg(0))
	case (o.newGame == "") == (o.checkpoint == ""):
		return o, errors.New("export: give exactly one of -new GAME and -checkpoint FILE")
	case o.out == "":
		return o, errors.New("export: -o FILE is required")
	case o.samples < 0 || o.samples > maxSamples:
		return o, fmt.Errorf("export: -samples %d out of range [0, %d]", o.samples, maxSamples)
	case o.samples > 0 && o.samplesOut == "":
		return o, errors.New("export: -samples needs -samples-out FILE.json")
	case o.samples == 0 && o.samplesOut != "":
		return o, errors.New("export: -samples-out needs -samples N (N > 0)")
	case o.samplesOut != "" && filepath.Clean(o.samplesOut) == filepath.Clean(o.out):
		return o, errors.New("export: -o and -samples-out name the same file")
	}
	// Refused now rather than after the work: renaming a file over a
	// device or a FIFO would put a plain file in its place.
	for _, f := range []string{o.out, o.samplesOut} {
		if f == "" {
			continue
		}
		if err := atomicfile.CheckTarget(f); err != nil {
			return o, fmt.Errorf("export: %w", err)
		}
	}
	return o, nil
}

// run is the whole command: parse args, build or load the network, write
// the model (and samples), report on stdout.
func run(args []string, stdout io.Writer) error {
	o, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	c, meta, err := network(o)
	if err != nil {
		return err
	}
	p := c.Params
	// The model's input planes are one of the game's encodings (the
	// metadata names which): a network of an encoder this build does not
	// have would export a model nothing here can feed.
	g, err := gameOf(p)
	if err != nil {
		return fmt.Errorf("export: %s: %w", meta.Extra["source"], err)
	}
	// Build everything before writing, so that an error leaves no files.
	var model bytes.Buffer
	if strings.HasSuffix(o.out, checkpoints.Ext) {
		data, err := checkpoints.Encode(playing(c, meta))
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		model.Write(data)
	} else if err := onnx.Export(&model, p, meta); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	var samples []onnx.Sample
	if o.samples > 0 {
		if samples, err = onnx.Samples(g, p, o.samples, o.seed); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	if err := atomicfile.WriteBytes(o.out, model.Bytes(), 0o644); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	s := p.Spec
	fmt.Fprintf(stdout, "wrote %s: %s network (encoder %d), %d blocks x %d filters, input %dx%dx%d, %d actions, %d bytes, sha256 %x\n",
		o.out, s.Game, s.EncoderVersion, s.Blocks, s.Filters, s.Channels, s.Height, s.Width, s.Actions, model.Len(), sha256.Sum256(model.Bytes()))
	if o.samples > 0 {
		err := atomicfile.Write(o.samplesOut, 0o644, func(w io.Writer) error { return onnx.WriteSamples(w, samples) })
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s: %d positions from random play (seed %d)\n", o.samplesOut, len(samples), o.seed)
	}
	return nil
}

// gameOf returns p's game with p's encoder.
func gameOf(p *net.Params) (game.Game, error) {
	g, err := game.Lookup(p.Spec.Game)
	if err != nil {
		return game.Game{}, err
	}
	return g.WithEncoder(p.Spec.EncoderVersion)
}

// network returns the parameters to export and the metadata that records
// where they came from.
func network(o options) (*checkpoints.Checkpoint, onnx.Metadata, error) {
	if o.newGame != "" {
		g, err := game.Lookup(o.newGame)
		if err != nil {
			return nil, onnx.Metadata{}, fmt.Errorf("export: -new: %w", err)
		}
		spec, err := configs.PresetSpec(g.Name)
		if err != nil {
			return nil, onnx.Metadata{}, fmt.Errorf("export: -new: %w", err)
		}
		p, err := net.NewParams(spec, o.seed)
		if err != nil {
			return nil, onnx.Metadata{}, fmt.Errorf("export: -new: %w", err)
		}
		return &checkpoints.Checkpoint{Params: p}, onnx.Metadata{Extra: map[string]string{
			"source": "new", "seed": strconv.FormatUint(o.seed, 10),
		}}, nil
	}
	c, file, err := rundir.OpenCheckpoint(o.checkpoint)
	if err != nil {
		return nil, onnx.Metadata{}, fmt.Errorf("export: %w", err)
	}
	return c, onnx.Metadata{Extra: map[string]string{
		"source":     "checkpoint " + filepath.Base(file),
		"step":       strconv.FormatInt(c.Step, 10),
		"generation": strconv.Itoa(c.Generation),
	}}, nil
}

// playing is c without its training state (optimizer buffers, RNG): the
// network, its step, generation, notes and date, and where it came from.
func playing(c *checkpoints.Checkpoint, meta onnx.Metadata) *checkpoints.Checkpoint {
	m := map[string]string{}
	maps.Copy(m, c.Meta)
	maps.Copy(m, meta.Extra)
	return &checkpoints.Checkpoint{Step: c.Step, Generation: c.Generation, Params: c.Params, Meta: m, Created: c.Created}
}
