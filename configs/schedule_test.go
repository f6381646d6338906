package configs

import "testing"

// The blend's weight over generations reads as selfplay.abzero.m says.
func TestSchedule(t *testing.T) {
	lin, err := ParseSchedule("linear:1,21,0,10")
	if err != nil {
		t.Fatal(err)
	}
	for gen, want := range map[int]float64{-1: 1, 0: 1, 5: 11, 10: 21, 50: 21} {
		if got := lin.At(gen); got != want {
			t.Errorf("linear At(%d) = %v, want %v", gen, got, want)
		}
	}
	st, err := ParseSchedule("step:2,30,4")
	if err != nil {
		t.Fatal(err)
	}
	for gen, want := range map[int]float64{0: 2, 3: 2, 4: 30, 9: 30} {
		if got := st.At(gen); got != want {
			t.Errorf("step At(%d) = %v, want %v", gen, got, want)
		}
	}
	c, err := ParseSchedule("7.5")
	if err != nil || c.At(0) != 7.5 || c.At(100) != 7.5 {
		t.Errorf("constant: %+v %v", c, err)
	}
	for _, bad := range []string{"", "x", "linear:1,2,3", "linear:1,2,5,5", "step:1,2", "ramp:1,2,3", "linear:a,2,0,1", "-1", "step:1,2,x"} {
		if _, err := ParseSchedule(bad); err == nil {
			t.Errorf("ParseSchedule(%q) accepted", bad)
		}
	}
}
