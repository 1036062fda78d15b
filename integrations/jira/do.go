package jira

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/httpx"
)

// errorBody is Jira's error document.
type errorBody struct {
	ErrorMessages []string          `json:"errorMessages"`
	Errors        map[string]string `json:"errors"`
	Message       string            `json:"message"`
}

// do sends one REST call through go-jira's request builder and Do, decoding a
// 2xx body into out and mapping any failure onto *integrations.APIError.
func (p *Provider) do(ctx context.Context, op integrations.Op, tgt, method, path string, body, out any) error {
	req, err := p.client.NewRequestWithContext(ctx, method, path, body)
	if err != nil {
		return fmt.Errorf("jira %s %s: build request: %w", op, tgt, p.redact.Error(err))
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.client.Do(req, out)
	if err == nil {
		if out == nil && resp != nil && resp.Body != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			_ = resp.Body.Close()
		}
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("jira %s %s: %w", op, tgt, err)
	}
	var httpResp *http.Response
	if resp != nil {
		httpResp = resp.Response
	}
	return p.apiError(op, tgt, httpResp, err)
}

func (p *Provider) apiError(op integrations.Op, tgt string, resp *http.Response, err error) error {
	out := &integrations.APIError{System: System, Op: op, Target: tgt}
	if resp == nil {
		out.Kind = integrations.ErrUnavailable
		out.Message = p.redact.String(err.Error())
		return out
	}
	out.Status = resp.StatusCode
	if resp.StatusCode < 300 {
		out.Kind = integrations.ErrMalformed
		out.Message = p.redact.String(err.Error())
		return out
	}
	out.Kind = integrations.KindForStatus(resp.StatusCode)
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		now := time.Now()
		if d, ok := httpx.RetryAfter(resp.Header, now); ok {
			out.RetryAt = now.Add(d)
		} else if at, ok := httpx.ResetTime(resp.Header, now); ok {
			out.RetryAt = at
		}
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var eb errorBody
	if json.Unmarshal(data, &eb) == nil && (len(eb.ErrorMessages) > 0 || len(eb.Errors) > 0 || eb.Message != "") {
		msgs := eb.ErrorMessages
		if eb.Message != "" {
			msgs = append(msgs, eb.Message)
		}
		out.Message = p.redact.String(strings.Join(msgs, "; "))
		if len(eb.Errors) > 0 {
			out.Fields = map[string]string{}
			keys := make([]string, 0, len(eb.Errors))
			for k := range eb.Errors {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				out.Fields[k] = p.redact.String(eb.Errors[k])
			}
		}
	} else {
		text := strings.TrimSpace(string(data))
		if len(text) > 200 {
			text = text[:200]
		}
		out.Message = p.redact.String(text)
	}
	return out
}
