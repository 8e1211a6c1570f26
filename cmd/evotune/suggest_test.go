package main

import (
	"regexp"
	"strings"
	"testing"
)

// suggestedCommand is the evotune command line a message suggests (after "evotune ", to the
// end of its line or the quote closing it), split into arguments as a POSIX shell splits
// them: blanks separate, single quotes group (ShellQuote's escaped quote too). The test
// fails when the message suggests none.
func suggestedCommand(t *testing.T, msg string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)(?:^|[ :'])evotune ((?:[^'\n;]|'[^'\n]*')+)`).FindAllStringSubmatch(msg, -1)
	if m == nil {
		t.Fatalf("no evotune command suggested in %q", msg)
	}
	line := strings.TrimRight(m[len(m)-1][1], "'.")
	var args []string
	var cur strings.Builder
	inWord, quoted, escaped := false, false, false
	for _, r := range line {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && !quoted:
			escaped, inWord = true, true
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
			}
			inWord = false
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args
}

func TestSuggestedCommand(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{"stop it first, or, if not, 'evotune resume 1 --db evotune.db --force'", "resume|1|--db|evotune.db|--force"},
		{"none was started:\n  cmd:x\nread what they are, then allow each: evotune resume 1 --db 'my runs.db' --allow-engine 'cmd:./e --w'\n", "resume|1|--db|my runs.db|--allow-engine|cmd:./e --w"},
		{"allow each: evotune resume 3 --db x.db --allow-engine 'cmd:./it'\\''s'", "resume|3|--db|x.db|--allow-engine|cmd:./it's"},
		{"next: evotune generations 2 --db a.db; evotune export 2 --db a.db --out run2.json", "export|2|--db|a.db|--out|run2.json"},
	} {
		if got := strings.Join(suggestedCommand(t, c.msg), "|"); got != c.want {
			t.Errorf("%q: %q, want %q", c.msg, got, c.want)
		}
	}
}
