package relations

import (
	"context"
	"errors"
	"fmt"

	"github.com/the-loop/the-loop/integrations"
)

// DefaultMaxItems bounds one collection.
const DefaultMaxItems = 500

// Trackers are the readers a collection may ask.
type Trackers struct {
	// GitHub reads github refs on GitHubHost ("" for github.com).
	GitHub     integrations.RelationReader
	GitHubHost string
	// Jira reads jira refs.
	Jira integrations.RelationReader
}

// Options bounds a collection.
type Options struct {
	// MaxItems is the most tickets read (DefaultMaxItems when zero); a
	// larger graph is an error, never a partial one.
	MaxItems int
}

// Result is every ticket read, in the order read. Each item's lists carry
// its native relations, then the ones read from its body and mentions;
// every ref is canonical (see Trackers.Canon).
type Result struct {
	Items    []integrations.Relations
	Warnings []string
}

// Canon makes ref canonical for these trackers: a GitHub ref without a host
// is on the configured host, and a github.com one is "" when github.com is
// the configured host.
func (t Trackers) Canon(ref integrations.Ref) integrations.Ref {
	if ref.System != "github" {
		return ref
	}
	switch {
	case ref.Host == "":
		ref.Host = t.GitHubHost
	case ref.Host == gitHubDotCom && t.GitHubHost == "":
		ref.Host = ""
	}
	return ref
}

func (t Trackers) reader(ref integrations.Ref) integrations.RelationReader {
	switch {
	case ref.System == "jira" && t.Jira != nil:
		return t.Jira
	case ref.System == "github" && t.GitHub != nil && ref.Host == t.GitHubHost:
		return t.GitHub
	}
	return nil
}

// Collect reads roots and, transitively, every child, blocker and blocked
// ticket they name, across trackers. A ticket that cannot be read (no
// configured tracker, not found, no permission) is kept with state unknown
// and a warning, so it holds what waits for it; any other failure is an
// error.
func Collect(ctx context.Context, t Trackers, roots []integrations.Ref, opts Options) (Result, error) {
	limit := opts.MaxItems
	if limit <= 0 {
		limit = DefaultMaxItems
	}
	var res Result
	warned := map[string]bool{}
	warn := func(w string) {
		if !warned[w] {
			warned[w] = true
			res.Warnings = append(res.Warnings, w)
		}
	}
	queued := map[string]bool{}
	var queue []integrations.Ref
	push := func(ref integrations.Ref) {
		ref = t.Canon(ref)
		if k := Key(ref); !queued[k] {
			queued[k] = true
			queue = append(queue, ref)
		}
	}
	for _, r := range roots {
		push(r)
	}
	prefetched := map[string]bool{}
	for len(queue) > 0 {
		ref := queue[0]
		if len(res.Items) >= limit {
			return Result{}, fmt.Errorf("more than %d tickets are reachable from %s; refusing a partial dependency graph (narrow the plan to a smaller parent)", limit, roots[0])
		}
		t.prefetch(ctx, queue[:min(len(queue), limit-len(res.Items))], prefetched)
		queue = queue[1:]
		rel, err := t.read(ctx, ref, warn)
		if err != nil {
			return Result{}, err
		}
		t.merge(&rel, warn)
		res.Items = append(res.Items, rel)
		for _, list := range [][]integrations.Related{rel.Children, rel.BlockedBy, rel.Blocking} {
			for _, r := range list {
				push(r.Ref)
			}
		}
	}
	return res, nil
}

// Prefetcher is a RelationReader that reads many tickets ahead of their
// turn in fewer requests; ReadRelations then answers each from that read
// (its errors included).
type Prefetcher interface {
	Prefetch(ctx context.Context, refs []integrations.Ref)
}

// prefetch hands every queued ticket not yet handed to its reader, when
// that reader reads ahead: a collection then costs a batch per layer of
// the graph, not a read per ticket. The order of the reads, and so of the
// result, is unchanged.
func (t Trackers) prefetch(ctx context.Context, queue []integrations.Ref, done map[string]bool) {
	if done[Key(queue[0])] {
		return
	}
	batches := map[Prefetcher][]integrations.Ref{}
	var order []Prefetcher
	for _, ref := range queue {
		k := Key(ref)
		if done[k] {
			continue
		}
		done[k] = true
		pf, ok := t.reader(ref).(Prefetcher)
		if !ok {
			continue
		}
		if _, seen := batches[pf]; !seen {
			order = append(order, pf)
		}
		batches[pf] = append(batches[pf], ref)
	}
	for _, pf := range order {
		pf.Prefetch(ctx, batches[pf])
	}
}

// read asks ref's tracker; an unreadable ticket comes back with state
// unknown.
func (t Trackers) read(ctx context.Context, ref integrations.Ref, warn func(string)) (integrations.Relations, error) {
	unknown := func(reason string) integrations.Relations {
		warn(fmt.Sprintf("%s %s; it counts as unfinished", ref, reason))
		return integrations.Relations{Item: integrations.Related{Ref: ref, State: integrations.StateUnknown, Reason: reason}}
	}
	rd := t.reader(ref)
	if rd == nil {
		return unknown("is on no configured tracker"), nil
	}
	rel, err := rd.ReadRelations(ctx, ref)
	switch {
	case errors.Is(err, integrations.ErrNotFound):
		return unknown("was not found"), nil
	case errors.Is(err, integrations.ErrForbidden):
		return unknown("cannot be read with the configured credentials"), nil
	case err != nil:
		return integrations.Relations{}, fmt.Errorf("read the relations of %s: %w", ref, err)
	}
	for _, w := range rel.Warnings {
		warn(w)
	}
	rel.Item.Ref = t.Canon(rel.Item.Ref)
	return rel, nil
}

// merge canonicalizes rel's refs and adds the relations named in its body
// and mentions, each list holding a ticket once (native relations first).
func (t Trackers) merge(rel *integrations.Relations, warn func(string)) {
	home := rel.Item.Ref
	if rel.Parent != nil {
		rel.Parent.Ref = t.Canon(rel.Parent.Ref)
	}
	lists := map[integrations.RelationKind]*[]integrations.Related{
		integrations.RelChild: &rel.Children, integrations.RelBlockedBy: &rel.BlockedBy, integrations.RelBlocking: &rel.Blocking,
	}
	seen := map[string]bool{}
	for kind, list := range lists {
		kept := (*list)[:0]
		for _, r := range *list {
			r.Ref = t.Canon(r.Ref)
			if k := string(kind) + " " + Key(r.Ref); !seen[k] && Key(r.Ref) != Key(home) {
				seen[k] = true
				kept = append(kept, r)
			}
		}
		*list = kept
	}
	add := func(ref integrations.Ref, kind integrations.RelationKind, via string) {
		ref = t.Canon(ref)
		k := string(kind) + " " + Key(ref)
		if seen[k] || Key(ref) == Key(home) {
			return
		}
		seen[k] = true
		*lists[kind] = append(*lists[kind], integrations.Related{Ref: ref, State: integrations.StateUnknown, Via: via})
	}
	found, problems := ScanBody(rel.Body, home)
	for _, p := range problems {
		warn(p)
	}
	for _, f := range found {
		add(f.Ref, f.Kind, f.Via)
	}
	for _, m := range rel.Mentions {
		ref, err := Parse(m.Text, home)
		if err != nil || lists[m.Kind] == nil {
			warn(fmt.Sprintf("%s: a %s names %q, which is not a ticket reference; ignored", home, m.Via, m.Text))
			continue
		}
		add(ref, m.Kind, m.Via)
	}
}
