package dashboard

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/metrics/charts"
	"github.com/tabula-zero/tabula/rundir"
)

// A dashboard shows runs: its own first, then those added by Compare.
// The page draws every run's charts together and shows one run's status,
// games and matches at a time (?run=NAME; the first without it).
type runView struct {
	name string // as the page labels the run: unique among the runs
	dir  rundir.Dir

	metricsCache metricsCache
	gamesCache   gamesCache
	arenaCache   arenaCache
}

func newRunView(dir string) *runView {
	v := &runView{dir: rundir.Dir(dir)}
	v.metricsCache.file = jsonlFile{what: "metrics", max: maxMetricsBytes}
	v.gamesCache.file = jsonlFile{what: "self-play games", max: maxGamesBytes}
	return v
}

// config is the run's frozen config, read only when config.yaml is a
// regular file (rundir reads it with os.ReadFile, which a FIFO would
// hold).
func (v *runView) config() (*configs.Config, error) {
	if _, err := checkRegular(v.dir.Config(), "config", maxConfigBytes); err != nil {
		return nil, err
	}
	return v.dir.FrozenConfig()
}

// metrics reads the run's metrics lines (a cut-off last line is skipped):
// those appended since the last request, the rest from memory. The slice
// is shared: read only.
func (v *runView) metrics() ([]metrics.Metric, error) {
	return v.metricsCache.read(v.dir.Metrics())
}

// errNoRun answers a request about a run to a dashboard of none (the Play
// page alone).
var errNoRun = errors.New("no run to show: this server has only the Play page")

// view is the run a request names (?run=NAME), the dashboard's own when
// it names none.
func (s *Server) view(r *http.Request) (*runView, error) {
	if len(s.runs) == 0 {
		return nil, errNoRun
	}
	name := r.URL.Query().Get("run")
	if name == "" {
		return s.runs[0], nil
	}
	var names []string
	for _, v := range s.runs {
		if v.name == name {
			return v, nil
		}
		names = append(names, strconv.Quote(v.name))
	}
	return nil, fmt.Errorf("no run %q here (runs: %s)", name, strings.Join(names, ", "))
}

// runList serves /api/runs: the runs' names, the dashboard's own first.
func (s *Server) runList(w http.ResponseWriter, _ *http.Request) {
	names := []string{}
	for _, v := range s.runs {
		names = append(names, v.name)
	}
	s.writeJSON(w, names)
}

// Compare adds run directories whose charts the page draws beside the
// run's own, each series labelled with its run's name (the directory's
// base name, with its parent's where two share one), and whose status,
// games and matches it shows when asked.
func (s *Server) Compare(dirs ...string) {
	for _, d := range dirs {
		s.runs = append(s.runs, newRunView(d))
		s.hidePath(d)
	}
	s.nameRuns()
}

// nameRuns names each run by as many trailing elements of its path as
// tell it from the other directories; a directory given twice is told
// apart by a number.
func (s *Server) nameRuns() {
	paths := make([][]string, len(s.runs))
	for i, r := range s.runs {
		abs, err := filepath.Abs(string(r.dir))
		if err != nil {
			abs = string(r.dir)
		}
		paths[i] = strings.FieldsFunc(filepath.ToSlash(abs), func(c rune) bool { return c == '/' })
	}
	name := func(i, depth int) string {
		p := paths[i]
		return strings.Join(p[max(0, len(p)-depth):], "/")
	}
	for depth := 1; ; depth++ {
		clash, deeper := false, false
		byName := map[string]string{} // name -> the whole path
		for i := range paths {
			n, whole := name(i, depth), strings.Join(paths[i], "/")
			if w, ok := byName[n]; ok && w != whole {
				clash = true
			}
			byName[n] = whole
			deeper = deeper || depth < len(paths[i])
		}
		if !clash || !deeper {
			seen := map[string]int{}
			for i := range s.runs {
				n := name(i, depth)
				if seen[n]++; seen[n] > 1 {
					n += " (" + strconv.Itoa(seen[n]) + ")"
				}
				s.runs[i].name = n
			}
			return
		}
	}
}

// Runs lists the run directories under parent (those with a config.yaml),
// in name order: what `tabula dashboard -run DIR` compares when DIR holds
// runs rather than being one.
func Runs(parent string) ([]string, error) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		dir := filepath.Join(parent, e.Name())
		if st, err := os.Stat(rundir.Dir(dir).Config()); err == nil && st.Mode().IsRegular() {
			out = append(out, dir)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no run directories in it (a directory with config.yaml)", parent)
	}
	return out, nil
}

// SeriesRun is a run of /api/series: its name, game, and why it has no
// charts, if it has none.
type SeriesRun struct {
	Name  string `json:"name"`
	Game  string `json:"game,omitempty"`
	Error string `json:"error,omitempty"`
}

// SeriesChart is one chart of /api/series: a chart of the runs that have
// it, the series of each labelled with its run's name when there are
// several runs. Flat, when set, says in a line what the chart would
// draw as flat lines (charts.Chart.Flat).
type SeriesChart struct {
	charts.Chart
	Flat string `json:"flat,omitempty"`
	Runs []int  `json:"runs"` // each series' run, an index into Series.Runs
}

// Series is the answer of /api/series: the charts of every run as data.
type Series struct {
	Runs   []SeriesRun   `json:"runs"`
	Charts []SeriesChart `json:"charts"`
}

// runCharts is one run's charts as cached.
type runCharts struct {
	Game   string         `json:"game"`
	Charts []charts.Chart `json:"charts"`
}

// series serves /api/series: every run's charts as data for the page to
// plot.
func (s *Server) series(w http.ResponseWriter, r *http.Request) {
	extendDeadlines(w, chartWait)
	ctx, cancel := context.WithTimeout(r.Context(), chartWait)
	defer cancel()
	var ans Series
	per := make([]runCharts, len(s.runs))
	for i, cr := range s.runs {
		ans.Runs = append(ans.Runs, SeriesRun{Name: cr.name})
		rc, err := s.runCharts(ctx, cr)
		if ctx.Err() != nil && r.Context().Err() == nil {
			w.Header().Set("Retry-After", "10")
			s.fail(w, http.StatusServiceUnavailable, fmt.Errorf("the charts are being drawn: ask again"))
			return
		}
		if err != nil {
			s.log.Warn("dashboard: charts", "run", string(cr.dir), "err", err)
			ans.Runs[i].Error = s.hideIn(err.Error())
			continue
		}
		per[i], ans.Runs[i].Game = rc, rc.Game
	}
	ans.Charts = mergeCharts(ans.Runs, per)
	b, err := json.Marshal(ans)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	// A long run's series are megabytes that change every generation:
	// the page asks again with the tag of what it has (the browser does,
	// Cache-Control no-cache) and is told it has them.
	sum := sha256.Sum256(b)
	tag := `"` + hex.EncodeToString(sum[:16]) + `"`
	w.Header().Set("ETag", tag)
	w.Header().Set("Cache-Control", "no-cache")
	if slices.Contains(strings.Split(strings.ReplaceAll(r.Header.Get("If-None-Match"), " ", ""), ","), tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// runCharts returns a run's charts, made again only when its files
// changed (chartCache, one at a time with the SVG renderings).
func (s *Server) runCharts(ctx context.Context, cr *runView) (runCharts, error) {
	b, _, err := s.charts.get(ctx, "series\x00"+string(cr.dir), func() (string, error) { return chartVersion(cr.dir) }, func(w io.Writer) (bool, error) {
		// chartVersion checked the files are regular.
		g, cs, err := s.chartsOf(string(cr.dir))
		if err != nil {
			return false, err
		}
		return true, json.NewEncoder(w).Encode(runCharts{Game: g, Charts: cs})
	})
	if err != nil {
		return runCharts{}, err
	}
	var rc runCharts
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&rc); err != nil {
		return runCharts{}, fmt.Errorf("charts of %s: %w", cr.name, err)
	}
	return rc, nil
}

// mergeCharts puts the runs' charts of one name on one chart, in the
// order of charts.Names. A chart whose every run draws it flat is a line
// of text.
func mergeCharts(runs []SeriesRun, per []runCharts) []SeriesChart {
	var out []SeriesChart
	for _, name := range charts.Names {
		var sc *SeriesChart
		var flats []string
		allFlat := true
		for i, rc := range per {
			k := slices.IndexFunc(rc.Charts, func(c charts.Chart) bool { return c.Name == name })
			if k < 0 {
				continue
			}
			c := rc.Charts[k]
			if sc == nil {
				sc = &SeriesChart{Chart: charts.Chart{Name: c.Name, Title: c.Title, X: c.X, Y: c.Y, XInteger: c.XInteger, Percent: c.Percent}}
			} else if !slices.Contains(strings.Split(sc.Y, "; "), c.Y) {
				sc.Y += "; " + c.Y // anchors differ between the runs
			}
			flat, ok := c.Flat()
			allFlat = allFlat && ok
			if len(runs) > 1 {
				flat = runs[i].Name + ": " + flat
			}
			flats = append(flats, flat)
			for _, ser := range c.Series {
				if len(runs) > 1 {
					ser.Label = runs[i].Name + ": " + ser.Label
				}
				sc.Series = append(sc.Series, ser)
				sc.Runs = append(sc.Runs, i)
			}
		}
		if sc == nil {
			continue
		}
		if allFlat {
			sc.Flat = strings.Join(flats, "; ")
		}
		out = append(out, *sc)
	}
	return out
}

// hidePath adds dir's absolute forms to those error answers write RUN.
func (s *Server) hidePath(dir string) {
	if dir == "" {
		return
	}
	if abs, err := filepath.Abs(dir); err == nil {
		s.hide = append(s.hide, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			s.hide = append(s.hide, real)
		}
	}
	// Longest first, so that a path inside another is replaced whole.
	slices.SortFunc(s.hide, func(a, b string) int { return len(b) - len(a) })
}

// hideIn writes the runs' directories in msg as RUN.
func (s *Server) hideIn(msg string) string {
	for _, p := range s.hide {
		msg = strings.ReplaceAll(msg, p, "RUN")
	}
	return msg
}
