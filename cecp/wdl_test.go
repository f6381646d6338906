package cecp_test

import (
	"strings"
	"testing"
	"time"
)

// UCI_ShowWDL is an xboard check box: declared -check 0, set with 1 or
// 0 as xboard sends it, and any other value refused.
func TestShowWDLCheckOption(t *testing.T) {
	e := ours(t)
	e.send(t, "xboard", "protover 2")
	var features []string
	e.until(t, 5*time.Second, func(l string) bool {
		features = append(features, l)
		return l == "feature done=1"
	})
	if want := `feature option="UCI_ShowWDL -check 0"`; !strings.Contains(strings.Join(features, "\n"), want) {
		t.Errorf("no %s among\n%s", want, strings.Join(features, "\n"))
	}
	for _, c := range []struct {
		option string
		ok     bool
	}{{"UCI_ShowWDL=1", true}, {"UCI_ShowWDL=0", true}, {"UCI_ShowWDL=true", true}, {"UCI_ShowWDL=7", false}} {
		e.send(t, "option "+c.option, "ping 1")
		l := e.until(t, 10*time.Second, func(string) bool { return true })
		if got := l == "pong 1"; got != c.ok {
			t.Errorf("option %s: got %q", c.option, l)
		}
		if !c.ok {
			e.until(t, 10*time.Second, func(l string) bool { return l == "pong 1" })
		}
	}
}
