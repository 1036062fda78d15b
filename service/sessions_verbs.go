package service

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/store"
)

// SessionView is one agent session's record, as `the-loop sessions` shows it.
type SessionView struct {
	ID             string    `json:"id"`
	Repo           string    `json:"repo"`
	WorkItem       string    `json:"workItem"`
	Node           string    `json:"node"`
	PR             int       `json:"pr,omitempty"`
	PRRepo         string    `json:"prRepo,omitempty"`
	Harness        string    `json:"harness"`
	Runner         string    `json:"runner"`
	Model          string    `json:"model,omitempty"`
	Effort         string    `json:"effort,omitempty"`
	Argv           []string  `json:"argv"`
	PID            int       `json:"pid"`
	Attempt        int       `json:"attempt"`
	State          string    `json:"state"`
	Reason         string    `json:"reason,omitempty"`
	ExitStatus     string    `json:"exitStatus,omitempty"`
	StartedAt      time.Time `json:"startedAt"`
	EndedAt        time.Time `json:"endedAt,omitzero"`
	Transcript     string    `json:"transcript"`
	HarnessSession string    `json:"harnessSession,omitempty"`
	// Resume is the command that continues the harness's session by hand.
	Resume       string  `json:"resume,omitempty"`
	Attach       string  `json:"attach,omitempty"`
	Turns        int     `json:"turns"`
	Tokens       int64   `json:"tokens"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	CostUSD      float64 `json:"costUsd"`
	// CostSource is reported (by the harness), estimated (from its
	// prices) or "" (unknown: CostUSD means nothing).
	CostSource string `json:"costSource"`
	// Result is the session's final answer, Error its last error.
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
	// Confinement is how the session was confined: its layers (user, pid,
	// landlock), "none", or "" for a session an earlier release launched.
	Confinement string `json:"confinement,omitempty"`
	// TranscriptCut is how many bytes were cut from the transcript's head
	// to hold it to sessions.maxTranscriptBytes.
	TranscriptCut int64 `json:"transcriptCut,omitempty"`
}

// CostText says the session's cost: "$0.18", "$0.18 (estimated)" or
// "cost unknown".
func (v SessionView) CostText() string {
	return sessionCost(store.SessionUsage{CostUSD: v.CostUSD, CostSource: v.CostSource})
}

func (s *Service) viewOf(r store.Session) SessionView {
	return SessionView{ID: r.ID, Repo: r.Repo, WorkItem: r.WorkItem, Node: r.Node, PR: r.PR, PRRepo: r.PRRepo, Harness: r.Harness, Runner: r.Runner,
		Model: r.Model, Effort: r.Effort, Argv: r.Argv, PID: r.PID, Attempt: r.Attempt, State: r.State, Reason: r.Reason,
		ExitStatus: r.ExitStatus, StartedAt: r.StartedAt, EndedAt: r.EndedAt, Transcript: r.Transcript,
		HarnessSession: r.HarnessSession, Resume: s.resumeCommand(r.Harness, r.HarnessSession, r.Transcript), Attach: r.Attach, Turns: r.Turns, Tokens: r.Tokens,
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CostUSD: r.CostUSD, CostSource: r.CostSource, Result: r.Result, Error: r.Error,
		Confinement: r.Confinement, TranscriptCut: r.TranscriptCut}
}

// ConfinementNote says what a session's recorded confinement lacks ("" when
// it had every layer, or was launched by an earlier release).
func ConfinementNote(layers string) string {
	switch {
	case layers == "":
		return ""
	case layers == "none":
		return "unconfined (sessions.confinement: none): it could read what the poller reads"
	case !strings.Contains(","+layers+",", ",user,"):
		return "confined (" + layers + "), as the poller's own user"
	}
	return ""
}

// SessionsRequest selects sessions to list.
type SessionsRequest struct {
	// Repo is the repository key (an item's working tree); "" = all.
	Repo string `json:"repo"`
	// WorkItem keeps one item's sessions ("" = every item).
	WorkItem string `json:"workItem"`
	// State keeps one state (running, exited, stopped, timed_out,
	// over_budget, lost; "" = every state).
	State string `json:"state"`
	// Limit caps the list, newest first (0 = 50).
	Limit int `json:"limit"`
}

// SessionsResult is a list of sessions, newest first, and what they used
// per harness.
type SessionsResult struct {
	Sessions  []SessionView  `json:"sessions"`
	ByHarness []HarnessSpend `json:"byHarness"`
	Warnings  []string       `json:"-"`
}

var sessionStates = []string{store.SessionRunning, store.SessionExited, store.SessionStopped, store.SessionTimedOut, store.SessionOverBudget, store.SessionLost}

// Sessions lists recorded agent sessions.
func (s *Service) Sessions(ctx context.Context, req SessionsRequest) (SessionsResult, error) {
	if req.State != "" && !oneOfStrings(req.State, sessionStates) {
		return SessionsResult{}, invalid(fmt.Errorf("state %q is not one of %s%s", req.State, strings.Join(sessionStates, ", "), stateHint(req.State)))
	}
	if req.WorkItem != "" {
		if err := validID(req.WorkItem); err != nil {
			return SessionsResult{}, err
		}
	}
	if req.Limit <= 0 {
		req.Limit = 50
	}
	st, release, err := s.readStore(ctx)
	if err != nil {
		return SessionsResult{}, err
	}
	defer release()
	out := SessionsResult{Sessions: []SessionView{}, ByHarness: []HarnessSpend{}}
	if st == nil {
		return out, nil // no store yet: nothing was ever launched
	}
	f := store.SessionFilter{Repo: req.Repo, State: req.State}
	if req.Repo != "" {
		f.WorkItem = req.WorkItem
		f.Limit = req.Limit
	}
	recs, err := st.ListSessions(ctx, f)
	if err != nil {
		return SessionsResult{}, err
	}
	for _, r := range recs {
		if req.WorkItem != "" && r.WorkItem != req.WorkItem {
			continue
		}
		out.Sessions = append(out.Sessions, s.viewOf(r))
		if len(out.Sessions) == req.Limit {
			break
		}
	}
	out.ByHarness = byHarness(out.Sessions)
	if len(out.Sessions) == 0 && req.WorkItem != "" {
		out.Warnings = append(out.Warnings, itemSessionsHint(ctx, st, req.WorkItem))
	}
	return out, nil
}

// SessionRequest names one session.
type SessionRequest struct {
	Session string `json:"session"`
}

// SessionResult is one session.
type SessionResult struct {
	Session  SessionView `json:"session"`
	Warnings []string    `json:"-"`
}

// errNoSession marks a session id the store does not know.
var errNoSession = errors.New("no such session")

func (s *Service) session(ctx context.Context, id string) (store.Session, error) {
	if strings.TrimSpace(id) == "" {
		return store.Session{}, invalid(errors.New("name a session id (the-loop sessions list shows them)"))
	}
	st, release, err := s.readStore(ctx)
	if err != nil {
		return store.Session{}, err
	}
	defer release()
	if st == nil {
		return store.Session{}, invalid(fmt.Errorf("session %s: %w; no session was ever recorded here", id, errNoSession))
	}
	rec, found, err := st.GetSession(ctx, id)
	if err != nil {
		return store.Session{}, err
	}
	if !found {
		return store.Session{}, invalid(fmt.Errorf("session %s: %w; %s", id, errNoSession, sessionHint(ctx, st, id)))
	}
	return rec, nil
}

// SessionShow returns one session's record.
func (s *Service) SessionShow(ctx context.Context, req SessionRequest) (SessionResult, error) {
	rec, err := s.session(ctx, req.Session)
	if err != nil {
		return SessionResult{}, err
	}
	return SessionResult{Session: s.viewOf(rec)}, nil
}

// SessionLogsRequest names a session and how much of its output to read.
type SessionLogsRequest struct {
	Session string `json:"session"`
	// Lines is how many of the last lines to return (0 = 100).
	Lines int `json:"lines"`
	// Stderr reads the harness's error output instead of its transcript.
	Stderr bool `json:"stderr"`
}

// SessionLogsResult is the end of a session's transcript (or stderr).
type SessionLogsResult struct {
	Session   string   `json:"session"`
	Path      string   `json:"path"`
	Lines     []string `json:"lines"`
	Truncated bool     `json:"truncated"`
	Warnings  []string `json:"-"`
}

// maxLogRead bounds how much of a transcript SessionLogs reads.
const maxLogRead = 4 << 20

// SessionLogs returns the last lines of a session's transcript.
func (s *Service) SessionLogs(ctx context.Context, req SessionLogsRequest) (SessionLogsResult, error) {
	rec, err := s.session(ctx, req.Session)
	if err != nil {
		return SessionLogsResult{}, err
	}
	path := rec.Transcript
	if req.Stderr {
		path = filepath.Join(filepath.Dir(rec.Transcript), "stderr.log")
	}
	if req.Lines <= 0 {
		req.Lines = 100
	}
	out := SessionLogsResult{Session: rec.ID, Path: path, Lines: []string{}}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		out.Warnings = append(out.Warnings, path+" does not exist (the session printed nothing there)")
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("read the output of %s: %w", rec.ID, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxLogRead {
		if _, err := f.Seek(fi.Size()-maxLogRead, io.SeekStart); err == nil {
			out.Truncated = true
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLogRead)
	for sc.Scan() {
		out.Lines = append(out.Lines, sc.Text())
		if len(out.Lines) > req.Lines {
			out.Lines, out.Truncated = out.Lines[1:], true
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read the output of %s: %w", rec.ID, err)
	}
	return out, nil
}

// SessionStopRequest asks for a session to be stopped.
type SessionStopRequest struct {
	Session string `json:"session"`
	// Reason is recorded with the stop and on the item (required).
	Reason string `json:"reason"`
	// Actor names who stops it (the hold names them; "": an operator).
	Actor string `json:"actor"`
}

// SessionStopResult says what the stop did.
type SessionStopResult struct {
	Session  string   `json:"session"`
	WorkItem string   `json:"workItem"`
	Node     string   `json:"node"`
	Applied  bool     `json:"applied"`
	Message  string   `json:"message"`
	Warnings []string `json:"-"`
}

// SessionStop stops a running session and holds its item on its node, so
// a human can take the work over: no session is launched for the item
// there until it moves on (the human claims the node). The supervisor of
// the poller (or of `the-loop run`) acts on it within a cycle; one in this
// process acts at once.
func (s *Service) SessionStop(ctx context.Context, req SessionStopRequest) (SessionStopResult, error) {
	if strings.TrimSpace(req.Reason) == "" {
		return SessionStopResult{}, invalid(errors.New("give --reason: it is recorded with the stop and on the item"))
	}
	rec, err := s.session(ctx, req.Session)
	if err != nil {
		return SessionStopResult{}, err
	}
	if !rec.Running() {
		return SessionStopResult{}, invalid(fmt.Errorf("session %s is not running (it is %s: %s)", rec.ID, rec.State, rec.Reason))
	}
	st, err := s.writableStore(ctx)
	if err != nil {
		return SessionStopResult{}, err
	}
	stop := store.SessionStop{Session: rec.ID, Repo: rec.Repo, WorkItem: rec.WorkItem, Node: rec.Node, Reason: req.Reason,
		By: strings.TrimSpace(req.Actor), RequestedAt: s.now()}
	if err := st.RequestSessionStop(ctx, stop); err != nil && !errors.Is(err, store.ErrStopRequested) {
		return SessionStopResult{}, err
	}
	hold := takeoverOf(stop).Error()
	res := SessionStopResult{Session: rec.ID, WorkItem: rec.WorkItem, Node: rec.Node,
		Message: fmt.Sprintf("stop of %s requested: the poller (or `the-loop run`) stops it within one cycle. %s", rec.ID, hold)}
	if sup := s.deps.Sessions; sup != nil {
		if err := sup.Stop(ctx, rec.ID, req.Reason); err == nil {
			res.Applied = true
			res.Message = fmt.Sprintf("stopped %s. %s", rec.ID, hold)
			_ = st.MarkSessionStopApplied(ctx, rec.ID, s.now())
		} else if !errors.Is(err, sessions.ErrNotLive) {
			return res, err
		}
	}
	return res, nil
}

// sessionLine summarises an item's newest session for `graph status`.
func (s *Service) sessionLine(ctx context.Context, st *store.Store, repo, item string) string {
	if st == nil {
		return "none launched"
	}
	recs, err := st.ListSessions(ctx, store.SessionFilter{Repo: repo, WorkItem: item, Limit: 1})
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	if len(recs) == 0 {
		return "none launched"
	}
	r := recs[0]
	figures := fmt.Sprintf("%d turns, %d tokens, %s", r.Turns, r.Tokens, sessionCost(r.SessionUsage))
	if note := ConfinementNote(r.Confinement); note != "" {
		figures += "; " + note
	}
	if r.Running() {
		return fmt.Sprintf("%s running on %s for %s (attempt %d, %s; %s)", r.ID, r.Node, s.now().Sub(r.StartedAt).Round(time.Second), r.Attempt, r.Harness, figures)
	}
	return fmt.Sprintf("%s %s on %s (%s; %s)", r.ID, r.State, r.Node, r.ExitStatus, figures)
}

func oneOfStrings(v string, list []string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
