package httpx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// boundedBody is a response body whose reads end with the attempt's
// deadline: a server that sends its headers and then trickles the body
// cannot hold the caller past AttemptTimeout. Close releases the deadline.
type boundedBody struct {
	io.ReadCloser
	ctx    context.Context
	cancel context.CancelFunc
	limit  time.Duration
}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.ctx.Err() == context.DeadlineExceeded {
		err = attemptTimeoutError(b.limit, err)
	}
	return n, err
}

func (b *boundedBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// attemptTimeoutError says which bound cut a request off and where it is set.
func attemptTimeoutError(limit time.Duration, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no complete answer within %s (integrations.requestTimeoutSeconds): %w", limit, err)
	}
	return fmt.Errorf("no complete answer within %s (integrations.requestTimeoutSeconds): %w: %w", limit, context.DeadlineExceeded, err)
}

func drain(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
}

// ErrBodyTooLarge is returned when a response body exceeds a read limit.
var ErrBodyTooLarge = errors.New("response body too large")
