package service

import (
	"errors"

	"github.com/the-loop/the-loop/runtime"
)

// ErrInvalidRequest marks a request the caller must fix: a malformed work
// item id, a loop that is not shipped, a missing reason, a repository
// outside the served ones. The CLI exits 2 on it; an MCP tool returns its
// sentence so the model fixes the argument.
var ErrInvalidRequest = errors.New("invalid request")

// markedError is err, unchanged in its message, that also is kind.
type markedError struct{ err, kind error }

func (e markedError) Error() string   { return e.err.Error() }
func (e markedError) Unwrap() []error { return []error{e.err, e.kind} }

// mark returns err marked as kind (nil stays nil).
func mark(err, kind error) error {
	if err == nil {
		return nil
	}
	return markedError{err: err, kind: kind}
}

// validID is runtime.ValidateID, marked invalid.
func validID(id string) error { return invalid(runtime.ValidateID(id)) }

// invalid marks err as ErrInvalidRequest.
func invalid(err error) error { return mark(err, ErrInvalidRequest) }
