package service

import (
	"context"
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/runtime/authz"
)

// Waker carries "evaluate this item now" to the poller: the webhook feed's
// half of the one routing core the poller's sweep is the other half of.
// ref is a ticket reference as runtime.ParseTicketRef reads it
// ("github:OWNER/REPO#N") or WakeAll. A wake is a hint: one that is lost
// only makes the item wait for the next sweep.
type Waker interface {
	Wake(ctx context.Context, ref string) error
}

// WakeAll is the ref that asks for a whole sweep.
const WakeAll = "*"

// Delivery is one verified webhook delivery, read down to what it concerns.
type Delivery struct {
	// System is the ticket system that sent it ("github").
	System string
	// ID is the sender's delivery id (a redelivery reuses it).
	ID string
	// Event and Action name what happened ("issue_comment", "created").
	Event, Action string
	// Repo is the container it concerns (OWNER/REPO on GitHub, the
	// project key on Jira).
	Repo string
	// Numbers (GitHub) and Keys (Jira, e.g. "OPS-7") are the items it
	// concerns; AnyItem says any item may be (a commit status names no pull
	// request, a Jira issue link names its ends by id).
	Numbers []int
	Keys    []string
	AnyItem bool
	// Sender is the login whose action sent it.
	Sender string
}

// DeliveryOutcome is what Deliver did with a delivery.
type DeliveryOutcome string

// The outcomes of a delivery (also the metric's label values).
const (
	// DeliveryAccepted: recorded, and its items woken.
	DeliveryAccepted DeliveryOutcome = "accepted"
	// DeliveryDuplicate: its id was recorded before; nothing was done.
	DeliveryDuplicate DeliveryOutcome = "duplicate"
	// DeliveryIgnored: it concerns nothing the loop watches.
	DeliveryIgnored DeliveryOutcome = "ignored"
)

// DeliveryResult is Deliver's answer.
type DeliveryResult struct {
	Outcome DeliveryOutcome `json:"outcome"`
	// Reason says why a delivery was ignored.
	Reason string `json:"reason,omitempty"`
	// Woken are the refs the poller was asked to evaluate now.
	Woken []string `json:"woken,omitempty"`
}

// Deliver acts on a delivery whose signature the caller verified: an
// event about an item of a watched repository, sent by anyone but the
// loop itself, is recorded by its delivery id (once: a redelivery changes
// nothing) and wakes the poller for each item it concerns. It never reads
// or decides anything itself: the poller re-reads the item through the
// API, as its sweep does. An error means the delivery could not be
// recorded (the store): the sender should see a failure and may redeliver.
func (s *Service) Deliver(ctx context.Context, d Delivery) (DeliveryResult, error) {
	ignore := func(format string, args ...any) (DeliveryResult, error) {
		r := DeliveryResult{Outcome: DeliveryIgnored, Reason: fmt.Sprintf(format, args...)}
		s.log().Debug("webhook delivery ignored", "system", d.System, "delivery", d.ID, "event", d.Event, "repo", d.Repo, "reason", r.Reason)
		return r, nil
	}
	if len(d.Numbers) == 0 && len(d.Keys) == 0 && !d.AnyItem {
		return ignore("the loop acts on no %s event", eventName(d))
	}
	if !s.watches(d.System, d.Repo, d.AnyItem) {
		if d.Repo == "" {
			return ignore("no %s source is among polling.sources", d.System)
		}
		return ignore("%s is not among polling.sources", d.Repo)
	}
	if d.Sender != "" && authz.IsSelfLogin(s.cfg, d.Sender) {
		return ignore("sent by the loop's own account %s (routing.selfLogins)", d.Sender)
	}
	st, err := s.writableStore(ctx)
	if err != nil {
		return DeliveryResult{}, fmt.Errorf("record the %s delivery %s: %w", d.System, d.ID, err)
	}
	fresh, err := st.RecordDelivery(ctx, d.System, d.ID, d.Event, s.now())
	if err != nil {
		return DeliveryResult{}, fmt.Errorf("record the %s delivery %s: %w", d.System, d.ID, err)
	}
	if !fresh {
		s.log().Info("webhook delivery already received; nothing to do", "system", d.System, "delivery", d.ID, "event", d.Event)
		return DeliveryResult{Outcome: DeliveryDuplicate}, nil
	}
	refs := wakeRefs(d)
	res := DeliveryResult{Outcome: DeliveryAccepted}
	for _, ref := range refs {
		if s.deps.Waker == nil {
			break
		}
		if err := s.deps.Waker.Wake(ctx, ref); err != nil {
			s.log().Warn("webhook delivery recorded, but the poller could not be woken; the next sweep evaluates it", "delivery", d.ID, "ref", ref, "err", err)
			continue
		}
		res.Woken = append(res.Woken, ref)
	}
	s.log().Info("webhook delivery accepted", "system", d.System, "delivery", d.ID, "event", eventName(d), "woken", strings.Join(res.Woken, " "))
	return res, nil
}

func eventName(d Delivery) string {
	if d.Action == "" {
		return d.Event
	}
	return d.Event + "." + d.Action
}

// wakeRefs are the refs a delivery wakes: its items, or the whole sweep.
func wakeRefs(d Delivery) []string {
	if d.AnyItem && len(d.Numbers) == 0 && len(d.Keys) == 0 {
		return []string{WakeAll}
	}
	refs := make([]string, 0, len(d.Numbers)+len(d.Keys))
	for _, n := range d.Numbers {
		refs = append(refs, fmt.Sprintf("%s:%s#%d", d.System, d.Repo, n))
	}
	for _, k := range d.Keys {
		refs = append(refs, d.System+":"+k)
	}
	return refs
}

// watches reports whether polling.sources watch system's container
// (OWNER/REPO compared as GitHub does, without regard to case); an event
// about any item that names no container concerns every source of its
// system.
func (s *Service) watches(system, container string, anyItem bool) bool {
	for _, src := range s.cfg.Polling.Sources {
		if src.System != system {
			continue
		}
		if container == "" && anyItem {
			return true
		}
		list := src.Repos
		if system == "jira" {
			list = src.Projects
		}
		for _, c := range list {
			if strings.EqualFold(c, container) {
				return true
			}
		}
	}
	return false
}
