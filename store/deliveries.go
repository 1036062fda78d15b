package store

import (
	"context"
	"fmt"
	"time"
)

// deliveriesSchema is migration 14: the webhook deliveries received, by
// their sender's id, so a redelivery (GitHub reuses the id) changes
// nothing.
var deliveriesSchema = []string{
	`CREATE TABLE deliveries (
		provider    TEXT NOT NULL CHECK (provider <> ''),
		id          TEXT NOT NULL CHECK (id <> ''),
		event       TEXT NOT NULL DEFAULT '',
		received_at TEXT NOT NULL CHECK (received_at <> ''),
		PRIMARY KEY (provider, id)
	) STRICT`,
	`CREATE INDEX deliveries_by_age ON deliveries (received_at)`,
}

var pgDeliveries = []string{
	`CREATE TABLE deliveries (
		provider    ` + pgText + ` NOT NULL CHECK (provider <> ''),
		id          ` + pgText + ` NOT NULL CHECK (id <> ''),
		event       ` + pgText + ` NOT NULL DEFAULT '',
		received_at ` + pgText + ` NOT NULL CHECK (received_at <> ''),
		PRIMARY KEY (provider, id)
	)`,
	`CREATE INDEX deliveries_by_age ON deliveries (received_at)`,
}

// DeliveryRetention is how long a delivery id is remembered; a redelivery
// older than that is taken as new (it only wakes an item early).
const DeliveryRetention = 30 * 24 * time.Hour

// MaxDeliveryID bounds a delivery id (GitHub's are GUIDs).
const MaxDeliveryID = 200

// RecordDelivery records the delivery id of provider's webhook event once:
// fresh is true when it was not recorded before (ON CONFLICT DO NOTHING),
// false for a redelivery. Ids older than DeliveryRetention are forgotten
// on the way.
func (s *Store) RecordDelivery(ctx context.Context, provider, id, event string, at time.Time) (fresh bool, err error) {
	switch {
	case provider == "" || id == "":
		return false, fmt.Errorf("record a delivery: the provider (%q) and the delivery id (%q) are both required", provider, id)
	case len(id) > MaxDeliveryID:
		return false, fmt.Errorf("record a delivery: the delivery id is %d bytes, more than %d", len(id), MaxDeliveryID)
	case at.IsZero():
		return false, fmt.Errorf("record the delivery %s: no time given", id)
	case s.readOnly:
		return false, fmt.Errorf("record the delivery %s: store %s: %w", id, s.path, ErrReadOnly)
	}
	if _, err := s.write.ExecContext(ctx, `DELETE FROM deliveries WHERE received_at < ?`, stamp(at.Add(-DeliveryRetention))); err != nil {
		return false, describe(s.path, "forget old deliveries in", err)
	}
	res, err := s.write.ExecContext(ctx, `INSERT INTO deliveries (provider, id, event, received_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (provider, id) DO NOTHING`, provider, id, event, stamp(at))
	if err != nil {
		return false, describe(s.path, "record a delivery in", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, describe(s.path, "record a delivery in", err)
	}
	return n == 1, nil
}
