package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestConditionsFoldTheLog(t *testing.T) {
	raise := func(kind, msg, since string) EventRecord {
		ev := ConditionEvent(EventConditionRaised, Condition{Kind: kind, Message: msg, Clears: "clears when " + kind + " passes", Since: since})
		ev.At = since
		return ev
	}
	ev := func(name, kind, at string, data map[string]any) EventRecord {
		d := map[string]any{"kind": kind}
		for k, v := range data {
			d[k] = v
		}
		return EventRecord{Name: name, At: at, Data: d}
	}
	log := []EventRecord{
		raise(ConditionPushRefused, "the remote refused", "2026-05-01T09:00:00Z"),
		{Name: "node.entered", At: "2026-05-01T09:00:01Z"},
		raise(ConditionTracker, "GitHub is down", "2026-05-01T09:01:00Z"),
		ev(EventConditionChanged, ConditionPushRefused, "2026-05-01T09:02:00Z", map[string]any{"message": "the remote refused again", "clears": "once a push goes through"}),
		ev(EventConditionNotified, ConditionPushRefused, "2026-05-01T09:31:00Z", nil),
		ev(EventConditionCleared, ConditionTracker, "2026-05-01T09:03:00Z", nil),
		ev(EventConditionCleared, ConditionLaunch, "2026-05-01T09:03:00Z", nil), // never raised: nothing to clear
	}
	got := Conditions(log)
	assert.Equal(t, []Condition{{Kind: ConditionPushRefused, Since: "2026-05-01T09:00:00Z", Message: "the remote refused again",
		Clears: "once a push goes through", Notified: "2026-05-01T09:31:00Z"}}, got)
	assert.Empty(t, Conditions(append(log, ev(EventConditionCleared, ConditionPushRefused, "2026-05-01T10:00:00Z", nil))))

	again := append(log, ev(EventConditionCleared, ConditionPushRefused, "2026-05-01T10:00:00Z", nil), raise(ConditionPushRefused, "refused anew", "2026-05-01T11:00:00Z"))
	assert.Equal(t, "2026-05-01T11:00:00Z", Conditions(again)[0].Since, "a condition raised again starts again")
	assert.Empty(t, Conditions(again)[0].Notified)

	now := time.Date(2026, 5, 1, 9, 5, 0, 0, time.UTC)
	assert.Equal(t, "`push-refused` since 2026-05-01 09:00:00 UTC, 5m0s ago: the remote refused again — once a push goes through", got[0].Line(now))
}
