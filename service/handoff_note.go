package service

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

// handoffNoteMarker tags the one comment that supersedes a record's carrier.
const handoffNoteMarker = "<!-- the-loop:handoff-note -->"

// HandoffNoteRequest points a handoff record at the committed files.
type HandoffNoteRequest struct {
	ItemRequest
	// Branch is the branch the files were committed on (the-loop/...).
	Branch string `json:"branch"`
	// PullRequest is that branch's pull request number.
	PullRequest int `json:"pullRequest"`
}

// HandoffNoteResult says how the record was pointed at the files.
type HandoffNoteResult struct {
	// Action is "edited" (the loop's own record now reads carried-by
	// branch), "posted" (a superseding comment was posted) or "updated"
	// (the superseding comment already existed and was rewritten).
	Action     string `json:"action"`
	CommentURL string `json:"commentUrl"`
	// Committed are the carried files in the spec folder that verify.
	Committed []string `json:"committed"`
	// Unverified are the carried files that are missing or differ.
	Unverified []string `json:"unverified"`
	Warnings   []string `json:"-"`
}

// HandoffNote points the handoff record at the files committed under the
// spec folder and at the pull request. The loop's own record, when every
// carried file verifies, is edited in place to read carried-by branch with
// the branch and pull request. Otherwise — a record someone else posted, a
// record the tracker will not let the loop edit, or files that do not all
// verify — one superseding comment says where the files are and which ones
// verified; running note again rewrites that comment instead of adding
// another. State is not touched: what the walk relies on was frozen at start.
func (s *Service) HandoffNote(ctx context.Context, req HandoffNoteRequest) (HandoffNoteResult, error) {
	if err := handoff.ValidateBranch(req.Branch); err != nil {
		return HandoffNoteResult{}, invalid(fmt.Errorf("branch: %w", err))
	}
	if req.PullRequest <= 0 {
		return HandoffNoteResult{}, invalid(errors.New("pullRequest: give the number of the pull request the files were committed for, e.g. 43"))
	}
	sess, rec, err := s.frozenSession(ctx, req.ItemRequest)
	if err != nil {
		return HandoffNoteResult{}, err
	}
	res := HandoffNoteResult{Committed: []string{}, Unverified: []string{}}
	for _, c := range handoff.Verify(rec, handoff.DirSource(sess.repo.SpecDir(req.WorkItem))) {
		if c.Err == nil {
			res.Committed = append(res.Committed, c.Name)
		} else {
			res.Unverified = append(res.Unverified, c.Name)
		}
	}
	if len(res.Committed) == 0 && len(rec.Artifacts) > 0 {
		return res, fmt.Errorf("none of the carried files (%s) verifies in %s; run `the-loop handoff import %s` and commit the files first",
			joinNames(rec.Names()), path.Join(sess.repo.SpecRoot, req.WorkItem), req.WorkItem)
	}
	p := sess.rt.Tracker
	ref, err := runtime.ParseTicketRef(sess.state.Ref)
	switch {
	case p == nil:
		return res, fmt.Errorf("handoff note: %w", ErrNoIntegration)
	case err != nil:
		return res, fmt.Errorf("handoff note: the item's ticket is unknown: %w", err)
	}
	if ref.System == "github" && integrations.Supports(p, integrations.OpGetPullRequest) {
		pr, err := p.GetPullRequest(ctx, ref.Owner, ref.Repo, req.PullRequest)
		if err != nil {
			return res, fmt.Errorf("pull request #%d: %w", req.PullRequest, err)
		}
		if pr.Head != req.Branch {
			return res, fmt.Errorf("pull request #%d is from %q, not %q; give the branch the files were committed on", req.PullRequest, pr.Head, req.Branch)
		}
	}
	thread, err := p.ListComments(ctx, ref)
	if err != nil {
		return res, fmt.Errorf("read the comments of %s: %w", ref, err)
	}
	hs := sess.state.Handoff
	if len(res.Unverified) == 0 {
		if c, ok := findComment(thread, hs.CommentURL); ok && IsSelfComment(s.cfg, c) {
			edited := rec
			edited.CarriedBy, edited.Branch, edited.PullRequest, edited.Files = handoff.CarriedByBranch, req.Branch, req.PullRequest, nil
			if bodies, err := handoff.Render(edited); err == nil && len(bodies) == 1 {
				out, err := p.EditComment(ctx, ref, c.ID, integrations.MarkSelfAuthored(bodies[0]))
				if err == nil {
					res.Action, res.CommentURL = "edited", out.URL
					return res, nil
				}
				res.Warnings = append(res.Warnings, fmt.Sprintf("the record could not be edited (%v); posting a superseding comment instead", err))
			}
		}
	}
	body := noteBody(rec, hs.CommentURL, req, path.Join(sess.repo.SpecRoot, req.WorkItem), res)
	for _, c := range thread {
		if strings.Contains(c.Body, handoffNoteMarker) && strings.Contains(c.Body, "("+hs.CommentURL+")") && IsSelfComment(s.cfg, c) {
			out, err := p.EditComment(ctx, ref, c.ID, integrations.MarkSelfAuthored(body))
			if err != nil {
				return res, fmt.Errorf("update the superseding comment %s: %w", c.URL, err)
			}
			res.Action, res.CommentURL = "updated", out.URL
			return res, nil
		}
	}
	out, err := p.CreateComment(ctx, ref, integrations.MarkSelfAuthored(body))
	if err != nil {
		return res, fmt.Errorf("post the superseding comment on %s: %w", ref, err)
	}
	res.Action, res.CommentURL = "posted", out.URL
	return res, nil
}

func findComment(thread []integrations.Comment, url string) (integrations.Comment, bool) {
	for _, c := range thread {
		if url != "" && c.URL == url {
			return c, true
		}
	}
	return integrations.Comment{}, false
}

// noteBody renders the superseding comment. Every line is built from the
// loop's own vocabulary, the validated branch and the closed set of names.
func noteBody(rec handoff.Record, recordURL string, req HandoffNoteRequest, dir string, res HandoffNoteResult) string {
	var b strings.Builder
	b.WriteString("🤖 _the-loop_ — **handoff files committed**\n\n")
	fmt.Fprintf(&b, "The files of the [handoff record](%s) are now on branch `%s` (pull request #%d), under `%s/`. "+
		"This supersedes the record's `carried-by: %s`; the record itself is unchanged, and what the walk relies on was read when the item was armed.\n\n",
		recordURL, req.Branch, req.PullRequest, dir, rec.CarriedBy)
	for _, a := range rec.Artifacts {
		if handoffHas(res.Committed, a.Name) {
			fmt.Fprintf(&b, "- `%s` sha256:%s — committed, matches the record\n", a.Name, a.SHA256)
		} else {
			fmt.Fprintf(&b, "- `%s` — not committed as handed off; the walk redoes %s\n", a.Name, handoff.ProducerOf(a.Name))
		}
	}
	b.WriteString("\n" + handoffNoteMarker + "\n")
	return b.String()
}
