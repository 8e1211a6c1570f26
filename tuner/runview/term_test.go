package runview

import (
	"bytes"
	"strings"
	"testing"
)

// TestTermSafety: terminal escapes, bidirectional overrides, line breaks and invalid UTF-8
// from a database come out as Go escapes; letters stay; a cell is cut to MaxShown; a
// TermWriter keeps a character split across writes whole and keeps line breaks; SafeJSON
// escapes the same characters as \uXXXX.
func TestTermSafety(t *testing.T) {
	for in, want := range map[string]string{
		"run\x1b[31mred":   `run\x1b[31mred`,
		"a\u202eb":         `a\u202eb`,
		"two\nlines\tx":    `two\nlines\tx`,
		"bad\xffbyte":      `bad\xffbyte`,
		"Zürich 五目":        "Zürich 五目",
		"del\x7f c1\u0085": `del\x7f c1\u0085`,
	} {
		if got := Safe(in); got != want {
			t.Errorf("Safe(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("x", 100)
	if got := SafeCell(long); len([]rune(got)) != MaxShown || !strings.HasSuffix(got, "…") {
		t.Errorf("SafeCell of 100 characters: %q", got)
	}
	var buf bytes.Buffer
	w := NewTermWriter(&buf)
	b := []byte("é\x1b\nok")
	w.Write(b[:1]) // half of é
	w.Write(b[1:])
	if got := buf.String(); got != "é\\x1b\nok" {
		t.Errorf("TermWriter: %q", got)
	}
	if got := SafeJSON(`{"a":"x` + "\u202e\U000e0001" + `"}`); got != `{"a":"x\u202e\udb40\udc01"}` {
		t.Errorf("SafeJSON: %s", got)
	}
}
