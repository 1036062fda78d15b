package classify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// ErrInvalidOutput marks an external classifier answer that is not the
// expected JSON object. The answer itself is never quoted back.
var ErrInvalidOutput = errors.New("the classifier's answer is not a JSON object {\"outcome\": approved|approved-with-comments|changes-requested|undecided, \"reason\": string}")

// maxOutput caps what is read from the classifier's stdout.
const maxOutput = 64 << 10

// External runs an operator-configured classifier program. The program is
// run directly from Command (argv, never through a shell), reads one JSON
// document on stdin (ExternalInput) and must print exactly one JSON object
// {"outcome": "...", "reason": "..."} whose outcome is one of the four
// Outcome values; any other answer — unknown keys, a missing key, another
// outcome, trailing text — is invalid. Failed attempts are retried up to
// Retries more times, each bounded by Timeout.
type External struct {
	Command []string
	Timeout time.Duration
	Retries int
}

// ExternalComment is one authorized reply given to the program.
type ExternalComment struct {
	Author string `json:"author"`
	Body   string `json:"body"`
	URL    string `json:"url,omitempty"`
}

// ExternalInput is the document the program reads on stdin.
type ExternalInput struct {
	// Gate is the graph node asking ("requirements-approval").
	Gate string `json:"gate"`
	// Subject is the artifact under review ("requirements.md"), if any.
	Subject string `json:"subject,omitempty"`
	// Comments are the authorized replies, oldest first; the newest
	// decisive one decides.
	Comments []ExternalComment `json:"comments"`
	// Outcomes lists the answers the program may give.
	Outcomes []Outcome `json:"outcomes"`
}

// Classify runs the program and returns its validated verdict, or the last
// error after every attempt failed. An error never carries the program's
// output.
func (e External) Classify(ctx context.Context, in ExternalInput) (Verdict, error) {
	if len(e.Command) == 0 || e.Command[0] == "" {
		return Verdict{}, errors.New("no classifier command is configured (routing.classifier.command)")
	}
	in.Outcomes = []Outcome{Approved, ApprovedWithComments, ChangesRequested, Undecided}
	payload, err := json.Marshal(in)
	if err != nil {
		return Verdict{}, fmt.Errorf("encode the classifier input: %w", err)
	}
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	attempts := 1 + max(0, e.Retries)
	var last error
	for i := 0; i < attempts; i++ {
		if err := ctx.Err(); err != nil {
			return Verdict{}, fmt.Errorf("classifier %s: stopped after %d attempt(s): %w", e.Command[0], i, err)
		}
		v, err := e.once(ctx, payload, timeout)
		if err == nil {
			return v, nil
		}
		last = err
	}
	return Verdict{}, fmt.Errorf("classifier %s: no valid answer after %d attempt(s): %w", e.Command[0], attempts, last)
}

func (e External) once(ctx context.Context, payload []byte, timeout time.Duration) (Verdict, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Command[0], e.Command[1:]...)
	cmd.Stdin = bytes.NewReader(payload)
	var out capped
	out.limit = maxOutput
	cmd.Stdout = &out
	cmd.Stderr = io.Discard
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return Verdict{}, fmt.Errorf("timed out after %s", timeout)
		}
		return Verdict{}, fmt.Errorf("run: %w", err)
	}
	if out.over {
		return Verdict{}, fmt.Errorf("%w (the answer exceeds %d bytes)", ErrInvalidOutput, maxOutput)
	}
	return parseAnswer(out.buf.Bytes())
}

// parseAnswer validates the program's answer against the schema.
func parseAnswer(b []byte) (Verdict, error) {
	var ans struct {
		Outcome *string `json:"outcome"`
		Reason  *string `json:"reason"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ans); err != nil {
		return Verdict{}, ErrInvalidOutput
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Verdict{}, fmt.Errorf("%w (text follows the object)", ErrInvalidOutput)
	}
	if ans.Outcome == nil || ans.Reason == nil {
		return Verdict{}, fmt.Errorf("%w (outcome and reason are both required)", ErrInvalidOutput)
	}
	o := Outcome(*ans.Outcome)
	if !o.Valid() {
		return Verdict{}, fmt.Errorf("%w (the outcome is not one of the four)", ErrInvalidOutput)
	}
	return Verdict{Outcome: o, Reason: *ans.Reason}, nil
}

// capped is a writer that keeps at most limit bytes and notes overflow.
type capped struct {
	buf   bytes.Buffer
	limit int
	over  bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.limit - c.buf.Len(); room < len(p) {
		c.over = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}
