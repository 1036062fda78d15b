package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providers"
	"github.com/the-loop/the-loop/runtime"
)

// HandoffPostRequest posts a handoff record on a ticket.
type HandoffPostRequest struct {
	// Repo is the local checkout whose harness config names the spec
	// folder ("" = the default repository).
	Repo string `json:"repo"`
	// WorkItem is the ticket: github:OWNER/REPO#N, OWNER/REPO#N, an issue
	// URL, jira:KEY-1 or KEY-1.
	WorkItem string `json:"workItem"`
	// Record is the record; Files holds the bodies for carried-by ticket.
	Record handoff.Record `json:"record"`
	// By is the person the record is posted for — the authenticated
	// principal that asked (the CLI's and stdio's operator, routing.operator;
	// an OAuth caller's subject). It must be in routing.authorizedUsers: the
	// loop never stands as a record's author.
	By string `json:"-"`
}

// UnmarshalJSON decodes a request (the handoff_post tool's arguments) with
// the record read strictly, as handoff.DecodeJSON reads it: an unknown
// field is refused. "files" holds the carried files' bodies by artifact
// name, for a record carried by the ticket.
func (r *HandoffPostRequest) UnmarshalJSON(data []byte) error {
	var in struct {
		Repo     string            `json:"repo"`
		WorkItem string            `json:"workItem"`
		Record   json.RawMessage   `json:"record"`
		Files    map[string]string `json:"files"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	rec, err := handoff.DecodeJSON(in.Record)
	if err != nil {
		return invalid(fmt.Errorf("record: %w", err))
	}
	rec.Files = in.Files
	r.Repo, r.WorkItem, r.Record = in.Repo, in.WorkItem, rec
	return nil
}

// validFiles refuses carried-file bodies keyed by anything but an
// artifact name.
func validFiles(files map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !handoff.IsArtifactName(name) {
			return invalid(fmt.Errorf("files: %q is not an artifact name; use %s", name, strings.Join(handoff.ChainOrder(), ", ")))
		}
	}
	return nil
}

// PostedComment is one comment of a posted record.
type PostedComment struct {
	// Part is 0 for the record, n for continuation part n.
	Part int    `json:"part"`
	ID   int64  `json:"id"`
	URL  string `json:"url"`
	// Existing is true when the identical comment was already on the
	// thread (a retried post), so nothing was posted for it.
	Existing bool `json:"existing"`
}

// HandoffPostResult says what was posted.
type HandoffPostResult struct {
	Ref      string          `json:"ref"`
	WorkItem string          `json:"workItem"`
	Comments []PostedComment `json:"comments"`
	// Warnings are pointers of the record that could not be checked.
	Warnings []string `json:"warnings"`
}

// ErrHandoffRefused marks a record that was not posted because it is
// invalid or points at something that does not exist.
var ErrHandoffRefused = errors.New("handoff record not posted")

// selfTrailerChars is what MarkSelfAuthored adds to a comment.
var selfTrailerChars = utf8.RuneCountInString("\n\n" + integrations.SelfAttribution + "\n" + integrations.SelfMarker + "\n")

// HandoffPost renders the record and its continuation parts and posts them,
// self-marked, on the ticket, in order. It is the record step of the
// handoff's fixed post order (issue, Jira copy, spec branch and draft PR,
// spec-chain artifact, record, arming): before posting it checks that what
// the record points at exists — the ticket, the spec branch's files with
// their hashes and its pull request, the Jira copy — and posts nothing
// otherwise. Comments already on the thread, identical and the loop's own,
// are not posted again, so a failed post can simply be retried.
func (s *Service) HandoffPost(ctx context.Context, req HandoffPostRequest) (HandoffPostResult, error) {
	ref, err := providers.ParseRef(req.WorkItem)
	if err != nil {
		return HandoffPostResult{}, fmt.Errorf("%w: workItem: %v", ErrHandoffRefused, err)
	}
	res := HandoffPostResult{Ref: ref.String(), WorkItem: workItemID(ref), Comments: []PostedComment{}, Warnings: []string{}}
	if err := validFiles(req.Record.Files); err != nil {
		return res, fmt.Errorf("%w: %w", ErrHandoffRefused, err)
	}
	postedBy, err := s.handoffPoster(req.By)
	if err != nil {
		return res, fmt.Errorf("%w: %v", ErrHandoffRefused, err)
	}
	bodies, err := handoff.RenderWithLimit(req.Record, handoff.MaxCommentChars-selfTrailerChars-utf8.RuneCountInString(postedBy)-1)
	if err != nil {
		return res, fmt.Errorf("%w: %v", ErrHandoffRefused, err)
	}
	bodies[0] = strings.TrimRight(bodies[0], "\n") + "\n" + postedBy + "\n"
	p, err := s.provider("handoff", ref.System)
	if err != nil {
		return res, err
	}
	if err := s.checkPointers(ctx, p, ref, req, &res); err != nil {
		return res, fmt.Errorf("%w: %v", ErrHandoffRefused, err)
	}
	thread, err := p.ListComments(ctx, ref)
	if err != nil {
		return res, fmt.Errorf("list the comments of %s: %w", ref, err)
	}
	for i, b := range bodies {
		marked := integrations.MarkSelfAuthored(b)
		if c, ok := s.ownComment(thread, marked); ok {
			res.Comments = append(res.Comments, PostedComment{Part: i, ID: c.ID, URL: c.URL, Existing: true})
			continue
		}
		c, err := p.CreateComment(ctx, ref, marked)
		if err != nil {
			return res, fmt.Errorf("post %s of the handoff record on %s (%d of %d comments posted; retry: posted ones are not repeated): %w",
				partName(i), ref, i, len(bodies), err)
		}
		res.Comments = append(res.Comments, PostedComment{Part: i, ID: c.ID, URL: c.URL})
	}
	s.log().Info("handoff record posted", "ref", ref.String(), "comments", len(bodies))
	return res, nil
}

// handoffPoster checks the person a record is posted for and returns the
// posted-by line naming them.
func (s *Service) handoffPoster(by string) (string, error) {
	by = strings.TrimPrefix(strings.TrimSpace(by), "@")
	switch {
	case by == "":
		return "", errors.New("nobody to attribute the record to: a handoff is posted for a person — set routing.operator to your ticket login (CLI and stdio), or call as an authenticated OAuth user")
	case !IsAuthorized(s.cfg, by):
		return "", fmt.Errorf("@%s is not in routing.authorizedUsers, so a record posted for them would never be honoured; a handoff needs an authorized person", by)
	}
	return handoff.PostedByLine(by)
}

func partName(i int) string {
	if i == 0 {
		return "the record"
	}
	return fmt.Sprintf("continuation part %d", i)
}

// ownComment finds a comment with exactly body that the loop itself posted.
func (s *Service) ownComment(thread []integrations.Comment, body string) (integrations.Comment, bool) {
	for _, c := range thread {
		if c.Body == body && IsSelfComment(s.cfg, c) {
			return c, true
		}
	}
	return integrations.Comment{}, false
}

// checkPointers refuses a record whose ticket, spec branch, pull request or
// Jira copy does not exist (or whose branch files differ from the hashes).
// What cannot be checked through the configured integrations is a warning.
func (s *Service) checkPointers(ctx context.Context, p integrations.Provider, ref integrations.Ref, req HandoffPostRequest, res *HandoffPostResult) error {
	if _, err := p.GetIssue(ctx, ref); err != nil {
		return fmt.Errorf("the ticket %s: %w", ref, err)
	}
	rec := req.Record
	if rec.CarriedBy == handoff.CarriedByBranch {
		if ref.System != "github" {
			res.Warnings = append(res.Warnings, fmt.Sprintf("branch %s was not checked: %s is not a GitHub issue, so no repository is known", rec.Branch, ref))
		} else if err := s.checkBranch(ctx, p, ref, req); err != nil {
			return err
		}
	}
	if rec.Mirror != "" {
		_, key, _ := strings.Cut(strings.TrimPrefix(rec.Mirror, "jira:"), "/")
		jp, err := s.provider("handoff", "jira")
		if err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("mirror %s was not checked: %v", rec.Mirror, err))
			return nil
		}
		if _, err := jp.GetIssue(ctx, integrations.Ref{System: "jira", Key: key}); err != nil {
			return fmt.Errorf("mirror %s: %w", rec.Mirror, err)
		}
	}
	return nil
}

// checkBranch reads every carried file from the spec branch and compares
// its hash, and checks the draft pull request's head is that branch.
func (s *Service) checkBranch(ctx context.Context, p integrations.Provider, ref integrations.Ref, req HandoffPostRequest) error {
	rec := req.Record
	specRoot := runtime.DefaultSpecRoot
	if repo, err := s.openRepo(req.Repo); err == nil {
		specRoot = repo.SpecRoot
	}
	dir := path.Join(specRoot, workItemID(ref))
	for _, a := range rec.Artifacts {
		data, err := p.ReadFile(ctx, ref.Owner, ref.Repo, path.Join(dir, a.Name), rec.Branch)
		if err != nil {
			return fmt.Errorf("%s on branch %s: %w (push the spec branch before posting the record)", path.Join(dir, a.Name), rec.Branch, err)
		}
		if got := handoff.HashLF(data); got != a.SHA256 {
			return fmt.Errorf("%s on branch %s hashes to %s but the record says %s; push the file the record hashed", path.Join(dir, a.Name), rec.Branch, got, a.SHA256)
		}
	}
	if rec.PullRequest > 0 {
		pr, err := p.GetPullRequest(ctx, ref.Owner, ref.Repo, rec.PullRequest)
		if err != nil {
			return fmt.Errorf("pull request #%d: %w (open the draft pull request before posting the record)", rec.PullRequest, err)
		}
		if pr.Head != rec.Branch {
			return fmt.Errorf("pull request #%d is from %q, not the record's branch %q", rec.PullRequest, pr.Head, rec.Branch)
		}
	}
	return nil
}
