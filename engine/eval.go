package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/player"
)

// The evaluation alpha-beta searches with, chosen by the Eval option:
//
//   - classical: the game's own hand-written evaluation.
//   - learned (the default, defaultEval, for Xiangqi): Xiangqi's efficiently updatable network (package nnue):
//     the file the EvalFile option names, or without one the network
//     that ships in models/ (models/xiangqi.nnue, nnue.Shipped). The
//     alpha-beta mover and the alpha-beta half of the abzero mover
//     search a position wrapped by nnue.Wrap; the abzero mover's network
//     search still reads the plain position.
//
// EvalFile is loaded when it is set, whatever Eval is, so that a missing
// or damaged file (or a FIFO) is reported then and switching Eval costs
// nothing; it overrides the shipped network until it is set empty. The
// learned evaluation is Xiangqi's alone: Eval=learned is reported when
// set (or when the variant changes) for another game, and such a game
// then searches with its classical evaluation and says so in an `info
// string`, as an engine option kept across variants in a GUI should not
// stop the engine from playing them. The first search after a change
// (and after ucinewgame) names the learned network in an `info string
// eval learned FILE sha256 ...` line, FILE being models/xiangqi.nnue for
// the shipped one. A build without a shipped network (or with a damaged
// one) reports Eval=learned without EvalFile when it is set but keeps
// it, since GUIs may send EvalFile after it, and a search of Xiangqi then
// fails rather than play another evaluation than the one asked for.

// Eval option names and values.
const (
	optEval     = "Eval"
	optEvalFile = "EvalFile"

	evalClassical = player.EvalClassical
	evalLearned   = player.EvalLearned
)

// defaultEval is the Eval option's default, which a new searcher
// searches with: the eval knob's engine default (player.Knobs), learned
// since the shipped network measured stronger than the classical
// evaluation at 100 ms a move (docs/nnue.md, "Rounds"); ab: and abzero:
// specs keep classical as their default.
var defaultEval = player.Lookup(player.KnobEval).EngineValue()

// newEvalState is the evaluation of a new searcher: defaultEval.
func newEvalState() evalState { return evalState{learned: defaultEval == evalLearned} }

// evalState is the searcher's evaluation choice and the learned network.
type evalState struct {
	learned bool
	// set: the Eval option was set, rather than left at defaultEval; a
	// variant other than Xiangqi is reported only then.
	set  bool
	file string    // EvalFile as set ("" none: the shipped network)
	net  *nnue.Net // loaded from file (nil without one)
	sum  string    // the file's SHA-256, hex
	// announced: the learned network was named in an info line since it
	// was chosen (or since the last new game).
	announced bool
}

// errNoLearnedNet is a learned evaluation asked for without EvalFile in
// a build that ships no network.
var errNoLearnedNet = errors.New("no learned network ships with this engine: set the EvalFile option to a network file (.nnue, made by tabula nnue train)")

// setEvalOption sets Eval or EvalFile for the variant gameName ("" not
// known yet); ok is false for other names. changed reports a new
// evaluation: alpha-beta's tables, holding the old one's scores, must go.
func (e *evalState) setEvalOption(name, value, gameName string) (ok, changed bool, err error) {
	switch name {
	case optEval:
		if err := player.Lookup(player.KnobEval).Check(value); err != nil {
			return true, false, fmt.Errorf("option %s: %w", optEval, err)
		}
		learned := value == evalLearned
		changed = learned != e.learned
		e.learned, e.set = learned, true
		if changed {
			e.announced = false
		}
		return true, changed, e.check(gameName)
	case optEvalFile:
		value = strings.TrimSpace(value)
		if value == "" {
			e.file, e.net, e.sum, e.announced = "", nil, "", false
			return true, e.learned, e.check(gameName)
		}
		n, sum, err := loadEvalFile(value)
		if err != nil {
			// The network loaded before, if any, stays.
			return true, false, fmt.Errorf("option %s: %w", optEvalFile, err)
		}
		e.file, e.net, e.sum, e.announced = value, n, sum, false
		return true, e.learned, nil
	}
	return false, false, nil
}

// loadEvalFile reads a network file: a regular file within
// nnue.MaxFileSize, decoded and checked (nnue.Decode), and its SHA-256.
func loadEvalFile(path string) (*nnue.Net, string, error) {
	b, err := inputfile.ReadFile(path, "network file", nnue.MaxFileSize)
	if err != nil {
		return nil, "", err
	}
	n, err := nnue.Decode(b)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	sum := sha256.Sum256(b)
	return n, hex.EncodeToString(sum[:]), nil
}

// network returns the learned network: EvalFile's, or without one the
// shipped network, with the name and SHA-256 the info line gives.
func (e *evalState) network() (net *nnue.Net, file, sum string, err error) {
	if e.net != nil {
		return e.net, e.file, e.sum, nil
	}
	net, m, err := nnue.Shipped()
	if errors.Is(err, nnue.ErrNotShipped) {
		return nil, "", "", errNoLearnedNet
	}
	if err != nil {
		return nil, "", "", err
	}
	return net, m.String(), m.SHA256, nil
}

// check reports a learned evaluation the variant gameName cannot search
// with: another game's (when Eval was set: a default is no one's choice
// to report), or no network to be had.
func (e *evalState) check(gameName string) error {
	if !e.learned {
		return nil
	}
	if gameName != "" && gameName != xiangqi.Name {
		if !e.set {
			return nil
		}
		return fmt.Errorf("option %s: learned is Xiangqi's evaluation, and the variant is %s: %s searches with its classical evaluation",
			optEval, gameName, gameName)
	}
	if _, _, _, err := e.network(); err != nil && e.set {
		// Left at the default, a search falls back to the classical
		// evaluation and says so (learnedNet): nothing to refuse here.
		return fmt.Errorf("option %s: %w", optEval, err)
	}
	return nil
}

// learnedNet returns the network alpha-beta evaluates p's game with: nil
// for the classical evaluation (also, with a note for the info line, when
// the learned one is not p's game's, or is the default but no network can
// be had), an error for a learned evaluation set without a network (a
// build shipping none, and no EvalFile).
func (e *evalState) learnedNet(p game.Position) (net *nnue.Net, note string, err error) {
	if !e.learned {
		return nil, "", nil
	}
	if g := p.Game(); g != xiangqi.Name {
		if !e.set {
			return nil, "", nil // the default, no one's choice: nothing to explain
		}
		return nil, fmt.Sprintf("string eval classical: the learned evaluation is Xiangqi's, not %s's", g), nil
	}
	net, file, sum, err := e.network()
	if err != nil {
		if !e.set {
			// The default without a network (a build shipping none):
			// the classical evaluation, said once, rather than no move.
			if e.announced {
				return nil, "", nil
			}
			e.announced = true
			return nil, fmt.Sprintf("string eval classical: %v", err), nil
		}
		return nil, "", fmt.Errorf("option %s is learned: %w", optEval, err)
	}
	if !e.announced {
		e.announced = true
		note = fmt.Sprintf("string eval learned %s sha256 %s net %s kernels %s", file, sum, net.Sizes(), nnue.KernelName())
	}
	return net, note, nil
}

// evalPosition returns the position alpha-beta searches for p, with the
// learned evaluation when it is chosen for p's game, and sends the
// evaluation's info line if it has one.
func (e *evalState) evalPosition(p alphabeta.Position, info func(string)) (alphabeta.Position, error) {
	net, note, err := e.learnedNet(p)
	if err != nil {
		return nil, err
	}
	if note != "" {
		info(note)
	}
	if net == nil {
		return p, nil
	}
	w, err := nnue.Wrap(net, p)
	if err != nil {
		return nil, fmt.Errorf("option %s: %w", optEval, err)
	}
	return w, nil
}
