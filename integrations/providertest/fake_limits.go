package providertest

import (
	"strconv"
	"time"
)

// SecondaryLimitNext answers the next request with the system's secondary
// rate-limit shape carrying Retry-After: GitHub's 403 "You have exceeded a
// secondary rate limit", Jira Cloud's 429.
func (s *Server) SecondaryLimitNext(retryAfter time.Duration) {
	secs := strconv.Itoa(int(retryAfter / time.Second))
	c := canned{headers: map[string]string{"Retry-After": secs}}
	switch s.system {
	case "github":
		c.status = 403
		c.headers["X-RateLimit-Remaining"] = "4000"
		c.body = `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`
	default:
		c.status = 429
		c.body = `{"errorMessages":["Rate limit exceeded."],"errors":{}}`
	}
	s.enqueue(c)
}

// PrimaryLimitNext answers the next request with the system's exhausted
// budget shape and a reset resetIn from now: GitHub's 403 with
// X-RateLimit-Remaining: 0 and an epoch X-RateLimit-Reset, Jira Cloud's 429
// with an ISO 8601 X-RateLimit-Reset.
func (s *Server) PrimaryLimitNext(resetIn time.Duration) {
	reset := time.Now().Add(resetIn)
	c := canned{headers: map[string]string{}}
	switch s.system {
	case "github":
		c.status = 403
		c.headers["X-RateLimit-Limit"] = "5000"
		c.headers["X-RateLimit-Remaining"] = "0"
		c.headers["X-RateLimit-Reset"] = strconv.FormatInt(reset.Unix(), 10)
		c.body = `{"message":"API rate limit exceeded for user ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits"}`
	default:
		c.status = 429
		c.headers["X-RateLimit-Reset"] = reset.UTC().Format(time.RFC3339)
		c.body = `{"errorMessages":["Rate limit exceeded."],"errors":{}}`
	}
	s.enqueue(c)
}

func (s *Server) enqueue(c canned) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, c)
}
