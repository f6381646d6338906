package dashboard

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/selfplay"
)

// The run's files the dashboard reads come from another process (the
// trainer) or the disk: they are opened through inputfile (a FIFO, device
// or directory at their path is refused, never waited on), bounded in
// size, and parsed once: a page polling the status every few seconds
// must not parse a long run's whole metrics file each time (a 19 MB one
// took 0.6 s, and 6 s beside chart renders).
const (
	maxMetricsBytes = 1 << 30
	maxGamesBytes   = 4 << 30
	maxArenaBytes   = 1 << 30
	maxConfigBytes  = 1 << 20
	// maxLineBytes bounds one JSON line; a longer one is skipped.
	maxLineBytes = 16 << 20
)

// jsonlFile follows an append-only JSON-lines file: each update parses
// only the complete lines appended since the last one. The file is known
// by its identity, size and modification time; one replaced, shrunk or
// rewritten under the last line read is parsed again from the start. A
// cut-off last line waits for the rest of it.
type jsonlFile struct {
	what string // the file's kind in errors
	max  int64
	info fs.FileInfo // of the file last read whole; nil: none
	off  int64       // the bytes consumed: complete lines
}

// update brings the caller's state up to date with the file at path:
// reset forgets what was parsed, line takes each new complete line (its
// bytes without the newline, valid during the call, and its offset). A
// missing file reads as empty.
func (j *jsonlFile) update(path string, reset func(), line func(b []byte, off int64)) error {
	f, _, err := inputfile.Open(path, j.what, j.max)
	if errors.Is(err, fs.ErrNotExist) {
		if j.info != nil || j.off > 0 {
			reset()
		}
		j.info, j.off = nil, 0
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if j.info != nil && os.SameFile(j.info, st) && st.Size() == j.info.Size() && st.ModTime().Equal(j.info.ModTime()) {
		return nil
	}
	if j.info == nil || !os.SameFile(j.info, st) || st.Size() < j.off || !endsLine(f, j.off) {
		reset()
		j.off = 0
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f, j.off, st.Size()-j.off), 64<<10)
	pos, start := j.off, j.off
	var long []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		pos += int64(len(chunk))
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong && len(long)+len(chunk) <= maxLineBytes {
				long = append(long, chunk...)
			} else {
				tooLong, long = true, long[:0]
			}
			continue
		}
		if errors.Is(err, io.EOF) {
			break // a cut-off last line is read once it is whole
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", j.what, path, err)
		}
		b := chunk
		if len(long) > 0 {
			long = append(long, chunk...)
			b = long
		}
		if !tooLong && len(b) <= maxLineBytes {
			line(b[:len(b)-1], start)
		}
		long, tooLong = long[:0], false
		j.off, start = pos, pos
	}
	j.info = st
	return nil
}

// endsLine reports whether the byte before off is a newline (off 0: the
// start), so that a file rewritten in place is not read from the middle
// of a line.
func endsLine(f *os.File, off int64) bool {
	if off == 0 {
		return true
	}
	var b [1]byte
	n, _ := f.ReadAt(b[:], off-1)
	return n == 1 && b[0] == '\n'
}

// metricsCache holds the run's metrics lines, parsed.
type metricsCache struct {
	mu   sync.Mutex
	file jsonlFile
	ms   []metrics.Metric
}

// read returns the metrics of the file at path (a line that does not
// decode, cut off by a crash, is skipped). The slice is shared: read only.
func (c *metricsCache) read(path string) ([]metrics.Metric, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.file.update(path, func() { c.ms = nil }, func(b []byte, _ int64) {
		var m metrics.Metric
		if json.Unmarshal(b, &m) == nil {
			c.ms = append(c.ms, m)
		}
	})
	return c.ms[:len(c.ms):len(c.ms)], err
}

// gameLine is a sampled self-play game as the list shows it, and where
// its line is in the file.
type gameLine struct {
	id         uint64
	generation int
	result     string
	plies      int
	off        int64
	n          int
}

// gamesCache lists the run's sampled self-play games; a game itself is
// read from its line when asked for, so that the server does not hold
// every game's searches.
type gamesCache struct {
	mu    sync.Mutex
	file  jsonlFile
	games []gameLine
}

func (c *gamesCache) list(path string) ([]gameLine, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.update(path)
	return c.games[:len(c.games):len(c.games)], err
}

func (c *gamesCache) update(path string) error {
	return c.file.update(path, func() { c.games = nil }, func(b []byte, off int64) {
		var g selfplay.LiveGame
		if json.Unmarshal(b, &g) == nil {
			c.games = append(c.games, gameLine{id: g.ID, generation: g.Generation, result: g.Result, plies: len(g.Moves), off: off, n: len(b)})
		}
	})
}

// game reads game i of the file at path.
func (c *gamesCache) game(path string, i int) (selfplay.LiveGame, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.update(path); err != nil {
		return selfplay.LiveGame{}, err
	}
	if i >= len(c.games) {
		return selfplay.LiveGame{}, fmt.Errorf("no self-play game %d (%d recorded)", i, len(c.games))
	}
	f, _, err := inputfile.Open(path, c.file.what, c.file.max)
	if err != nil {
		return selfplay.LiveGame{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return selfplay.LiveGame{}, err
	}
	if c.file.info == nil || !os.SameFile(st, c.file.info) {
		return selfplay.LiveGame{}, fmt.Errorf("%s %s was replaced while it was read: ask again", c.file.what, path)
	}
	l := c.games[i]
	b := make([]byte, l.n)
	if _, err := f.ReadAt(b, l.off); err != nil {
		return selfplay.LiveGame{}, fmt.Errorf("%s %s: %w", c.file.what, path, err)
	}
	var g selfplay.LiveGame
	if err := json.Unmarshal(b, &g); err != nil {
		return selfplay.LiveGame{}, fmt.Errorf("%s %s: game %d: %w", c.file.what, path, i, err)
	}
	return g, nil
}

// checkRegular refuses what at path unless it is a regular file of at
// most max bytes (a missing file passes: the reader says so): the
// readers of other packages (records, charts) open with os.Open, which
// a FIFO would hold for good.
func checkRegular(path, what string, max int64) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return st, inputfile.Check(path, what, st, max)
}

// arenaFiles lists the run's records files (RUN/arena/*.jsonl), each
// checked to be a regular file.
func arenaFiles(dir string) ([]string, []fs.FileInfo, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	infos := make([]fs.FileInfo, len(files))
	for i, f := range files {
		st, err := checkRegular(f, "records file", maxArenaBytes)
		if err != nil {
			return nil, nil, err
		}
		infos[i] = st
	}
	return files, infos, nil
}

// arenaCache lists the games of the run's records files (RUN/arena), each
// file read again only when its size or time changed: the page asks for
// the list every 15 s.
type arenaCache struct {
	mu    sync.Mutex
	files map[string]arenaList
}

type arenaList struct {
	size int64
	mod  time.Time
	refs []GameRef
}

// refs lists the games of the records files in dir, the newest file
// first.
func (c *arenaCache) refs(dir string) ([]GameRef, error) {
	files, infos, err := arenaFiles(dir)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := make(map[string]arenaList, len(files))
	var out []GameRef
	for k := len(files) - 1; k >= 0; k-- {
		f, st := files[k], infos[k]
		if st == nil {
			continue // gone since it was listed
		}
		l, ok := c.files[f]
		if !ok || l.size != st.Size() || !l.mod.Equal(st.ModTime()) {
			recs, err := arena.ReadRecordFile(f)
			if err != nil {
				return nil, err
			}
			l = arenaList{size: st.Size(), mod: st.ModTime()}
			for i, r := range recs {
				l.refs = append(l.refs, GameRef{Source: "arena/" + filepath.Base(f), Index: i,
					Label: fmt.Sprintf("%s: %s vs %s", r.Match, r.First, r.Second), Result: r.Result, Plies: len(r.Moves)})
			}
		}
		kept[f] = l
		out = append(out, l.refs...)
	}
	c.files = kept
	return out, nil
}

// Charts are rendered by charts.Render, which reads the whole metrics
// file and the evaluation games for each chart: one at a time (a page
// asks for fourteen at once, and twenty requests rendering together took
// both cores from /api/status), each kept until the files it is drawn
// from change.
const (
	chartRenders = 1
	// chartFresh: a chart rendered this recently is served even though
	// the files changed since (a run being trained appends every few
	// seconds; the page refreshes its charts every 30 s).
	chartFresh = 10 * time.Second
)

// chartCache holds the last rendering of each chart.
type chartCache struct {
	sem    chan struct{}
	mu     sync.Mutex
	byName map[string]*chartEntry
}

type chartEntry struct {
	done      bool
	version   string
	made      time.Time
	svg       []byte
	drawn     bool
	err       error
	rendering chan struct{} // closed when the rendering under way ends
}

func newChartCache() *chartCache {
	return &chartCache{sem: make(chan struct{}, chartRenders), byName: map[string]*chartEntry{}}
}

// get returns chart name as rendered from the files' version, rendering
// it when the cached one is older (and not fresh). Requests for a chart
// being rendered wait for that rendering.
func (c *chartCache) get(ctx context.Context, name string, version func() (string, error), render func(io.Writer) (bool, error)) ([]byte, bool, error) {
	for {
		v, err := version()
		if err != nil {
			return nil, false, err
		}
		c.mu.Lock()
		e := c.byName[name]
		if e == nil {
			e = &chartEntry{}
			c.byName[name] = e
		}
		if e.done && (e.version == v || time.Since(e.made) < chartFresh) {
			svg, drawn, err := e.svg, e.drawn, e.err
			c.mu.Unlock()
			return svg, drawn, err
		}
		if ch := e.rendering; ch != nil {
			c.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, false, ctx.Err()
			}
		}
		ch := make(chan struct{})
		e.rendering = ch
		c.mu.Unlock()
		select {
		case c.sem <- struct{}{}:
		case <-ctx.Done():
			c.mu.Lock()
			e.rendering = nil
			close(ch)
			c.mu.Unlock()
			return nil, false, ctx.Err()
		}
		var buf bytes.Buffer
		drawn, err := render(&buf)
		<-c.sem
		c.mu.Lock()
		e.done, e.version, e.made, e.svg, e.drawn, e.err = true, v, time.Now(), buf.Bytes(), drawn, err
		e.rendering = nil
		close(ch)
		c.mu.Unlock()
		return e.svg, drawn, err
	}
}

// chartVersion names the state of the files a run's charts are drawn
// from: the config, the metrics and the records (their sizes and times).
// Each must be a regular file.
func chartVersion(run rundir.Dir) (string, error) {
	var b strings.Builder
	add := func(path string, st fs.FileInfo) {
		if st == nil {
			fmt.Fprintf(&b, "%s -\n", filepath.Base(path))
			return
		}
		fmt.Fprintf(&b, "%s %d %d\n", filepath.Base(path), st.Size(), st.ModTime().UnixNano())
	}
	for _, f := range []struct {
		path, what string
		max        int64
	}{{run.Config(), "config", maxConfigBytes}, {run.Metrics(), "metrics", maxMetricsBytes}} {
		st, err := checkRegular(f.path, f.what, f.max)
		if err != nil {
			return "", err
		}
		add(f.path, st)
	}
	files, infos, err := arenaFiles(run.Arena())
	if err != nil {
		return "", err
	}
	for i, f := range files {
		add(f, infos[i])
	}
	return b.String(), nil
}
