package outside

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"evotune/genomes"
)

// TestDeclaredLayout reads a UCI engine's option lines (a shell script that answers the
// handshake): the layout has its spin options with Hash fixed, the OpenBench list only the
// free ones; errors name --options, --format and --engine.
func TestDeclaredLayout(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the test engine is a shell script")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "toy.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
while read line; do
  case "$line" in
    uci) echo "id name shtoy"
         echo "option name Hash type spin default 16 min 1 max 1024"
         echo "option name Queen Value type spin default 900 min 100 max 2000"
         echo "option name Ponder type check default false"
         echo "uciok";;
    isready) echo readyok;;
    quit) exit 0;;
  esac
done
`), 0o755)
	ctx := context.Background()
	cmd := "cmd:" + script
	f, err := DeclaredLayout(ctx, cmd, "", "yaml", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	lf, err := genomes.ParseLayoutFile(f.Data, "written")
	if err != nil {
		t.Fatal(err)
	}
	if f.Options != 2 || f.Fixed != 1 || len(lf.Genes) != 2 || f.What != "layout" {
		t.Fatalf("%d options, %d fixed, %d genes, %s:\n%s", f.Options, f.Fixed, len(lf.Genes), f.What, f.Data)
	}
	ob, err := DeclaredLayout(ctx, cmd, "", "openbench", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(ob.Data)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], ", int, 900") {
		t.Errorf("OpenBench list (Queen Value only):\n%s", ob.Data)
	}
	for _, bad := range []struct{ options, format, want string }{
		{"Rook Value", "yaml", "--options"},
		{"Ponder", "yaml", "--options"},
		{"", "xml", "--format"},
	} {
		if _, err := DeclaredLayout(ctx, cmd, bad.options, bad.format, 5*time.Second); err == nil || !strings.HasPrefix(err.Error(), bad.want) {
			t.Errorf("options %q format %q: %v, want an error naming %s", bad.options, bad.format, err, bad.want)
		}
	}
	if _, err := DeclaredLayout(ctx, "toy.sh", "", "yaml", time.Second); err == nil || !strings.HasPrefix(err.Error(), "--engine") {
		t.Errorf("not a command: %v", err)
	}
}

// TestDeclaredLayoutOddLines: an option line with a carriage return in its name (it came
// back from setoption as a blank: another name) and one longer than wire.MaxLine (it was
// cut and dropped) are left out with their reason; the well-formed option stays.
func TestDeclaredLayoutOddLines(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the test engine is a shell script")
	}
	dir := t.TempDir()
	long := "option name Long type spin default 1 min 0 max 9 " + strings.Repeat("var x ", 200_000)
	os.WriteFile(filepath.Join(dir, "long.txt"), []byte(long+"\n"), 0o644)
	script := filepath.Join(dir, "odd.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
while read line; do
  case "$line" in
    uci) echo "id name odd"
         printf 'option name Pawn\rValue type spin default 100 min 0 max 400\n'
         cat `+filepath.Join(dir, "long.txt")+`
         echo "option name Queen Value type spin default 900 min 100 max 2000"
         echo "uciok";;
    isready) echo readyok;;
    quit) exit 0;;
  esac
done
`), 0o755)
	f, err := DeclaredLayout(context.Background(), "cmd:"+script, "", "yaml", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	left := strings.Join(f.LeftOut, "\n")
	if f.Options != 1 || !strings.Contains(string(f.Data), "Queen") || !strings.Contains(left, `Pawn\rValue`) || !strings.Contains(left, "cut there") {
		t.Fatalf("%d options, left out:\n%s\nlayout:\n%s", f.Options, left, f.Data)
	}
}
