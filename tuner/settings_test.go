package tuner

import (
	"errors"
	"evotune/tuner/config"
	"slices"
	"strings"
	"testing"
)

// TestSettingsResolve: every declared setting names a field of Config (nested keys inside
// their method's section, made with the method's defaults), flags are unique, and the
// method-only keys are the ones the methods' checks refuse.
func TestSettingsResolve(t *testing.T) {
	flags := map[string]bool{}
	for _, s := range config.Settings {
		c := config.DefaultConfig("gomoku")
		if _, err := c.Field(s.Key); err != nil {
			t.Errorf("%s: %v", s.Key, err)
		}
		if s.Flag != "" && flags[s.Flag] {
			t.Errorf("flag --%s declared twice", s.Flag)
		}
		flags[s.Flag] = true
		for _, m := range s.Methods {
			if _, ok := config.LookupMethod(m); !ok {
				t.Errorf("%s: method %q is not registered", s.Key, m)
			}
		}
	}
	c := config.DefaultConfig("gomoku")
	v, err := c.Field("spsa.c_end")
	if err != nil || c.SPSA == nil || v.Float() != config.DefaultSPSA.CEnd || c.SPSA.Pairs != config.DefaultSPSA.Pairs {
		t.Fatalf("spsa.c_end of a config without an spsa section: %v, %+v", err, c.SPSA)
	}
	src := config.DefaultConfig("gomoku")
	src.Population, src.CMAES = 31, &config.CMAESConfig{Sigma: 0.7}
	if err := c.SetFrom("population", &src); err != nil || c.Population != 31 {
		t.Fatalf("SetFrom population: %v, %d", err, c.Population)
	}
	if err := c.SetFrom("cmaes.sigma", &src); err != nil || c.CMAES == nil || c.CMAES.Sigma != 0.7 || c.CMAES.Pairs != config.DefaultCMAES.Pairs {
		t.Fatalf("SetFrom cmaes.sigma: %v, %+v", err, c.CMAES)
	}
	if _, err := c.Field("no_such_key"); err == nil {
		t.Fatal("an unknown key resolved")
	}
	ga := config.MethodKeys(config.MethodGA)
	for _, k := range []string{"population", "games", "race_rounds", "admit_games", "admit_z", "elite", "tournament", "crossover_rate", "mutation_rate", "mutation", "init", "champions", "champion"} {
		if !slices.Contains(ga, k) {
			t.Errorf("%s is not a GA-only key: %v", k, ga)
		}
	}
	if slices.Contains(ga, "seed") || len(config.MethodKeys(config.MethodSPSA)) != 0 {
		t.Errorf("method keys: ga %v, spsa %v", ga, config.MethodKeys(config.MethodSPSA))
	}
	steady := config.MethodKeys(config.MethodSteady)
	if !slices.Contains(steady, "population") || !slices.Contains(steady, "mutation_rate") || slices.Contains(steady, "race_rounds") || slices.Contains(steady, "admit_games") {
		t.Errorf("steady-state GA keys: %v", steady)
	}
	if s, ok := config.LookupSetting("depths"); !ok || s.Flag != "depth" {
		t.Errorf("depths: %+v", s)
	}
}

// TestSettingErrors: Validate's errors carry the setting they are about (SettingError:
// its config key, and the element for a list), which tune turns into the flag the user
// set; every key named is a declared setting or in a declared section.
func TestSettingErrors(t *testing.T) {
	for _, c := range []struct {
		edit       func(*config.Config)
		key, field string
	}{
		{func(c *config.Config) { c.VerifyGames = 3 }, "verify_games", ""},
		{func(c *config.Config) { c.Depths = []int{2, 0} }, "depths", "depths[1]"},
		{func(c *config.Config) { c.Method = config.MethodSPSA; c.SPSA = &config.SPSAConfig{Pairs: -1} }, "spsa.pairs", ""},
		{func(c *config.Config) { c.Mutation.LogSigma = -1 }, "mutation.log_sigma", ""},
		{func(c *config.Config) { c.TimeBudget = "soon" }, "time_budget", ""},
		{func(c *config.Config) { c.Selection = "lottery" }, "selection", ""},
		{func(c *config.Config) { c.Admission = "duel" }, "admission", ""},
		{func(c *config.Config) { c.Selection, c.Champions = config.SelectionPeers, 2 }, "champions", ""},
		{func(c *config.Config) { c.Resign = "movecount=x" }, "resign", ""},
		{func(c *config.Config) { c.Game = "go" }, "game", ""},
	} {
		cfg := config.DefaultConfig("gomoku")
		cfg.Method, cfg.Generations = config.MethodGA, 2
		c.edit(&cfg)
		err := cfg.Validate()
		var se *config.SettingError
		if !errors.As(err, &se) || se.Key != c.key || se.Field != c.field {
			t.Errorf("%s: %v (%#v), want a SettingError of %q %q", c.key, err, se, c.key, c.field)
			continue
		}
		section, _, _ := strings.Cut(se.Key, ".")
		if _, ok := config.LookupSetting(se.Key); !ok {
			if _, ok := config.LookupSetting(section); !ok { // mutation.log_sigma: the mutation section
				t.Errorf("%s: not a declared setting", se.Key)
			}
		}
		want := c.key
		if c.field != "" {
			want = c.field
		}
		if !strings.HasPrefix(err.Error(), want+": ") {
			t.Errorf("%s: message %q", c.key, err)
		}
	}
}

// TestBestColumn: every method heads its generations' best individual in its own terms,
// and the GA by how it picked it.
func TestBestColumn(t *testing.T) {
	seen := map[string]string{}
	for _, m := range Methods {
		c := config.DefaultConfig("gomoku")
		c.Method = m.Name
		h := m.BestColumn(c)
		if h == "" || seen[h] != "" {
			t.Errorf("%s: heading %q (also %s's)", m.Name, h, seen[h])
		}
		seen[h] = m.Name
	}
	ga, _ := config.LookupMethod(config.MethodGA)
	race, peers := config.DefaultConfig("gomoku"), config.DefaultConfig("gomoku")
	race.Selection, peers.Selection = config.SelectionRace, config.SelectionPeers
	if ga.BestColumn(race) != "RACE WINNER" || ga.BestColumn(peers) != "BEST OF PEERS" {
		t.Errorf("GA: race %q, peers %q", ga.BestColumn(race), ga.BestColumn(peers))
	}
}

// TestSettingsGrouped: every setting with a flag is in one of the groups --help shows.
func TestSettingsGrouped(t *testing.T) {
	for _, st := range config.Settings {
		if st.Flag != "" && !slices.Contains(config.Groups, st.Group) {
			t.Errorf("setting %s (--%s) has group %q, not one of %q", st.Key, st.Flag, st.Group, config.Groups)
		}
	}
}
