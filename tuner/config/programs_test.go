package config

import (
	"errors"
	"strings"
	"testing"
)

// TestValidateReadsNothing: a configuration whose opponents and verification opponents
// name programs this machine does not have passes Validate, which reads nothing outside the
// configuration, and is refused by CheckPrograms and Check, which name the field; a command
// line that is not one is Validate's refusal.
func TestValidateReadsNothing(t *testing.T) {
	if _, ok := LookupMethod(MethodGA); !ok { // the methods are the tuner's to register
		RegisterMethod(Method{Name: MethodGA, Title: "GA", Generation: "generation", Openings: func(Config) int { return 1 }})
	}
	for _, c := range []struct {
		key string
		set func(*Config)
	}{
		{"opponents", func(c *Config) { c.Opponents = []string{"cmd:/no/such/engine --uci"} }},
		{"verify_opponents", func(c *Config) { c.VerifyOpponents = []string{"cmd:/no/such/engine"} }},
	} {
		cfg := DefaultConfig("gomoku")
		c.set(&cfg)
		cfg.Resolve()
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: Validate: %v, want nil (it looks up no program)", c.key, err)
		}
		for name, check := range map[string]func() error{"CheckPrograms": cfg.CheckPrograms, "Check": cfg.Check} {
			err := check()
			var se *SettingError
			if !errors.As(err, &se) || se.Key != c.key || !strings.Contains(err.Error(), "/no/such/engine") {
				t.Errorf("%s: %s: %v, want a SettingError of %s naming the program", c.key, name, err, c.key)
			}
		}
	}
	cfg := DefaultConfig("gomoku")
	cfg.Opponents = []string{"/usr/games/stockfish"}
	cfg.Resolve()
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "want cmd:PATH") {
		t.Errorf("an opponent without cmd:: %v, want Validate's refusal", err)
	}
	clean := DefaultConfig("gomoku")
	clean.Resolve()
	if err := clean.Check(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}
