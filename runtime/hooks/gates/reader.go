package gates

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
)

// gateNewestOwn returns the newest comment the loop posted that carries
// marker.
func gateNewestOwn(cfg *config.Config, comments []integrations.Comment, marker string) (integrations.Comment, bool) {
	for i := len(comments) - 1; i >= 0; i-- {
		if c := comments[i]; strings.Contains(c.Body, marker) && authz.OwnComment(cfg, c) {
			return c, true
		}
	}
	return integrations.Comment{}, false
}

// gateEventComments returns the event's comments (none under check).
func gateEventComments(hc *runtime.HookContext) []integrations.Comment {
	if hc.Event == nil {
		return nil
	}
	return hc.Event.Comments
}

// gateCurrentVisit drops the comments that precede this node's newest
// review request in the thread: a gate re-entered after changes were
// requested must not re-read the feedback of its previous visit. When the
// comments hold no request (an event carrying only new comments), all are
// kept.
func gateCurrentVisit(hc *runtime.HookContext, comments []integrations.Comment) []integrations.Comment {
	marker := ReviewMarker(hc.NodeID())
	for i := len(comments) - 1; i >= 0; i-- {
		if strings.Contains(comments[i].Body, marker) && authz.OwnComment(hc.Config, comments[i]) {
			return comments[i+1:]
		}
	}
	return comments
}

// gateMergeComments joins two comment lists, dropping repeats (the same
// ID or the same URL) and keeping first-seen order.
func gateMergeComments(a, b []integrations.Comment) []integrations.Comment {
	seen := map[string]bool{}
	var out []integrations.Comment
	for _, list := range [][]integrations.Comment{a, b} {
		for _, c := range list {
			var keys []string
			if c.ID != 0 {
				keys = append(keys, fmt.Sprintf("id:%d", c.ID))
			}
			if c.URL != "" {
				keys = append(keys, "url:"+c.URL)
			}
			dup := false
			for _, k := range keys {
				dup = dup || seen[k]
				seen[k] = true
			}
			if !dup {
				out = append(out, c)
			}
		}
	}
	return out
}
