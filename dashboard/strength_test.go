package dashboard

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/player"
)

// TestPlayStrength: alpha-beta limited to an Elo replies and is recorded
// by its spec; an Elo out of the knob's range, or
// asked of a network or the blend, is refused naming the field.
func TestPlayStrength(t *testing.T) {
	srv, _ := playServer(t)
	offers := playChoices(t, srv)
	if !strings.Contains(offers["xiangqi"].EloScale, "ladder") || !strings.Contains(offers["connect4"].EloScale, "not calibrated") {
		t.Errorf("Elo scales: %q, %q", offers["xiangqi"].EloScale, offers["connect4"].EloScale)
	}
	code, st, msg := call(t, srv, "POST", "/api/play/new", `{"game":"connect4","opponent":"ab","elo":300,"side":"second"}`)
	if code != http.StatusOK || st.Engine != "ab:elo=300" || len(st.Replies) != 1 {
		t.Fatalf("new game at Elo 300: %d %q %+v", code, msg, st)
	}
	// The reply is the limited spec's move (TestSameMovesThroughEveryDoor
	// holds the doors to it move by move).
	if r := st.Replies[0]; r.Move != st.Moves[0] || r.Depth < 1 {
		t.Errorf("the reply %+v", r)
	}
	if st := player.StrengthFor("connect4", player.EvalClassical, 300); st.Random != 0 || st.Nodes < 1024 {
		t.Errorf("Elo 300 in Connect Four plays %+v", st)
	}
	for _, c := range []struct{ body, want string }{
		{`{"game":"connect4","opponent":"ab","elo":5000}`, "elo 5000 out of range"},
		{`{"game":"connect4","opponent":"net","network":"connect4","elo":300}`, "elo"},
		{`{"game":"connect4","opponent":"abzero","network":"connect4","elo":300}`, "elo"},
	} {
		if code, _, msg := call(t, srv, "POST", "/api/play/new", c.body); code != http.StatusBadRequest || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %q", c.body, code, msg)
		}
	}
}
