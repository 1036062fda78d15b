package service

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

// importNode is the node whose exit hook verifies what import writes.
const importNode = "import-handoff"

// HandoffView is the handoff frozen in a work item's state.
type HandoffView struct {
	WorkItem    string `json:"workItem"`
	Started     bool   `json:"started"`
	CurrentNode string `json:"currentNode"`
	// Handoff is the record with its author, comment URL and recording
	// time; nil when the item carries no handoff.
	Handoff           *runtime.HandoffState `json:"handoff"`
	HandoffDemoted    []runtime.Demotion    `json:"handoffDemoted"`
	ClaudeArtifactURL string                `json:"claudeArtifactUrl,omitempty"`
	Warnings          []string              `json:"-"`
}

// HandoffShow returns the handoff frozen in state. It is read-only: it opens
// the store read-only (or reads the portable record) and changes nothing.
func (s *Service) HandoffShow(ctx context.Context, req ItemRequest) (HandoffView, error) {
	if err := validID(req.WorkItem); err != nil {
		return HandoffView{}, err
	}
	repo, err := s.openRepo(req.Repo)
	if err != nil {
		return HandoffView{}, err
	}
	st, release, err := s.readStore(ctx)
	if err != nil {
		return HandoffView{}, err
	}
	defer release()
	state, warns, err := (&persister{st: st, repo: repo}).Load(ctx, req.WorkItem)
	if err != nil {
		return HandoffView{Warnings: warns}, err
	}
	v := HandoffView{WorkItem: req.WorkItem, Started: state.CurrentNode != "", CurrentNode: state.CurrentNode,
		Handoff: state.Handoff, HandoffDemoted: state.HandoffDemoted, ClaudeArtifactURL: state.ClaudeArtifactURL}
	if v.HandoffDemoted == nil {
		v.HandoffDemoted = []runtime.Demotion{}
	}
	v.Warnings = append(repo.Warnings, warns...)
	return v, nil
}

// HandoffImportRequest materializes a handoff's carried files. At most one
// source may be given; with none, the record's carrier decides: the
// checked-out spec branch (the spec folder itself) or the ticket comments.
type HandoffImportRequest struct {
	ItemRequest
	// FromDir holds files a session extracted from the spec-chain artifact.
	FromDir string `json:"fromDir"`
	// FromArtifact is a saved spec-chain artifact page; its embedded
	// <script id="the-loop-spec-files"> element supplies the files.
	FromArtifact string `json:"fromArtifact"`
	// Files are the bodies given inline (name → text).
	Files map[string]string `json:"files"`
}

// HandoffFileFailure is one carried file that did not verify.
type HandoffFileFailure struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// HandoffImportResult says what import wrote.
type HandoffImportResult struct {
	WorkItem string `json:"workItem"`
	// SpecDir is the spec folder, relative to the repository.
	SpecDir string `json:"specDir"`
	Source  string `json:"source"`
	// Written are the verified files now in the spec folder, in chain order.
	Written []string `json:"written"`
	// Failed are the files that are missing from the source or do not
	// hash to the record; nothing was written for them.
	Failed []HandoffFileFailure `json:"failed"`
	// Held are files that verified but come after the first failure: they
	// are not written, because the walk redoes the phase of the first
	// failure and everything after it.
	Held []string `json:"held"`
	// OK is true when every carried file verified and was written.
	OK       bool     `json:"ok"`
	Warnings []string `json:"-"`
}

// HandoffImport writes the carried files into docs/specs/<id>/ (the folder
// comes from the repository's harness config and the item id, never from
// record text). Every file is hashed over its bytes with LF line endings and
// compared with the record frozen in state; a file that is missing or does
// not match is refused, and nothing unverified is ever written. It uses
// handoff.MaterializePrefix: the verified files before the first failure are
// written, exactly the ones the import-handoff hook keeps when it demotes
// the walk to that failure's producer; with handoff.Materialize one bad file
// would discard the good ones and demote the walk further than needed.
// Import is refused once the walk has passed import-handoff: from then on
// the files are the walk's own artifacts.
func (s *Service) HandoffImport(ctx context.Context, req HandoffImportRequest) (HandoffImportResult, error) {
	if err := validFiles(req.Files); err != nil {
		return HandoffImportResult{}, err
	}
	sess, rec, err := s.frozenSession(ctx, req.ItemRequest)
	if err != nil {
		return HandoffImportResult{}, err
	}
	refused := HandoffImportResult{Warnings: sess.warns}
	if r := sess.state.Nodes[importNode]; r != nil && r.ExitedAt != "" {
		return refused, fmt.Errorf("%s has already passed %s (%s); its files are the walk's artifacts now and are not re-imported", req.WorkItem, importNode, r.Outcome)
	}
	specDir := sess.repo.SpecDir(req.WorkItem)
	src, err := s.importSource(ctx, sess, rec, req, specDir)
	if err != nil {
		return refused, err
	}
	written, failed, err := handoff.MaterializePrefix(specDir, rec, src)
	if err != nil {
		return refused, fmt.Errorf("import the handoff of %s: %w", req.WorkItem, err)
	}
	res := HandoffImportResult{WorkItem: req.WorkItem, SpecDir: path.Join(sess.repo.SpecRoot, req.WorkItem), Source: src.String(),
		Written: handoffList(written), Failed: []HandoffFileFailure{}, Held: []string{}, Warnings: sess.warns}
	bad := map[string]bool{}
	for _, c := range failed {
		bad[c.Name] = true
		res.Failed = append(res.Failed, HandoffFileFailure{Name: c.Name, Reason: failureReason(c)})
	}
	for _, n := range rec.Names() {
		if !bad[n] && !handoffHas(written, n) {
			res.Held = append(res.Held, n)
		}
	}
	res.OK = len(res.Failed) == 0
	s.log().Info("handoff imported", "workItem", req.WorkItem, "written", len(written), "failed", len(failed))
	return res, nil
}

// importSource picks where the files come from.
func (s *Service) importSource(ctx context.Context, sess *session, rec handoff.Record, req HandoffImportRequest, specDir string) (handoff.Source, error) {
	given := 0
	for _, set := range []bool{req.FromDir != "", req.FromArtifact != "", req.Files != nil} {
		if set {
			given++
		}
	}
	switch {
	case given > 1:
		return nil, invalid(errors.New("give one source: a directory, a saved spec-chain artifact page, or the files themselves"))
	case req.FromDir != "":
		if err := s.allowedPath(req.FromDir, "fromDir"); err != nil {
			return nil, err
		}
		return handoff.DirSource(req.FromDir), nil
	case req.FromArtifact != "":
		if err := s.allowedPath(req.FromArtifact, "fromArtifact"); err != nil {
			return nil, err
		}
		return handoff.SpecArtifactSource(req.FromArtifact)
	case req.Files != nil:
		return handoff.TicketSource(req.Files), nil
	}
	switch rec.CarriedBy {
	case handoff.CarriedByBranch:
		return handoff.DirSource(specDir), nil
	case handoff.CarriedByTicket:
		return s.ticketSource(ctx, sess)
	}
	return nil, fmt.Errorf("the record carries its files in the spec-chain artifact %s: extract the files embedded in its <script id=%q> element into a directory and pass it as the source directory, or save the page and pass it as the artifact",
		rec.SpecArtifact, handoff.SpecFilesScriptID)
}

// ticketSource re-reads the frozen record's own comment (and its parts, by
// the same author) for the carried bodies. Other records on the thread are
// not considered, and the bodies are verified against the frozen hashes, so
// a comment edited after the walk started can only fail verification.
func (s *Service) ticketSource(ctx context.Context, sess *session) (handoff.Source, error) {
	hs := sess.state.Handoff
	if sess.rt.Tracker == nil {
		return nil, fmt.Errorf("the files ride in the ticket comments, but %w", ErrNoIntegration)
	}
	ref, err := runtime.ParseTicketRef(sess.state.Ref)
	if err != nil {
		return nil, fmt.Errorf("the files ride in the ticket comments, but the item's ticket is unknown: %w", err)
	}
	thread, err := sess.rt.Tracker.ListComments(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("read the handoff record's comments on %s: %w", ref, err)
	}
	var pool []integrations.Comment
	for _, c := range thread {
		if c.URL == hs.CommentURL || !isRecordComment(c.Body) {
			pool = append(pool, c)
		}
	}
	// The frozen record, as it was accepted: posted by the loop for its
	// author, or by its author.
	byLoop := hs.CommentAuthor != "" && !strings.EqualFold(hs.CommentAuthor, hs.Author)
	found, _ := handoff.FindRecord(pool,
		func(login string) bool { return strings.EqualFold(login, hs.Author) },
		func(c integrations.Comment) bool {
			return byLoop && c.URL == hs.CommentURL && strings.EqualFold(c.Author, hs.CommentAuthor)
		})
	if found == nil {
		return nil, fmt.Errorf("the handoff record %s is gone or no longer reads as a record; its files cannot be taken from the ticket", hs.CommentURL)
	}
	return handoff.TicketSource(found.Record.Files), nil
}

// isRecordComment reports a comment with the record marker on a line.
func isRecordComment(body string) bool {
	for _, l := range strings.Split(string(handoff.NormalizeLF([]byte(body))), "\n") {
		if strings.TrimSpace(l) == handoff.RecordMarker {
			return true
		}
	}
	return false
}

func failureReason(c handoff.Check) string {
	switch {
	case errors.Is(c.Err, handoff.ErrHashMismatch):
		return "does not match the record's sha256"
	case errors.Is(c.Err, fs.ErrNotExist):
		return "is not in the source"
	}
	return c.Err.Error()
}

func handoffList(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func handoffHas(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
