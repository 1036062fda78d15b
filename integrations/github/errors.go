package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
)

// localLimitWait recognises go-github's client-side guard (an error made up
// without a request because an earlier answer said the budget is spent) and
// returns how long to wait for it, when that is within MaxWait.
func (p *Provider) localLimitWait(err error) (time.Duration, bool) {
	var wait time.Duration
	var rle *gh.RateLimitError
	var abuse *gh.AbuseRateLimitError
	switch {
	case errors.As(err, &rle) && synthetic(rle.Response):
		wait = rle.Rate.Reset.Time.Sub(p.now()) + time.Second
	case errors.As(err, &abuse) && synthetic(abuse.Response) && abuse.RetryAfter != nil:
		wait = *abuse.RetryAfter
	default:
		return 0, false
	}
	if wait <= 0 {
		wait = time.Second
	}
	return wait, wait <= p.maxWait
}

// synthetic reports whether resp was made up by go-github (no headers from a
// server).
func synthetic(resp *http.Response) bool {
	return resp != nil && resp.Header.Get("X-RateLimit-Remaining") == "" && resp.Header.Get("Date") == ""
}

// wrap maps a go-github error onto *integrations.APIError with a redacted
// message.
func (p *Provider) wrap(op integrations.Op, tgt string, err error) error {
	if err == nil {
		return nil
	}
	var api *integrations.APIError
	if errors.As(err, &api) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("github %s %s: %w", op, tgt, err)
	}
	out := &integrations.APIError{System: System, Op: op, Target: tgt}
	var rle *gh.RateLimitError
	var abuse *gh.AbuseRateLimitError
	var er *gh.ErrorResponse
	switch {
	case errors.As(err, &rle):
		out.Kind = integrations.ErrRateLimited
		out.Status = statusOf(rle.Response)
		out.Message = "primary rate limit exhausted"
		out.RetryAt = rle.Rate.Reset.Time
	case errors.As(err, &abuse):
		out.Kind = integrations.ErrRateLimited
		out.Status = statusOf(abuse.Response)
		out.Message = "secondary rate limit: " + p.redact.String(abuse.Message)
		if abuse.RetryAfter != nil {
			out.RetryAt = p.now().Add(*abuse.RetryAfter)
		}
	case errors.As(err, &er):
		out.Status = statusOf(er.Response)
		out.Kind = integrations.KindForStatus(out.Status)
		out.Message = p.redact.String(er.Message)
		if out.Status == http.StatusForbidden && strings.Contains(strings.ToLower(er.Message), "rate limit") {
			out.Kind = integrations.ErrRateLimited
		}
		if len(er.Errors) > 0 {
			out.Fields = map[string]string{}
			for _, fe := range er.Errors {
				key := fe.Field
				if key == "" {
					key = fe.Resource
				}
				out.Fields[key] = p.redact.String(strings.TrimSpace(fe.Code + " " + fe.Message))
			}
		}
	case malformed(err):
		out.Kind = integrations.ErrMalformed
		out.Message = p.redact.String(err.Error())
	default:
		out.Kind = integrations.ErrUnavailable
		out.Message = p.redact.String(err.Error())
	}
	return out
}

// malformed reports an answer that arrived but could not be decoded: JSON
// that is cut short or invalid, or of a shape the client does not know.
func malformed(err error) bool {
	var syntax *json.SyntaxError
	var shape *json.UnmarshalTypeError
	return errors.As(err, &syntax) || errors.As(err, &shape) || errors.Is(err, io.ErrUnexpectedEOF)
}

func statusOf(resp *http.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

// isStatus reports whether err is an API error with the given status and a
// message containing msg (case-insensitive; "" matches any).
func isStatus(err error, status int, msg string) bool {
	var er *gh.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != status {
		return false
	}
	if msg == "" {
		return true
	}
	if strings.Contains(strings.ToLower(er.Message), strings.ToLower(msg)) {
		return true
	}
	for _, fe := range er.Errors {
		if strings.Contains(strings.ToLower(fe.Code+" "+fe.Message), strings.ToLower(msg)) {
			return true
		}
	}
	return false
}
