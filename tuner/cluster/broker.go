package cluster

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
)

// ReadToken is the broker token clients give: the one line of file (--token-file), or
// $EVOTUNE_BROKER_TOKEN when file is "" ("" when that is unset). Never from the command
// line itself (every user of the machine sees it in ps). Errors name --token-file.
func ReadToken(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv(TokenEnv)), nil
	}
	data, err := engine.ReadInputFile(file, "token", 4096)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	tok := strings.TrimSpace(string(data))
	if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("--token-file %s: want one line holding the token", file)
	}
	return tok, nil
}

// BrokerConfig is `evotune broker` as its flags state it: Addr (--addr, host:port), Store
// (--store, JetStream's directory), TokenFile (--token-file: the token clients must give;
// "" = a random token kept in Store/token) and NoAuth (--no-auth: no token, loopback only).
type BrokerConfig struct {
	Addr, Store, TokenFile string
	NoAuth                 bool
}

// ServeBroker runs an embedded NATS broker with JetStream as c says until ctx ends, and
// tells log where it listens and where clients find the token. Errors name the flag: a bad
// --addr, --no-auth with --token-file or on an address other than loopback, a --store that
// cannot be made, an unreadable token; a broker that does not start (a port in use).
func ServeBroker(ctx context.Context, c BrokerConfig, log io.Writer) error {
	addr, store, tokenFile, noAuth := c.Addr, c.Store, c.TokenFile, c.NoAuth
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return fmt.Errorf("--addr %q: bad port", addr)
	}
	loopback := host == "localhost"
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		loopback = true
	}
	switch {
	case noAuth && tokenFile != "":
		return fmt.Errorf("--no-auth and --token-file: choose one")
	case noAuth && !loopback:
		return fmt.Errorf("--no-auth on %s: anyone who reaches that address could queue games for the workers; use the token (the default)", addr)
	}
	if !loopback {
		fmt.Fprintf(log, "warning: the broker listens on %s, not loopback: the token is all that keeps others from queuing games; use TLS (a NATS server of your own) on networks you do not trust\n", addr)
	}
	if err := os.MkdirAll(store, 0o755); err != nil {
		return fmt.Errorf("--store: %w", err)
	}
	token := ""
	if !noAuth {
		if tokenFile == "" {
			tokenFile = filepath.Join(store, "token")
			if err := ensureToken(tokenFile); err != nil {
				return err
			}
		}
		if token, err = ReadToken(tokenFile); err != nil {
			return err
		}
	}
	s, err := StartBroker(host, port, store, token)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "broker: NATS with JetStream on nats://%s (store %s); stop with Ctrl-C\n", s.Addr(), store)
	if token != "" {
		abs, _ := filepath.Abs(tokenFile)
		fmt.Fprintf(log, "broker: clients need the token in %s: copy it to the worker machines and give --token-file FILE, or export %s=\"$(cat %s)\"\n", abs, TokenEnv, protocol.ShellQuote(abs))
	}
	<-ctx.Done()
	s.Shutdown()
	s.WaitForShutdown()
	fmt.Fprintln(log, "broker: stopped")
	return nil
}

// ensureToken writes a new random token (32 bytes, hexadecimal) to path with mode 0600
// unless the file exists.
func ensureToken(path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("broker token: %w", err)
	}
	_, werr := fmt.Fprintln(f, hex.EncodeToString(b))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return fmt.Errorf("broker token: %w", werr)
	}
	return nil
}

// BusyText names the runs whose tasks a worker holds (bs, its heartbeat's Busy) and for how long, the longest held
// first: "run 3 (gomoku) of h/40 for 1m2s"; "-" when it holds none.
func BusyText(bs []Busy) string {
	if len(bs) == 0 {
		return "-"
	}
	var parts []string
	seen := map[string]bool{}
	for _, b := range bs {
		if !seen[b.Run] {
			seen[b.Run] = true
			parts = append(parts, fmt.Sprintf("%s for %v", b.Run, (time.Duration(b.Seconds)*time.Second).Round(time.Second)))
		}
	}
	return strings.Join(parts, ", ")
}

// BuildVersion is the version tasks carry and workers compare: the program version and a
// fingerprint of this build, the git revision it was built from (a clean tree) or else the
// SHA-256 of the executable, so that a rebuilt engine without a version bump neither mixes
// its results with another build's nor reads back a batch the other build played (batch IDs
// hash it): "0.4.0+git.0123456789ab", "0.4.0+sha256.…", or version alone.
func BuildVersion(version string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, clean := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				clean = s.Value == "false"
			}
		}
		if rev != "" && clean {
			return version + "+git." + rev[:min(12, len(rev))]
		}
	}
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				return version + "+sha256." + hex.EncodeToString(h.Sum(nil))[:12]
			}
		}
	}
	return version
}
