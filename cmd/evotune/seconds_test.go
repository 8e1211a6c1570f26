package main

import (
	"strings"
	"testing"
)

// TestSecondsFlag: --move-time and its kin read durations as the other commands do
// and bare numbers as seconds, and refuse anything else naming the value.
func TestSecondsFlag(t *testing.T) {
	for in, want := range map[string]float64{"10": 10, "2.5": 2.5, "10s": 10, "1m30s": 90, "250ms": 0.25, "0": 0} {
		var v float64
		if err := (secondsFlag{&v}).Set(in); err != nil || v != want {
			t.Errorf("%q: %g, %v; want %g", in, v, err, want)
		}
	}
	for _, in := range []string{"ten", "-1", "-2s", "NaN", "+Inf", "5 s"} {
		v := 7.0
		if err := (secondsFlag{&v}).Set(in); err == nil || !strings.Contains(err.Error(), in) || v != 7 {
			t.Errorf("%q: accepted (%g) or an error without the value: %v", in, v, err)
		}
	}
	// Through the command line: a duration where a number of seconds was the only form.
	dir := t.TempDir()
	_, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--move-time", "ten")
	if code == 0 || !strings.Contains(stderr, "--move-time") || !strings.Contains(stderr, `"ten"`) {
		t.Errorf("--move-time ten: exit %d, %s", code, stderr)
	}
}
