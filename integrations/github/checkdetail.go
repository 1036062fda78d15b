package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/plaintext"
)

var _ integrations.CheckDetailReader = (*Provider)(nil)

// Bounds of what is read of a job log: the last logWindow bytes (a range
// request), or, from a store that answers with the whole log, at most
// logReadLimit bytes streamed; the tail kept is at most logTailLines lines
// and logTailBytes bytes.
const (
	logWindow    = 64 << 10
	logReadLimit = 16 << 20
	logTailLines = 60
	logTailBytes = 6 << 10
)

// actionsApp is the app slug of GitHub Actions' check runs: the check run's
// id is the workflow job's id.
const actionsApp = "github-actions"

// ReadCheckDetails reads why check c of owner/repo failed: a check run's
// annotations (failures first) and, when GitHub Actions reported it, the
// end of its job's log. The log is reached through GitHub's redirect to
// its log store, which is fetched without the token (another host; the
// URL itself is the credential). A log the token may not read, one that
// expired, or a check that is not an Actions job is a note, not an error;
// an error means the check run itself could not be read.
func (p *Provider) ReadCheckDetails(ctx context.Context, owner, repo string, c integrations.Check) (integrations.CheckDetail, error) {
	op := integrations.OpReadCheckDetails
	d := integrations.CheckDetail{Check: c}
	if _, _, err := ParseRepo(owner + "/" + repo); err != nil {
		return d, integrations.Invalidf(System, op, "%v", err)
	}
	if c.Source != integrations.SourceCheckRun || c.ID <= 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("%s is a commit status: GitHub keeps only its state and description; its output is at %s", c.Name, orNone(c.URL)))
		return d, nil
	}
	tgt := fmt.Sprintf("%s/%s check run %d", owner, repo, c.ID)
	if c.Annotations > 0 {
		anns, err := listAll(ctx, p, op, tgt, "annotations", func(ctx context.Context, page int) ([]*gh.CheckRunAnnotation, *gh.Response, error) {
			return p.client.Checks.ListCheckRunAnnotations(ctx, owner, repo, c.ID, &gh.ListOptions{PerPage: perPage, Page: page})
		})
		if err != nil {
			return d, err
		}
		d.Annotations = annotations(anns)
	}
	if c.App != actionsApp {
		app := c.App
		if app == "" {
			app = "an app GitHub did not name"
		}
		d.Notes = append(d.Notes, fmt.Sprintf("%s was reported by %s, not GitHub Actions, so the loop reads no log of it; its output is at %s", c.Name, app, orNone(c.URL)))
		return d, nil
	}
	log, cut, note := p.jobLog(ctx, owner, repo, c)
	if note != "" {
		d.Notes = append(d.Notes, note)
	}
	if log != "" {
		d.Log, d.LogLines = Tail(p.redact.String(log), cut, logTailLines, logTailBytes)
	}
	return d, nil
}

// annotations keeps at most integrations.MaxAnnotations, failures first,
// then warnings, then notices, each group in GitHub's order.
func annotations(in []*gh.CheckRunAnnotation) []integrations.Annotation {
	rank := map[string]int{"failure": 0, "warning": 1}
	out := make([]integrations.Annotation, 0, len(in))
	for _, a := range in {
		out = append(out, integrations.Annotation{Path: a.GetPath(), StartLine: a.GetStartLine(), EndLine: a.GetEndLine(),
			Level: a.GetAnnotationLevel(), Title: a.GetTitle(), Message: a.GetMessage()})
	}
	slices.SortStableFunc(out, func(a, b integrations.Annotation) int {
		ra, ok := rank[a.Level]
		if !ok {
			ra = 2
		}
		rb, ok := rank[b.Level]
		if !ok {
			rb = 2
		}
		return ra - rb
	})
	return out[:min(len(out), integrations.MaxAnnotations)]
}

// jobLog reads the end of Actions job c's log. It returns the text read,
// whether its start was cut off, and, when it could not be read, a note
// saying why and what would let the loop read it.
func (p *Provider) jobLog(ctx context.Context, owner, repo string, c integrations.Check) (string, bool, string) {
	req, err := p.client.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/actions/jobs/%d/logs", owner, repo, c.ID), nil)
	if err != nil {
		return "", false, fmt.Sprintf("the log of %s could not be asked for: %v", c.Name, err)
	}
	// The client's transport adds the token and is not told to follow the
	// redirect: the log store is another host and must never see it.
	resp, err := p.client.Client().Transport.RoundTrip(req.WithContext(ctx))
	if err != nil {
		return "", false, fmt.Sprintf("the log of %s could not be read: %s", c.Name, p.redact.String(err.Error()))
	}
	defer drainClose(resp)
	switch resp.StatusCode {
	case http.StatusFound, http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusSeeOther:
	case http.StatusForbidden, http.StatusUnauthorized:
		return "", false, fmt.Sprintf("the log of %s could not be read: GitHub answered %d (%s); the token needs the Actions: read permission (a classic token: repo scope) for the loop to read job logs",
			c.Name, resp.StatusCode, p.apiMessage(resp))
	case http.StatusGone:
		return "", false, fmt.Sprintf("the log of %s has expired (410): GitHub keeps job logs for the repository's retention period", c.Name)
	case http.StatusNotFound:
		return "", false, fmt.Sprintf("GitHub has no log for %s (404): the job may have been deleted", c.Name)
	default:
		return "", false, fmt.Sprintf("the log of %s could not be read: GitHub answered %d (%s)", c.Name, resp.StatusCode, p.apiMessage(resp))
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Host == "" || !(loc.Scheme == "https" || loc.Scheme == "http" && loopback(loc.Hostname())) {
		return "", false, fmt.Sprintf("the log of %s could not be read: GitHub's redirect names no https address", c.Name)
	}
	return p.download(ctx, c, loc)
}

// download fetches the end of a log from the log store at loc, without
// the token: a range request for its last logWindow bytes, or, when the
// store answers with the whole log, a stream of at most logReadLimit bytes
// of which the last logWindow are kept.
func (p *Provider) download(ctx context.Context, c integrations.Check, loc *url.URL) (string, bool, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
	if err != nil {
		return "", false, fmt.Sprintf("the log of %s could not be asked for: %v", c.Name, err)
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=-%d", logWindow))
	resp, err := p.transport.RoundTrip(req)
	if err != nil {
		return "", false, fmt.Sprintf("the log store did not answer for %s: %s", c.Name, p.redact.String(scrubQuery(err.Error(), loc)))
	}
	defer drainClose(resp)
	switch resp.StatusCode {
	case http.StatusPartialContent:
		b, err := io.ReadAll(io.LimitReader(resp.Body, 2*logWindow))
		if err != nil {
			return "", false, fmt.Sprintf("the log of %s was cut off while it was read: %s", c.Name, p.redact.String(scrubQuery(err.Error(), loc)))
		}
		return string(b), !strings.HasPrefix(resp.Header.Get("Content-Range"), "bytes 0-"), ""
	case http.StatusOK:
		tail, total, err := lastBytes(resp.Body, logWindow, logReadLimit)
		switch {
		case errors.Is(err, errLogTooLong):
			return "", false, fmt.Sprintf("the log of %s is longer than %d MiB and its store sends it whole, so its end was not read", c.Name, logReadLimit>>20)
		case err != nil:
			return "", false, fmt.Sprintf("the log of %s was cut off while it was read: %s", c.Name, p.redact.String(scrubQuery(err.Error(), loc)))
		}
		return tail, total > int64(len(tail)), ""
	}
	return "", false, fmt.Sprintf("the log store answered %d for %s", resp.StatusCode, c.Name)
}

var errLogTooLong = errors.New("log too long")

// lastBytes streams r and keeps its last n bytes, refusing more than limit.
func lastBytes(r io.Reader, n int, limit int64) (string, int64, error) {
	buf := make([]byte, 0, 2*n)
	chunk := make([]byte, 32<<10)
	var total int64
	for {
		k, err := r.Read(chunk)
		total += int64(k)
		if total > limit {
			return "", total, errLogTooLong
		}
		buf = append(buf, chunk[:k]...)
		if len(buf) > 2*n {
			buf = append(buf[:0], buf[len(buf)-n:]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", total, err
		}
	}
	if len(buf) > n {
		buf = buf[len(buf)-n:]
	}
	return string(buf), total, nil
}

// apiMessage is the message of a GitHub error answer, redacted.
func (p *Provider) apiMessage(resp *http.Response) string {
	var body struct {
		Message string `json:"message"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&body) != nil || body.Message == "" {
		return http.StatusText(resp.StatusCode)
	}
	return p.redact.String(plaintext.Printable(body.Message))
}

// scrubQuery drops loc's query (the signed URL's credential) from msg.
func scrubQuery(msg string, loc *url.URL) string {
	if loc.RawQuery == "" {
		return msg
	}
	return strings.ReplaceAll(msg, "?"+loc.RawQuery, "?…")
}

func drainClose(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// loopback reports a loopback host (a test's log store).
func loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

func orNone(u string) string {
	if u == "" {
		return "(no URL given)"
	}
	return u
}
