package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/store"
)

// recordingWaker remembers the refs it was asked to wake.
type recordingWaker struct{ refs []string }

func (w *recordingWaker) Wake(_ context.Context, ref string) error {
	w.refs = append(w.refs, ref)
	return nil
}

func deliverService(t *testing.T) (*Service, *recordingWaker) {
	t.Helper()
	cfg := config.Default()
	cfg.Routing.SelfLogins = []string{"the-loop-bot"}
	cfg.Polling.Sources = []config.Source{{System: "github", Repos: []string{"octo/widgets"}, Checkout: t.TempDir()}}
	w := &recordingWaker{}
	return testService(t, cfg, Deps{Waker: w}), w
}

func TestDeliverWakesTheItemsOfAWatchedRepository(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		d       Delivery
		outcome DeliveryOutcome
		woken   []string
		reason  string
	}{
		{"a comment", Delivery{Event: "issue_comment", Action: "created", Repo: "octo/widgets", Numbers: []int{7}, Sender: "alice"},
			DeliveryAccepted, []string{"github:octo/widgets#7"}, ""},
		{"owner and name in another case", Delivery{Event: "pull_request_review", Repo: "Octo/Widgets", Numbers: []int{3, 9}, Sender: "bob"},
			DeliveryAccepted, []string{"github:Octo/Widgets#3", "github:Octo/Widgets#9"}, ""},
		{"a status names no pull request", Delivery{Event: "status", Repo: "octo/widgets", AnyItem: true},
			DeliveryAccepted, []string{WakeAll}, ""},
		{"an unwatched repository", Delivery{Event: "issue_comment", Repo: "octo/other", Numbers: []int{7}, Sender: "alice"},
			DeliveryIgnored, nil, "octo/other is not among polling.sources"},
		{"an event about no item", Delivery{Event: "push", Repo: "octo/widgets"},
			DeliveryIgnored, nil, "the loop acts on no push event"},
		{"the loop's own comment coming back", Delivery{Event: "issue_comment", Action: "created", Repo: "octo/widgets", Numbers: []int{7}, Sender: "The-Loop-Bot"},
			DeliveryIgnored, nil, "sent by the loop's own account The-Loop-Bot (routing.selfLogins)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			svc, w := deliverService(t)
			c.d.System, c.d.ID = "github", "guid-"+c.name
			res, err := svc.Deliver(ctx, c.d)
			require.NoError(t, err)
			assert.Equal(t, c.outcome, res.Outcome)
			assert.Equal(t, c.reason, res.Reason)
			assert.Equal(t, c.woken, w.refs)
			assert.Equal(t, c.woken, res.Woken)
		})
	}
}

func TestARedeliveryChangesNothing(t *testing.T) {
	ctx := context.Background()
	svc, w := deliverService(t)
	d := Delivery{System: "github", ID: "72d3162e-cc78-11e3-81ab-4c9367dc0958", Event: "issue_comment", Repo: "octo/widgets", Numbers: []int{7}, Sender: "alice"}
	res, err := svc.Deliver(ctx, d)
	require.NoError(t, err)
	require.Equal(t, DeliveryAccepted, res.Outcome)
	res, err = svc.Deliver(ctx, d)
	require.NoError(t, err)
	assert.Equal(t, DeliveryDuplicate, res.Outcome)
	assert.Equal(t, []string{"github:octo/widgets#7"}, w.refs, "woken once")
}

func TestADeliveryTheStoreCannotRecordIsAnError(t *testing.T) {
	cfg := config.Default()
	cfg.Polling.Sources = []config.Source{{System: "github", Repos: []string{"octo/widgets"}}}
	blocker := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o600))
	w := &recordingWaker{}
	svc := testService(t, cfg, Deps{Waker: w, Store: store.NewHandle(filepath.Join(blocker, "state.db"))})
	_, err := svc.Deliver(context.Background(), Delivery{System: "github", ID: "x", Event: "issues", Repo: "octo/widgets", Numbers: []int{1}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "record the github delivery x")
	assert.Empty(t, w.refs, "nothing is woken for a delivery that was not recorded")
}

// The store wake reaches a listener on another handle of the same store,
// as a poller in another process listens.
func TestStoreWakerReachesAListenerOnTheStore(t *testing.T) {
	db := filepath.Join(t.TempDir(), "the-loop.db")
	other, err := store.Open(context.Background(), db)
	require.NoError(t, err)
	defer func() { _ = other.Close() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wakes, err := other.Wakes(ctx)
	require.NoError(t, err)
	h := store.NewHandle(db)
	defer func() { _ = h.Close() }()
	require.NoError(t, StoreWaker{Store: h}.Wake(context.Background(), "github:octo/widgets#1"))
	select {
	case ref := <-wakes:
		assert.Equal(t, "github:octo/widgets#1", ref)
	case <-time.After(10 * time.Second):
		t.Fatal("the listener got no wake")
	}
}
