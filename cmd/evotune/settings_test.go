package main

import (
	"evotune/tuner/config"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestSettingsHaveFlags: tune's flags are config.Settings' (each with its declared help),
// plus only the command's own (config, database, resume, layout, cluster): a setting is
// declared once.
func TestSettingsHaveFlags(t *testing.T) {
	c := newTuneCmd()
	for _, s := range config.Settings {
		if s.Flag == "" {
			continue
		}
		f := c.Flags().Lookup(s.Flag)
		if f == nil {
			t.Errorf("setting %s: tune has no --%s", s.Key, s.Flag)
			continue
		}
		if f.Usage != s.HelpText() {
			t.Errorf("--%s: help %q, the setting's %q", s.Flag, f.Usage, s.HelpText())
		}
	}
	own := map[string]bool{"config": true, "db": true, "resume": true, "layout": true, "broker": true, "ack-wait": true,
		"max-deliver": true, "task-games": true, "broker-timeout": true, "creds": true, "tls-ca": true, "token-file": true}
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if _, ok := config.LookupSetting(f.Name); !ok && !own[f.Name] {
			t.Errorf("--%s is neither a setting (config.Settings) nor one of tune's own flags", f.Name)
		}
	})
}

// TestREADMESettings: the table of tune's flags in docs/tune.md lists every setting's flag.
func TestREADMESettings(t *testing.T) {
	readme, err := os.ReadFile("../../docs/tune.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| `--") {
			rows = append(rows, l[:strings.Index(l[1:], "|")+1])
		}
	}
	first := strings.Join(rows, "\n")
	for _, s := range config.Settings {
		if s.Flag != "" && !strings.Contains(first, "`--"+s.Flag+"`") {
			t.Errorf("docs/tune.md: no row of tune's flags names --%s", s.Flag)
		}
	}
}

// TestTuneHelpGrouped: tune --help shows its flags by concern, the groups in order, and
// each setting's flag under its own group's heading.
func TestTuneHelpGrouped(t *testing.T) {
	out, _, code := runIn(t, t.TempDir(), "tune", "--help")
	if code != 0 {
		t.Fatal(out)
	}
	section := map[string]string{} // flag → the heading above it
	heading := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, " flags:") || strings.HasSuffix(l, " Flags:") {
			heading = strings.TrimSuffix(strings.TrimSuffix(l, " flags:"), " Flags:")
			continue
		}
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "--") {
			section[strings.TrimPrefix(f[0], "--")] = heading
		} else if len(f) > 1 && strings.HasPrefix(f[1], "--") { // "-h, --help"
			section[strings.TrimPrefix(f[1], "--")] = heading
		}
	}
	last := -1
	for _, g := range config.Groups {
		i := strings.Index(out, "\n"+strings.ToUpper(g[:1])+g[1:]+" flags:\n")
		if i < 0 || i < last {
			t.Fatalf("group %q missing or out of order in tune --help:\n%s", g, out)
		}
		last = i
	}
	for _, st := range config.Settings {
		if st.Flag == "" {
			continue
		}
		if want := strings.ToUpper(st.Group[:1]) + st.Group[1:]; section[st.Flag] != want {
			t.Errorf("--%s is under %q, want %q", st.Flag, section[st.Flag], want)
		}
	}
	if section["broker"] != "Several machines" || section["layout"] != "Outside engine" || section["db"] != "Run" {
		t.Errorf("--broker under %q, --layout under %q, --db under %q", section["broker"], section["layout"], section["db"])
	}
}

// TestRenamedFlags: tune's and compare's earlier names of a flag (--engine-depth,
// --engine-move-time) still set it, count as given, are hidden from --help and print the
// new name, so that every command calls a depth --depth and a time per move --move-time.
func TestRenamedFlags(t *testing.T) {
	for _, tc := range []struct {
		cmd            *cobra.Command
		old, name, val string
	}{
		{newTuneCmd(), "engine-depth", "depth", "6"},
		{newTuneCmd(), "engine-move-time", "move-time", "2"},
		{newCompareCmd(), "engine-depth", "depth", "6"},
	} {
		f := tc.cmd.Flags()
		var out strings.Builder
		f.SetOutput(&out)
		if err := f.Parse([]string{"--" + tc.old, tc.val}); err != nil {
			t.Fatalf("%s --%s: %v", tc.cmd.Name(), tc.old, err)
		}
		if !flagChanged(f)(tc.name) || f.Changed(tc.name) {
			t.Errorf("%s --%s: --%s not counted as given", tc.cmd.Name(), tc.old, tc.name)
		}
		if got := f.Lookup(tc.name).Value.String(); !strings.HasPrefix(got, tc.val) {
			t.Errorf("%s --%s %s: --%s is %q", tc.cmd.Name(), tc.old, tc.val, tc.name, got)
		}
		if !strings.Contains(out.String(), "it is now --"+tc.name) {
			t.Errorf("%s --%s: note %q, want the new name", tc.cmd.Name(), tc.old, out.String())
		}
		if !f.Lookup(tc.old).Hidden || strings.Contains(f.FlagUsages(), "--"+tc.old+" ") {
			t.Errorf("%s --%s: shown in --help", tc.cmd.Name(), tc.old)
		}
	}
}
