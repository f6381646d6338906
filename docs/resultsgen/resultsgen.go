// Package resultsgen writes docs/results.md from the records in
// docs/results.jsonl, one current figure a line, as the option table
// writes docs/config.md. Adding a figure is one line of the records file
// and `go test ./docs/resultsgen -update`; the test fails while the
// committed results.md is not what the records make.
package resultsgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxCell is the most characters a table cell of results.md may hold:
// a figure says its number and links to the evidence for the rest.
const MaxCell = 300

// Record is one current figure: a line of docs/results.jsonl.
type Record struct {
	Section  string   `json:"section"`  // a Section's key
	Figure   string   `json:"figure"`   // what was measured and what it read
	Command  string   `json:"command"`  // the command or script that gives it
	Machine  string   `json:"machine"`  // "EPYC", "Xeon", "Xeon (AMX)", ...
	Date     string   `json:"date"`     // YYYY-MM-DD, or a range from one
	Seeds    string   `json:"seeds"`    // the seeds, or "-" where none enter
	Evidence []string `json:"evidence"` // docs-relative links: "notebook/lion.md#anchor", "../models/lion.md"
}

// Section is a table of results.md, in the order they are written.
type Section struct {
	Key, Title, Intro string
}

// Sections are results.md's tables; a record names one by its key.
var Sections = []Section{
	{"learning", "Learning", `What the presets and their continuations learn in their budget. The Xiangqi continuation's curve,
every placed network against the CPU-hours of training after the shipped one, in one Bradley-Terry
fit of all their placement games (` + "`docs/repro/xiangqi-continuation-plot.sh`" + ` redraws it from the committed
games, ` + "`docs/repro/xiangqi-placements.jsonl.gz`" + `; the branches behind it are logged in
[notebook/xiangqi-selfplay.md](notebook/xiangqi-selfplay.md#the-continuations-branches-in-one-table-2026-11-29-to-2026-12-07)):

![Xiangqi continuation against CPU-hours](images/xiangqi-continuation.png)

The Connect Four and Catch the Lion rows were measured when self-play ran fp32 by default; since
2026-11-28 it runs ` + "`auto`" + ` (8 bits where the CPU has VNNI), which at equal simulations lost nothing
measurable (the SPRTs under Speed) but has not been rerun through these 30-minute benchmarks.
` + "`docs/repro/learning.sh GAME MINUTES SEED...`" + ` trains and evaluates; the 200-game matches are
` + "`tabula arena -variant GAME -a net:RUN,sims=64 -b ab:depth=N -games 200 -opening-plies 4`" + `.`},
	{"engines", "Engines and players", `The searches and the networks as players: against Fairy-Stockfish, against each other, and on
fixed sets of positions judged by an exact or a stronger player.`},
	{"models", "Shipped models", `One trained network per game ships in ` + "`models/`" + ` (embedded in the binary; ` + "`net:GAME`" + `), and Xiangqi's
learned evaluation (` + "`eval=learned`" + `); each card gives the command, commit, seed, CPU-hours and machine,
and its figures in full.`},
	{"speed", "Speed", "`tabula bench` ([bench.md](bench.md)) measures these on the machine at hand. The rows are the last\n" +
		"figures taken side by side with their outside reference; the earlier ones, from every machine, are\n" +
		"in [notebook/speed.md](notebook/speed.md#the-speed-figures-as-resultsmd-held-them-to-2026-12-07)."},
}

// Read parses the records file: one JSON object a line, every field
// given, no field unknown. Blank lines are skipped.
func Read(data []byte) ([]Record, error) {
	var out []Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r Record
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("line %d: more than one record", n)
		}
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

var datePattern = regexp.MustCompile(`^20[0-9]{2}-[01][0-9](-[0-3][0-9])?`)

func (r Record) check() error {
	if !hasSection(r.Section) {
		return fmt.Errorf("no section %q", r.Section)
	}
	for _, f := range []struct{ name, v string }{
		{"figure", r.Figure}, {"command", r.Command}, {"machine", r.Machine}, {"date", r.Date}, {"seeds", r.Seeds},
	} {
		if strings.TrimSpace(f.v) == "" {
			return fmt.Errorf("%s is empty", f.name)
		}
	}
	if !datePattern.MatchString(r.Date) {
		return fmt.Errorf("date %q does not start YYYY-MM", r.Date)
	}
	if len(r.Evidence) == 0 {
		return fmt.Errorf("%q links to no evidence", r.Figure)
	}
	return nil
}

func hasSection(key string) bool {
	for _, s := range Sections {
		if s.Key == key {
			return true
		}
	}
	return false
}

// Render writes results.md from the records: each section's table in
// Sections' order, its rows in the records' order. A cell over MaxCell
// characters is an error naming the figure.
func Render(records []Record) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`# Results: what the project does now

Generated from [results.jsonl](results.jsonl) by ` + "`go test ./docs/resultsgen -update`" + `; do not edit by
hand. One row a current figure, with the command that gives it, the machine, the date, the seeds
and a link to the evidence (a notebook section, a card or committed game records). A new result is
one line added to results.jsonl and the command above; a figure that is superseded leaves the file,
its log stays in the notebook.

Machines: "EPYC" is a 2-core AMD EPYC (Zen 4) with AVX-512, "Xeon" a 2-core Intel Xeon with AVX-512
("AMX": a later one with AMX tiles). Every run is from scratch on two cores unless the row says
otherwise. The experiments behind the rows are in [notebook/](notebook/README.md), the outside
Xiangqi ladder in [xiangqi-ladder.md](xiangqi-ladder.md).
`)
	for _, s := range Sections {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", s.Title, s.Intro)
		b.WriteString("| figure | command | machine | date | seeds | evidence |\n|---|---|---|---|---|---|\n")
		for _, r := range records {
			if r.Section != s.Key {
				continue
			}
			links := make([]string, len(r.Evidence))
			for i, e := range r.Evidence {
				links[i] = link(e)
			}
			cells := []string{r.Figure, "`" + r.Command + "`", r.Machine, r.Date, r.Seeds, strings.Join(links, ", ")}
			for i, c := range cells {
				c = strings.ReplaceAll(c, "|", `\|`)
				if n := utf8.RuneCountInString(c); n > MaxCell {
					return nil, fmt.Errorf("%q: a cell of %d characters (at most %d): %.60s...", r.Figure, n, MaxCell, c)
				}
				cells[i] = c
			}
			fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
		}
	}
	return b.Bytes(), nil
}

// link writes an evidence path as a markdown link named by its file.
func link(target string) string {
	path, _, _ := strings.Cut(target, "#")
	name := strings.TrimPrefix(path, "../")
	return "[" + name + "](" + target + ")"
}
