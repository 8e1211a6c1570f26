package wire

import (
	"fmt"
	"strings"
	"testing"
)

// TestTranscriptKeepsHeadAndTail: an engine that writes far more than MaxTranscript keeps
// its first lines (its banner) and its last (what it was doing when it failed), with the
// count of the lines left out between, within about MaxTranscript bytes.
func TestTranscriptKeepsHeadAndTail(t *testing.T) {
	var c Conn
	for i := range 1000 {
		c.Note("stdout", fmt.Sprintf("info depth %d nodes %d", i, i*1000))
	}
	tr := c.Transcript()
	for _, want := range []string{"stdout: info depth 0 nodes 0\n", "stdout: info depth 999 nodes 999000\n", " lines left out …\n"} {
		if !strings.Contains(tr, want) {
			t.Fatalf("transcript lacks %q:\n%s", want, tr)
		}
	}
	kept := strings.Count(tr, "stdout: ")
	var dropped int
	fmt.Sscanf(tr[strings.Index(tr, "… ")+len("… "):], "%d", &dropped)
	if kept+dropped != 1000 || len(tr) > MaxTranscript+64 {
		t.Fatalf("%d lines kept, %d left out, %d bytes", kept, dropped, len(tr))
	}
	if strings.Index(tr, "info depth 999 ") < strings.Index(tr, "lines left out") {
		t.Fatal("the last lines come before the gap")
	}
	c.ResetGame()
	c.Note("stderr", "x")
	if got := c.Transcript(); got != "stderr: x\n" {
		t.Fatalf("after ResetGame: %q", got)
	}
}
