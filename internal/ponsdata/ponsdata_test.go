package ponsdata

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The embedded sets are the published ones: 1,000 lines each, with the
// checksums README.md records for the upstream copies.
func TestSetsAreTheUpstreamCopies(t *testing.T) {
	want := map[string]string{
		"Test_L3_R1": "db4f4598eb804ec19df218fcb4d52d50", "Test_L2_R1": "0536d44a5555bf7a825ccedb02ae9d5e",
		"Test_L2_R2": "2cd18d1b79a4ed3cdd9d644586f64de3", "Test_L1_R1": "25ecb853d63879b56a6bf4fd24aab75c",
		"Test_L1_R2": "4873ec953253556249ba4e0f923271da", "Test_L1_R3": "d7fccdffc530371b5e4f4938cd3e1cbb",
	}
	for _, name := range Names {
		f, err := Open(name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if sum := fmt.Sprintf("%x", md5.Sum(b)); sum != want[name] {
			t.Errorf("%s: md5 %s, want %s", name, sum, want[name])
		}
		n := 0
		for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); n++ {
		}
		if n != 1000 {
			t.Errorf("%s: %d lines", name, n)
		}
	}
	if _, err := Open("Test_L9_R9"); err == nil {
		t.Error("unknown set opened")
	}
	path, err := WriteTo(t.TempDir(), "Test_L3_R1")
	if b, _ := os.ReadFile(path); err != nil || filepath.Base(path) != "Test_L3_R1" || len(b) != 37836 {
		t.Errorf("WriteTo: %s, %d bytes, %v", path, len(b), err)
	}
}
