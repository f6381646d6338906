package arena

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/inputfile"
)

// Game results as PGN writes them, from the first colour's view (Red in
// Xiangqi).
const (
	ResultFirstWins  = "1-0"
	ResultSecondWins = "0-1"
	ResultDraw       = "1/2-1/2"
)

// Record is one finished game, written as one JSON line.
type Record struct {
	Match   string `json:"match,omitempty"` // the match label
	Variant string `json:"variant"`
	Index   int    `json:"game"` // game number in the match, from 0
	Pair    int    `json:"pair"` // games 2k and 2k+1 share an opening
	A       string `json:"a"`
	B       string `json:"b"`
	// First plays the first colour (Red in Xiangqi), Second the other.
	First  string `json:"first"`
	Second string `json:"second"`
	// Start is the start position in the game's text format; Moves are
	// all moves from it, the first OpeningPlies of them the opening.
	Start        string   `json:"start"`
	OpeningPlies int      `json:"opening_plies"`
	Moves        []string `json:"moves"`
	Result       string   `json:"result"` // ResultFirstWins, ResultSecondWins or ResultDraw
	Reason       string   `json:"reason"`
	Plies        int      `json:"plies"`
	// EffortA and EffortB are A's and B's mean search work per move in
	// this game (EffortCounter: playouts, alpha-beta nodes), 0 for players
	// that do not count it.
	EffortA float64   `json:"effort_a,omitempty"`
	EffortB float64   `json:"effort_b,omitempty"`
	Millis  int64     `json:"ms"`
	Time    time.Time `json:"time"`
}

// MeanEffort returns A's and B's mean search work per move over recs: the
// mean of the games' means (Record.EffortA, EffortB), 0 when not counted.
func MeanEffort(recs []Record) (a, b float64) {
	var n float64
	for _, r := range recs {
		a += r.EffortA
		b += r.EffortB
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return a / n, b / n
}

// FirstScore is the first colour's score: 1, 0.5 or 0.
func (r Record) FirstScore() float64 {
	switch r.Result {
	case ResultFirstWins:
		return 1
	case ResultSecondWins:
		return 0
	}
	return 0.5
}

// ScoreA is player A's score in the game.
func (r Record) ScoreA() float64 {
	if r.First == r.A {
		return r.FirstScore()
	}
	return 1 - r.FirstScore()
}

func (r Record) check() error {
	switch {
	case r.First == "" || r.Second == "":
		return errors.New("record without player names")
	case r.First == r.Second:
		return fmt.Errorf("record of %q against itself", r.First)
	case r.Result != ResultFirstWins && r.Result != ResultSecondWins && r.Result != ResultDraw:
		return fmt.Errorf("record with result %q", r.Result)
	}
	return nil
}

// recordWriter appends records to LABEL.jsonl (and LABEL.pgn for
// Xiangqi) in a directory; one write per record, synced at close.
type recordWriter struct {
	jsonl, pgn *os.File
}

// SanitizeLabel makes a string safe as a file name: letters, digits and
// ". _ -" kept, runs of anything else replaced by one '_'.
func SanitizeLabel(s string) string {
	var b strings.Builder
	under := false
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' {
			b.WriteRune(c)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	out := strings.Trim(b.String(), "._")
	if out == "" {
		return "match"
	}
	return out
}

func newRecordWriter(dir, label, variant string) (*recordWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("arena: records: %w", err)
	}
	base := filepath.Join(dir, SanitizeLabel(label))
	w := &recordWriter{}
	var err error
	if w.jsonl, err = os.OpenFile(base+".jsonl", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
		return nil, fmt.Errorf("arena: records: %w", err)
	}
	if g, err := game.Lookup(variant); err == nil && g.PGN {
		if w.pgn, err = os.OpenFile(base+".pgn", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
			w.jsonl.Close()
			return nil, fmt.Errorf("arena: records: %w", err)
		}
	}
	return w, nil
}

func (w *recordWriter) write(r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("arena: records: %w", err)
	}
	if _, err := w.jsonl.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("arena: records: %w", err)
	}
	if w.pgn != nil {
		if _, err := io.WriteString(w.pgn, PGN(r)); err != nil {
			return fmt.Errorf("arena: records: %w", err)
		}
	}
	return nil
}

func (w *recordWriter) close() error {
	var errs []error
	for _, f := range []*os.File{w.jsonl, w.pgn} {
		if f != nil {
			errs = append(errs, f.Sync(), f.Close())
		}
	}
	return errors.Join(errs...)
}

// AppendRecord appends one finished game to dir/LABEL.jsonl (and
// LABEL.pgn for Xiangqi), as a match does, so that games played outside a
// match (the dashboard's Play page) are read and rated like the rest.
func AppendRecord(dir, label string, r Record) error {
	if err := r.check(); err != nil {
		return fmt.Errorf("arena: records: %w", err)
	}
	w, err := newRecordWriter(dir, label, r.Variant)
	if err != nil {
		return err
	}
	return errors.Join(w.write(r), w.close())
}

// PGN writes a Xiangqi game record as PGN: the seven-tag roster (White is
// Red, the first colour), the Variant and FEN tags, and the moves in UCI
// notation with the end reason as a comment.
func PGN(r Record) string {
	var b strings.Builder
	date := "????.??.??"
	if !r.Time.IsZero() {
		date = r.Time.UTC().Format("2006.01.02")
	}
	tag := func(k, v string) { fmt.Fprintf(&b, "[%s %s]\n", k, strconv.Quote(v)) }
	event := "tabula arena"
	if r.Match != "" {
		event += " " + r.Match
	}
	tag("Event", event)
	tag("Site", "tabula")
	tag("Date", date)
	tag("Round", strconv.Itoa(r.Index+1))
	tag("White", r.First)
	tag("Black", r.Second)
	tag("Result", r.Result)
	tag("Variant", r.Variant)
	tag("FEN", r.Start)
	tag("SetUp", "1")
	tag("PlyCount", strconv.Itoa(len(r.Moves)))
	b.WriteByte('\n')
	// Move numbers continue the FEN's full-move counter.
	num, black := 1, false
	if f := strings.Fields(r.Start); len(f) >= 6 {
		if n, err := strconv.Atoi(f[5]); err == nil && n > 0 {
			num = n
		}
		black = f[1] == "b"
	}
	var line strings.Builder
	flush := func(tok string) {
		if line.Len() > 0 && line.Len()+1+len(tok) > 79 {
			b.WriteString(line.String())
			b.WriteByte('\n')
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(tok)
	}
	for i, m := range r.Moves {
		switch {
		case !black:
			flush(fmt.Sprintf("%d.", num))
		case i == 0:
			flush(fmt.Sprintf("%d...", num))
		}
		flush(m)
		if black {
			num++
		}
		black = !black
	}
	if r.Reason != "" {
		flush("{" + strings.ReplaceAll(r.Reason, "}", ")") + "}")
	}
	flush(r.Result)
	b.WriteString(line.String())
	b.WriteString("\n\n")
	return b.String()
}

// ReadRecords reads every *.jsonl file of dir (in name order). A last
// line without its newline (a writer killed mid-line) is skipped; any
// other bad line is an error naming the file and line.
func ReadRecords(dir string) ([]Record, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	sort.Strings(files)
	var out []Record
	for _, f := range files {
		recs, err := ReadRecordFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, recs...)
	}
	return out, nil
}

// maxTextFile bounds the text files the arena reads (records, openings):
// a device or a planted giant is refused before it is read.
const maxTextFile = 1 << 30

// ReadRecordFile reads one records file as ReadRecords does.
func ReadRecordFile(path string) ([]Record, error) {
	data, err := inputfile.ReadFile(path, "records file", maxTextFile)
	if err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	recs, err := parseRecords(data)
	if err != nil {
		return nil, fmt.Errorf("arena: %s: %w", path, err)
	}
	return recs, nil
}

func parseRecords(data []byte) ([]Record, error) {
	var out []Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	line := 0
	complete := len(data) == 0 || data[len(data)-1] == '\n'
	total := bytes.Count(data, []byte{'\n'})
	for sc.Scan() {
		line++
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) == 0 {
			continue
		}
		var r Record
		err := json.Unmarshal(t, &r)
		if err == nil {
			err = r.check()
		}
		if err != nil {
			if !complete && line == total+1 {
				break // torn last line
			}
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
