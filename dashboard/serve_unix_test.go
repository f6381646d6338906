//go:build unix

package dashboard

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/configs/configstest"
)

// The run's files are read only when regular: a FIFO at metrics.jsonl,
// the self-play games, a records file or config.yaml is refused with its
// name (it would hold the request for good), and so is metrics.jsonl
// linked to /dev/zero (which never ends).
func TestRunFilesNotRegular(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, "config.yaml"), configstest.TinyConnectFour(t).MarshalSealed(), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(run, "arena"), 0o755)
	var logged bytes.Buffer
	srv := httptest.NewServer(New(run, nil, nil, slog.New(slog.NewTextHandler(&logged, nil))).Handler())
	defer srv.Close()
	client := &http.Client{Timeout: 10 * time.Second}
	check := func(what, path string, code int, want string) {
		t.Helper()
		logged.Reset()
		r, err := client.Get(srv.URL + path)
		if err != nil {
			t.Errorf("%s: %s: %v", what, path, err)
			return
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != code || !strings.Contains(string(b)+logged.String(), want) {
			t.Errorf("%s: %s: %d %q, want %d and %q (log %s)", what, path, r.StatusCode, b, code, want, logged.String())
		}
	}
	metricsPath := filepath.Join(run, "metrics.jsonl")
	if err := syscall.Mkfifo(metricsPath, 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	check("metrics FIFO", "/api/status", 500, "metrics.jsonl is a named pipe (FIFO), not a regular file")
	check("metrics FIFO", "/api/matches", 500, "named pipe")
	check("metrics FIFO", "/api/chart/loss.svg", 404, "RUN/metrics.jsonl is a named pipe")
	os.Remove(metricsPath)
	if err := os.Symlink("/dev/zero", metricsPath); err != nil {
		t.Fatal(err)
	}
	check("metrics on /dev/zero", "/api/status", 500, "metrics.jsonl is a character device")
	check("metrics on /dev/zero", "/api/chart/loss.svg", 404, "is a character device")
	os.Remove(metricsPath)

	if err := syscall.Mkfifo(filepath.Join(run, "selfplay-games.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("games FIFO", "/api/games", 500, "selfplay-games.jsonl is a named pipe")
	check("games FIFO", "/api/game?source=selfplay&index=0", 404, "named pipe")
	os.Remove(filepath.Join(run, "selfplay-games.jsonl"))

	if err := syscall.Mkfifo(filepath.Join(run, "arena", "e1.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("records FIFO", "/api/games", 500, "e1.jsonl is a named pipe")
	check("records FIFO", "/api/game?source=arena/e1.jsonl&index=0", 404, "RUN/arena/e1.jsonl is a named pipe")
	check("records FIFO", "/api/chart/strength.svg", 404, "e1.jsonl is a named pipe")
	check("records FIFO", "/api/status", 200, "")
	os.Remove(filepath.Join(run, "arena", "e1.jsonl"))

	os.Remove(filepath.Join(run, "config.yaml"))
	if err := syscall.Mkfifo(filepath.Join(run, "config.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("config FIFO", "/api/status", 404, "RUN/config.yaml is a named pipe")
	check("config FIFO", "/api/chart/loss.svg", 404, "RUN/config.yaml is a named pipe")
}
