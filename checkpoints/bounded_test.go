package checkpoints

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/net"
)

// allocated is the bytes f allocated.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// specFloats counts what paramArrays allocates, for both policy heads.
func TestSpecFloats(t *testing.T) {
	for _, heads := range []string{"", "fromto"} {
		p := sampleWith(t, heads).Params
		if got, want := specFloats(p.Spec), floats(paramArrays(p)); got != uint64(want) {
			t.Errorf("heads %q: specFloats %d, the parameters hold %d", heads, got, want)
		}
	}
	huge := net.Spec{Channels: 1 << 20, Height: 1 << 20, Width: 1 << 20, Actions: 1 << 20, Blocks: 100,
		Filters: 1 << 20, PolicyChannels: 1 << 20, ValueChannels: 1 << 20, ValueHidden: 1 << 20}
	if n := specFloats(huge); n < 1<<62 {
		t.Errorf("a spec past every size counts %d floats", n)
	}
}

// forged is a checkpoint file with a valid checksum whose header says
// what h says and whose body is body: what anyone can write, since the
// checksum proves no origin.
func forged(h header, body []byte) []byte {
	hj, _ := json.Marshal(h)
	var b bytes.Buffer
	b.Write(magic[:])
	binary.Write(&b, binary.LittleEndian, uint32(FormatVersion))
	binary.Write(&b, binary.LittleEndian, uint32(len(hj)))
	b.Write(hj)
	b.Write(body)
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

// A small file whose spec claims a giant network is refused before the
// giant is allocated.
func TestDecodeRefusesGiantSpec(t *testing.T) {
	spec := sample(t).Params.Spec
	spec.Blocks, spec.Filters = 100, 4096 // 30 G floats
	h := header{Game: spec.Game, EncoderVersion: spec.EncoderVersion, Spec: spec, ParamFloats: int(specFloats(spec))}
	file := forged(h, make([]byte, 1024))
	var err error
	if n := allocated(func() { _, err = Decode(file) }); n > 1<<20 {
		t.Errorf("decoding a %d-byte file allocated %d bytes", len(file), n)
	}
	if err == nil || !strings.Contains(err.Error(), "the file holds at most") {
		t.Fatalf("got %v, want the spec refused for the file's size", err)
	}
}

// Load reads the header first: a sparse file of 1.5 GB behind a
// checkpoint's header, or without one, is refused without being read.
func TestLoadRefusesWhatItsHeaderDoesNotState(t *testing.T) {
	dir := t.TempDir()
	good, err := Encode(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	hl := int(binary.LittleEndian.Uint32(good[12:]))
	cases := map[string]struct {
		prefix []byte
		want   string
	}{
		"headed": {good[:16+hl], "its header states"},
		"plain":  {nil, "not a tabula checkpoint"},
	}
	for name, c := range cases {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(c.prefix)
		if err := f.Truncate(3 << 29); err != nil {
			t.Skipf("no sparse files here: %v", err)
		}
		f.Close()
		for fn, load := range map[string]func(string) error{
			"Load":     func(p string) error { _, err := Load(p); return err },
			"Identify": func(p string) error { _, err := Identify(p); return err },
		} {
			var err error
			if n := allocated(func() { err = load(path) }); n > 1<<20 {
				t.Errorf("%s of a %s sparse file allocated %d bytes", fn, name, n)
			}
			if fn == "Identify" && name == "headed" {
				continue // its header is a checkpoint's: Identify does not read further
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s of a %s sparse file: %v, want %q", fn, name, err, c.want)
			}
		}
	}
}

// Devices are refused, not read without end.
func TestLoadRefusesDevices(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	link := filepath.Join(t.TempDir(), "zero.ckpt")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", link} {
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Load(%s): %v", path, err)
		}
		if _, err := Identify(path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Identify(%s): %v", path, err)
		}
	}
}
