package main

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// secondsFlag is a flag of seconds held in a float64 setting (a run's configuration keeps
// seconds): it reads a duration as the other commands do ("10s", "1m30s", "250ms") or a
// bare number of seconds ("10", "2.5"), as it always did. A value that is neither, not
// finite or negative is an error naming the value.
type secondsFlag struct{ p *float64 }

func (f secondsFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f secondsFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		d, derr := time.ParseDuration(s)
		if derr != nil {
			return fmt.Errorf("%q: want a duration such as 10s, 1m or 250ms (or seconds: 10)", s)
		}
		v = d.Seconds()
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("%q: a negative or infinite duration; want 0 or more", s)
	}
	*f.p = v
	return nil
}

func (secondsFlag) Type() string { return "duration" }
