package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/the-loop/the-loop/service"
)

// benchRig is the rig of TestAReplyDeliveredByWebhookIsDecidedWithoutTheSweep:
// issue-1 waits at requirements-approval; the poller has an hour's interval.
func benchRig(b *testing.B) (*rig, *service.Poller) {
	b.Helper()
	r := newRig(b)
	p := &service.Poller{Svc: r.svc, Sources: r.svc.Config().Polling.Sources, Wake: r.wake}
	r.toRequirementsApproval(p)
	// A reply that decides nothing: the item stays at the gate, so every
	// delivery below is evaluated the same way.
	r.fake.AddComment(r.ref, "bob", "MEMBER", "Let me read it first.")
	p.RunOnce(context.Background())
	return r, p
}

// written is when the poller's heartbeat was last written (each cycle
// replaces it).
func written(b *testing.B, path string) time.Time {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return time.Time{}
	}
	if err != nil {
		b.Fatal(err)
	}
	return fi.ModTime()
}

// BenchmarkWebhookToEvaluation is a signed delivery about an item waiting
// at a human gate (a reply that is not a decision, so the item stays)
// until the poller it woke has evaluated the gate again: the latency a
// reviewer sees. BenchmarkIdleCycle, the same poller's cycle run directly,
// is its floor.
func BenchmarkWebhookToEvaluation(b *testing.B) {
	r, p := benchRig(b)
	p.StatusPath = filepath.Join(b.TempDir(), "poll-status.json")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, time.Hour) }()
	defer func() { cancel(); <-done }()
	for written(b, p.StatusPath).IsZero() {
		time.Sleep(time.Millisecond)
	}
	payload := commentPayload("octo/widgets", 1, "bob", "Let me read it first.")
	for i := 0; b.Loop(); i++ {
		before := written(b, p.StatusPath)
		code, body := r.post("issue_comment", fmt.Sprintf("bench-%d", i), payload, nil)
		if code != http.StatusAccepted {
			b.Fatalf("%d %s", code, body)
		}
		for !written(b, p.StatusPath).After(before) {
			time.Sleep(100 * time.Microsecond)
		}
	}
}

// BenchmarkIdleCycle is one cycle of the same poller over the same item,
// heartbeat included, run directly: the floor of
// BenchmarkWebhookToEvaluation.
func BenchmarkIdleCycle(b *testing.B) {
	_, p := benchRig(b)
	p.StatusPath = filepath.Join(b.TempDir(), "poll-status.json")
	ctx := context.Background()
	for b.Loop() {
		p.RunOnce(ctx)
	}
}

// BenchmarkDeliveryAccepted is the delivery alone: verified, recorded in
// the store and the wake posted, until the 202 is read.
func BenchmarkDeliveryAccepted(b *testing.B) {
	r := newRig(b)
	payload := commentPayload("octo/widgets", 1, "bob", "Let me read it first.")
	for i := 0; b.Loop(); i++ {
		if code, body := r.post("issue_comment", fmt.Sprintf("bench-%d", i), payload, nil); code != http.StatusAccepted {
			b.Fatalf("%d %s", code, body)
		}
		r.woken()
	}
}
