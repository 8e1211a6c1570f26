package engine

import (
	"testing"
)

// FuzzParseTimeControl: any text is refused, or is a time control with some time whose
// String is read back as the same control.
func FuzzParseTimeControl(f *testing.F) {
	for _, s := range []string{"10+0.1", "40/60+0.6", "60", "1:30+1", "0+0", "-1", "40/", "1e9", "+", "3/0:00+0.001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tc, err := ParseTimeControl(s)
		if err != nil {
			return
		}
		if tc.Base+tc.Inc <= 0 || tc.Base < 0 || tc.Inc < 0 || tc.Moves < 0 {
			t.Fatalf("%q: accepted %+v", s, tc)
		}
		back, err := ParseTimeControl(tc.String())
		if err != nil || back != tc {
			t.Fatalf("%q: %+v writes %q, read back as %+v (%v)", s, tc, tc.String(), back, err)
		}
	})
}
