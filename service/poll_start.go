package service

import (
	"fmt"
	"os"
	"strings"

	"github.com/the-loop/the-loop/runtime/repoconfig"
)

// CheckSources refuses, before the first cycle, a source the poller could
// never poll: one with no checkout, or whose checkout is not a usable
// repository (missing, not a directory, an unreadable repository config).
// The error names the key, its file and line, and the fix; the poll command
// exits 2 on it instead of failing the source every cycle.
func (p *Poller) CheckSources() error {
	cfg := p.Svc.cfg
	var bad []string
	for i, src := range p.Sources {
		key := fmt.Sprintf("polling.sources[%d].checkout", i)
		where := cfg.Where(key)
		switch fi, err := os.Stat(src.Checkout); {
		case strings.TrimSpace(src.Checkout) == "":
			bad = append(bad, fmt.Sprintf("%s: the %s source %s names no checkout; set it to the local clone the gates are evaluated in", where, src.System, containers(src.System, src.Repos, src.Projects)))
		case err != nil:
			bad = append(bad, fmt.Sprintf("%s: %s cannot be used (%v); clone the repository there, or name the clone that exists", where, src.Checkout, err))
		case !fi.IsDir():
			bad = append(bad, fmt.Sprintf("%s: %s is not a directory; name the local clone the gates are evaluated in", where, src.Checkout))
		default:
			if _, err := repoconfig.Open(src.Checkout); err != nil {
				bad = append(bad, fmt.Sprintf("%s: %s is not a usable repository: %v", where, src.Checkout, err))
			}
		}
	}
	if len(bad) > 0 {
		return invalid(fmt.Errorf("%s", strings.Join(bad, "; ")))
	}
	return nil
}

// StartupWarnings are what the operator must know before the first cycle:
// settings with which the poller runs but does less than they expect.
func (p *Poller) StartupWarnings() []string {
	cfg := p.Svc.cfg
	var w []string
	if len(cfg.Routing.AuthorizedUsers) == 0 {
		w = append(w, cfg.Where("routing.authorizedUsers")+" is empty: the poller reads no comment as a command and arms nothing until you list the people who may (an empty list reads nothing)")
	}
	if len(cfg.Routing.SelfLogins) == 0 {
		w = append(w, cfg.Where("routing.selfLogins")+" is empty: the loop cannot prove which comments are its own, so it never reads back its posted checklist; set it to the loop's account")
	}
	seen := map[string]bool{}
	for _, src := range p.Sources {
		if seen[src.Checkout] {
			continue
		}
		seen[src.Checkout] = true
		if repo, err := repoconfig.Open(src.Checkout); err == nil {
			for _, rw := range repo.Warnings {
				w = append(w, src.Checkout+": "+rw)
			}
		}
	}
	return w
}

func containers(system string, repos, projects []string) string {
	if system == "jira" {
		return strings.Join(projects, ", ")
	}
	return strings.Join(repos, ", ")
}
