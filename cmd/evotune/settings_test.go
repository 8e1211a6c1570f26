package main

import (
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"evotune/tuner"
)

// TestSettingsHaveFlags: tune's flags are tuner.Settings' (each with its declared help),
// plus only the command's own (config, database, resume, layout, cluster): a setting is
// declared once.
func TestSettingsHaveFlags(t *testing.T) {
	c := newTuneCmd()
	for _, s := range tuner.Settings {
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
		if _, ok := tuner.LookupSetting(f.Name); !ok && !own[f.Name] {
			t.Errorf("--%s is neither a setting (tuner.Settings) nor one of tune's own flags", f.Name)
		}
	})
}

// TestREADMESettings: the README's table of tune's flags lists every setting's flag.
func TestREADMESettings(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
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
	for _, s := range tuner.Settings {
		if s.Flag != "" && !strings.Contains(first, "`--"+s.Flag+"`") {
			t.Errorf("README: no row of tune's flags names --%s", s.Flag)
		}
	}
}
