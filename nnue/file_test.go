package nnue

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewrite re-encodes a network file with its header changed by edit and a
// valid checksum, so that only the header's content is wrong.
func rewrite(t testing.TB, b []byte, edit func(h map[string]any)) []byte {
	t.Helper()
	hl := binary.LittleEndian.Uint32(b[12:])
	var h map[string]any
	if err := json.Unmarshal(b[16:16+hl], &h); err != nil {
		t.Fatal(err)
	}
	edit(h)
	hj, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), b[:12]...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(hj)))
	out = append(out, hj...)
	out = append(out, b[16+hl:len(b)-sha256.Size]...)
	sum := sha256.Sum256(out)
	return append(out, sum[:]...)
}

func TestFileRoundTrip(t *testing.T) {
	n := NewRandom(3)
	n.SetNotes("a test network")
	path := filepath.Join(t.TempDir(), "x.nnue")
	if err := n.Save(path); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !sameNet(n, m) || m.Notes() != "a test network" {
		t.Errorf("the loaded network differs from the saved one")
	}
	// Saving again replaces the file whole and leaves no temporary file.
	if err := NewRandom(4).Save(path); err != nil {
		t.Fatal(err)
	}
	if m, err = Load(path); err != nil || sameNet(n, m) {
		t.Errorf("the second save did not replace the file (%v)", err)
	}
	if es, _ := os.ReadDir(filepath.Dir(path)); len(es) != 1 {
		t.Errorf("%d files in the directory after two saves, want 1", len(es))
	}
	if _, err := Decode(NewRandom(3).Encode()); err != nil {
		t.Errorf("Decode of Encode: %v", err)
	}
}

// Every kind of damage is refused with an error naming it.
func TestFileRefusesDamage(t *testing.T) {
	good := NewRandom(5).Encode()
	flip := func(i int) []byte {
		b := append([]byte(nil), good...)
		b[i] ^= 0x10
		return b
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "truncated"},
		{"head only", good[:15], "truncated"},
		{"cut in the header", good[:40], "truncated"},
		{"cut in the arrays", good[:len(good)/2], "truncated"},
		{"checksum cut", good[:len(good)-1], "truncated"},
		{"trailing bytes", append(append([]byte(nil), good...), 0), "trailing"},
		{"bad magic", flip(2), "magic"},
		{"format version", flip(8), "format version"},
		{"weights flipped", flip(len(good) / 2), "checksum"},
		{"checksum flipped", flip(len(good) - 1), "checksum"},
		{"another feature set", rewrite(t, good, func(h map[string]any) { h["feature_set"] = "xq-halfkp" }), "feature set"},
		{"feature set version", rewrite(t, good, func(h map[string]any) { h["feature_set_version"] = 2 }), "feature set"},
		{"feature count", rewrite(t, good, func(h map[string]any) { h["num_features"] = 7561 }), "features"},
		{"scales", rewrite(t, good, func(h map[string]any) { h["hidden_weight_scale"] = 128 }), "scales"},
		// Sizes larger than the file holds: refused before anything of
		// that size is allocated.
		{"sizes beyond the file", rewrite(t, good, func(h map[string]any) { h["l1"] = 2048 }), "truncated"},
		{"sizes short of the file", rewrite(t, good, func(h map[string]any) { h["l3"] = 8 }), "trailing"},
		{"sizes out of range", rewrite(t, good, func(h map[string]any) { h["l1"] = 1 << 30 }), "L1"},
		{"unknown header field", rewrite(t, good, func(h map[string]any) { h["bias"] = 1 }), "unknown field"},
	}
	for _, c := range cases {
		_, err := Decode(c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	// A stated header length beyond the file.
	b := append([]byte(nil), good[:100]...)
	binary.LittleEndian.PutUint32(b[12:], 200)
	if _, err := Decode(b); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("header length beyond the file: %v", err)
	}
	binary.LittleEndian.PutUint32(b[12:], 1<<31)
	if _, err := Decode(b); err == nil || !strings.Contains(err.Error(), "header of") {
		t.Errorf("huge header length: %v", err)
	}
}

// Load reads regular files only, within the size limit, and names the
// file in its errors.
func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("a missing file loaded")
	}
	if _, err := Load(dir); err == nil {
		t.Errorf("a directory loaded")
	}
	bad := filepath.Join(dir, "bad.nnue")
	if err := os.WriteFile(bad, []byte("TABNNUE\x00junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a damaged file: %v, want an error naming it", err)
	}
	big := filepath.Join(dir, "big.nnue")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Load(big); err == nil {
		t.Errorf("a file over MaxFileSize loaded")
	}
}

// Decode never panics and never accepts what it cannot run: whatever the
// bytes, it returns an error or a network whose sizes check.
func FuzzDecode(f *testing.F) {
	good := NewRandom(1).Encode()
	f.Add(good[:200])
	f.Add(good[:16])
	f.Add([]byte("TABNNUE\x00\x01\x00\x00\x00\x02\x00\x00\x00{}"))
	f.Add(rewrite(f, good, func(h map[string]any) { h["l1"] = 64 })[:300])
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := Decode(data)
		if err == nil {
			if err := n.Sizes().Check(); err != nil {
				t.Errorf("decoded a network of sizes that do not check: %v", err)
			}
		}
	})
}
