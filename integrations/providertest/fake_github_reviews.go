package providertest

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// review is one submitted pull request review.
type review struct {
	ID          int64
	Author      string
	Association string
	State       string
	Body        string
	CommitID    string
	Submitted   time.Time
}

// reviewComment is one inline comment. A comment with no InReplyTo opens a
// review thread; Resolved and Outdated are that thread's.
type reviewComment struct {
	ID          int64
	ReviewID    int64
	InReplyTo   int64
	Author      string
	Association string
	Body        string
	Path        string
	Line        int
	CommitID    string
	Created     time.Time
	Resolved    bool
	Outdated    bool
}

// Review is a seeded review as a test sees it.
type Review struct {
	ID     int64
	Author string
	State  string
	URL    string
}

// Thread is a seeded review thread as a test sees it: its GraphQL id and
// the REST id and URL of its first comment.
type Thread struct {
	ID        string
	CommentID int64
	URL       string
}

func (s *Server) reviewURL(repo string, number int, id int64) string {
	return fmt.Sprintf("%s/pull/%d#pullrequestreview-%d", s.web(repo), number, id)
}

func (s *Server) reviewCommentURL(repo string, number int, id int64) string {
	return fmt.Sprintf("%s/pull/%d#discussion_r%d", s.web(repo), number, id)
}

// AddReview stores a review of repo#number by author in state (APPROVED,
// CHANGES_REQUESTED, COMMENTED) on the current head.
func (s *Server) AddReview(repo string, number int, author, association, state, body string) Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.lookupPull(repo, number)
	at := s.stamp()
	rv := &review{ID: s.nextID, Author: author, Association: association, State: state, Body: body,
		CommitID: s.refs[repo+" refs/heads/"+p.Head], Submitted: at}
	p.reviews = append(p.reviews, rv)
	p.Updated = at
	return Review{ID: rv.ID, Author: author, State: state, URL: s.reviewURL(repo, number, rv.ID)}
}

// AddReviewThread opens a review thread on path:line of repo#number with
// its first comment by author.
func (s *Server) AddReviewThread(repo string, number int, author, path string, line int, body string) Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.addReviewComment(repo, number, author, path, line, body, 0)
	return Thread{ID: threadID(c.ID), CommentID: c.ID, URL: s.reviewCommentURL(repo, number, c.ID)}
}

// ReplyToThread adds a reply by author to the thread whose first comment
// is rootID.
func (s *Server) ReplyToThread(repo string, number int, rootID int64, author, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	root := s.findReviewComment(repo, number, rootID)
	return s.addReviewComment(repo, number, author, root.Path, root.Line, body, rootID).ID
}

// ResolveThread marks the thread whose first comment is rootID resolved or
// not. Like GitHub, it does not move the pull request's updated_at.
func (s *Server) ResolveThread(repo string, number int, rootID int64, resolved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.findReviewComment(repo, number, rootID).Resolved = resolved
}

// OutdateThread marks the thread whose first comment is rootID as sitting
// on a line that has since changed.
func (s *Server) OutdateThread(repo string, number int, rootID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.findReviewComment(repo, number, rootID).Outdated = true
}

func (s *Server) addReviewComment(repo string, number int, author, path string, line int, body string, replyTo int64) *reviewComment {
	p := s.lookupPull(repo, number)
	at := s.stamp()
	c := &reviewComment{ID: s.nextID, Author: author, Association: "MEMBER", Body: body, Path: path, Line: line,
		InReplyTo: replyTo, CommitID: s.refs[repo+" refs/heads/"+p.Head], Created: at}
	p.reviewComments = append(p.reviewComments, c)
	p.Updated = at
	return c
}

func (s *Server) findReviewComment(repo string, number int, id int64) *reviewComment {
	for _, c := range s.lookupPull(repo, number).reviewComments {
		if c.ID == id {
			return c
		}
	}
	panic(fmt.Sprintf("providertest: no review comment %d on %s#%d", id, repo, number))
}

func threadID(rootID int64) string { return "PRRT_" + strconv.FormatInt(rootID, 10) }

func (s *Server) ghListReviews(w http.ResponseWriter, r *http.Request, repo string) {
	s.mu.Lock()
	p, ok := s.pulls[repo+"#"+r.PathValue("number")]
	var docs []map[string]any
	if ok {
		for _, rv := range p.reviews {
			docs = append(docs, map[string]any{
				"id": rv.ID, "node_id": fmt.Sprintf("PRR_%d", rv.ID), "user": ghUser(rv.Author), "body": rv.Body,
				"state": rv.State, "commit_id": rv.CommitID, "author_association": rv.Association,
				"html_url":     s.reviewURL(repo, p.Number, rv.ID),
				"submitted_at": rv.Submitted.Format(time.RFC3339),
			})
		}
	}
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghPage(w, r, docs)
}

func (s *Server) ghListReviewComments(w http.ResponseWriter, r *http.Request, repo string) {
	s.mu.Lock()
	p, ok := s.pulls[repo+"#"+r.PathValue("number")]
	var docs []map[string]any
	if ok {
		for _, c := range p.reviewComments {
			doc := map[string]any{
				"id": c.ID, "node_id": fmt.Sprintf("PRRC_%d", c.ID), "user": ghUser(c.Author), "body": c.Body,
				"path": c.Path, "original_line": c.Line, "line": c.Line, "commit_id": c.CommitID,
				"author_association": c.Association,
				"html_url":           s.reviewCommentURL(repo, p.Number, c.ID),
				"created_at":         c.Created.Format(time.RFC3339),
				"updated_at":         c.Created.Format(time.RFC3339),
			}
			if c.Outdated {
				doc["line"] = nil
			}
			if c.InReplyTo != 0 {
				doc["in_reply_to_id"] = c.InReplyTo
			}
			docs = append(docs, doc)
		}
	}
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghPage(w, r, docs)
}
