package httpx

import (
	"math/rand/v2"
	"time"
)

// backoff is the wait before retry attempt: BaseDelay doubled per attempt,
// capped at MaxDelay, jittered.
func (t *Transport) backoff(attempt int) time.Duration {
	d := t.o.BaseDelay
	for i := 0; i < attempt && d < t.o.MaxDelay; i++ {
		d *= 2
	}
	if d > t.o.MaxDelay {
		d = t.o.MaxDelay
	}
	return t.o.Jitter(d)
}

// limitBackoff is the wait before retrying a rate limit that named no
// reset: MinLimitWait doubled per attempt.
func (t *Transport) limitBackoff(attempt int) time.Duration {
	d := t.o.MinLimitWait
	for i := 0; i < attempt; i++ {
		d *= 2
	}
	return d
}

// halfJitter picks a wait between half of d and d.
func halfJitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(d-half)+1))
}
