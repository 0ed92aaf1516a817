package console

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// TestLegacyAsV2Console: the v0.2–v0.3 fixture written as a report v2 and
// read back prints the same console summary as the fixture itself.
func TestLegacyAsV2Console(t *testing.T) {
	r, err := report.Read(filepath.Join("..", "testdata", "benchmarks_stripped_legacy_v0.3.json"))
	if err != nil {
		t.Fatal(err)
	}
	var data bytes.Buffer
	if err := r.WriteJSON(&data); err != nil {
		t.Fatal(err)
	}
	back, err := report.Decode(bytes.NewReader(data.Bytes()), "v2.json")
	if err != nil {
		t.Fatal(err)
	}
	var c1, c2 bytes.Buffer
	_ = Write(&c1, r)
	_ = Write(&c2, back)
	if c1.String() != c2.String() {
		t.Errorf("console of the converted report differs:\n%s\nwant:\n%s", c2.String(), c1.String())
	}
}
