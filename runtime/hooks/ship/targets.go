// Package ship holds the hooks of the ready-to-ship gate: posting the
// reviewer briefing on each pull request of a work item, and reading GitHub
// for each pull request's head commit (checks, review threads, the posted
// briefing, the capability docs) through shipready.Evaluate.
package ship

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

// prLoop is the inner loop's graph: its one pull request is its ticket.
const prLoop = "pdlc-pr-loop"

// target is one pull request a hook evaluates.
type target struct {
	ref  integrations.Ref // system github, Owner, Repo, Number
	name string           // OWNER/REPO#N
}

// targets are the pull requests the node answers for: an inner loop's own
// pull request (its ticket), else every pull request linked to the work
// item that was not closed without merging. why says why there is none.
func targets(hc *runtime.HookContext) ([]target, string) {
	if hc.Graph != nil && hc.Graph.Name == prLoop {
		ref := hc.TicketRef
		if ref.System != "github" || ref.Number <= 0 {
			ref, _ = runtime.ParseTicketRef(hc.WorkItem.Ref)
		}
		if ref.System != "github" || ref.Number <= 0 {
			return nil, fmt.Sprintf("this pull request loop names no GitHub pull request (%s)", hc.WorkItem.Ref)
		}
		return []target{{ref: ref, name: fmt.Sprintf("%s/%s#%d", ref.Owner, ref.Repo, ref.Number)}}, ""
	}
	var out []target
	if hc.State != nil {
		for _, l := range hc.State.PullRequests {
			if l.State == runtime.PullClosed {
				continue
			}
			owner, repo, _ := strings.Cut(l.Repo, "/")
			out = append(out, target{ref: integrations.Ref{System: "github", Owner: owner, Repo: repo, Number: l.Number}, name: l.Key()})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Sprintf("no pull request is linked to %s yet: open one with `the-loop pr create --work-item %s`", hc.WorkItem.ID, hc.WorkItem.ID)
	}
	return out, ""
}

// host is the provider the pull requests are read through: the code host,
// else the tracker when it is GitHub's.
func host(hc *runtime.HookContext) integrations.Provider {
	if hc.CodeHost != nil {
		return hc.CodeHost
	}
	if hc.Tracker != nil && hc.Tracker.Name() == "github" {
		return hc.Tracker
	}
	return nil
}

// prefix names t in a message when several pull requests are evaluated.
func prefix(ts []target, t target) string {
	if len(ts) < 2 {
		return ""
	}
	return t.name + ": "
}
