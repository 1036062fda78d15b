package providertest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// commitStatus is one status a CI system set on a commit.
type commitStatus struct {
	ID        int64
	Context   string
	State     string // pending, success, failure, error
	TargetURL string
	At        time.Time
}

// checkRun is one check run on a commit, with what it says about itself.
type checkRun struct {
	ID         int64
	Name       string
	Status     string // queued, in_progress, completed
	Conclusion string // success, failure, neutral, cancelled, skipped, timed_out, action_required
	URL        string
	At         time.Time
	CheckRunDetail
}

// SetStatus adds a commit status on sha in repo; the newest per context
// counts, as on GitHub.
func (s *Server) SetStatus(repo, sha, context, state, targetURL string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ci := s.flowState()
	at := s.stamp()
	ci.statuses[repo+"@"+sha] = append(ci.statuses[repo+"@"+sha], &commitStatus{ID: s.nextID, Context: context, State: state, TargetURL: targetURL, At: at})
}

// SetCheckRun adds a check run on sha in repo; the newest per name counts
// (GitHub's filter=latest).
func (s *Server) SetCheckRun(repo, sha, name, status, conclusion, url string) {
	s.AddCheckRun(repo, sha, name, status, conclusion, url, CheckRunDetail{})
}

// AddCheckRun is SetCheckRun with what the run says about itself (its
// output, annotations, app and job log); it returns the run's id.
func (s *Server) AddCheckRun(repo, sha, name, status, conclusion, url string, d CheckRunDetail) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	ci := s.flowState()
	at := s.stamp()
	ci.runs[repo+"@"+sha] = append(ci.runs[repo+"@"+sha], &checkRun{ID: s.nextID, Name: name, Status: status, Conclusion: conclusion, URL: url, At: at, CheckRunDetail: d})
	return s.nextID
}

// OnChecksRead has f called with a commit's repository and SHA before its
// check runs or combined status are served, outside the fake's lock: a
// fake CI runs the commit's job there, on first sight, so that only the
// commits someone looks at are built, each one's job done before its
// checks are read. nil turns it off.
func (s *Server) OnChecksRead(f func(repo, sha string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checksRead = f
}

// checksAbout calls the OnChecksRead function, if any, for the commit ref
// names in repo.
func (s *Server) checksAbout(repo, ref string) {
	s.mu.Lock()
	f := s.checksRead
	sha, ok := s.ghCommitSHA(repo, ref)
	s.mu.Unlock()
	if f != nil && ok {
		f(repo, sha)
	}
}

// ghCommitSHA resolves the {ref} of a commits route: a full SHA or a
// branch (under s.mu).
func (s *Server) ghCommitSHA(repo, ref string) (string, bool) {
	if _, known := s.nextNumber[repo]; !known {
		return "", false
	}
	if sha, ok := s.refs[repo+" refs/heads/"+ref]; ok {
		return sha, true
	}
	if len(ref) == 40 && strings.Trim(ref, "0123456789abcdef") == "" {
		return ref, true
	}
	return "", false
}

// ghCombinedStatus serves GET /repos/{o}/{r}/commits/{ref}/status: the
// newest status per context, paged, with GitHub's combined state.
func (s *Server) ghCombinedStatus(w http.ResponseWriter, r *http.Request, repo string) {
	s.checksAbout(repo, r.PathValue("ref"))
	s.mu.Lock()
	sha, ok := s.ghCommitSHA(repo, r.PathValue("ref"))
	var docs []map[string]any
	state := "pending"
	if ok {
		latest := map[string]*commitStatus{}
		var order []string
		all := s.flowState().statuses[repo+"@"+sha]
		for i := len(all) - 1; i >= 0; i-- {
			if _, seen := latest[all[i].Context]; !seen {
				latest[all[i].Context] = all[i]
				order = append(order, all[i].Context)
			}
		}
		state = combinedState(latest)
		for _, c := range order {
			st := latest[c]
			docs = append(docs, map[string]any{
				"id": st.ID, "context": st.Context, "state": st.State, "target_url": st.TargetURL,
				"description": st.Context + " " + st.State,
				"created_at":  st.At.Format(time.RFC3339), "updated_at": st.At.Format(time.RFC3339),
			})
		}
	}
	s.mu.Unlock()
	s.ghCommitPage(w, r, repo, ok, docs, func(page []map[string]any, total int) map[string]any {
		return map[string]any{"state": state, "sha": sha, "total_count": total, "statuses": page}
	})
}

func combinedState(latest map[string]*commitStatus) string {
	if len(latest) == 0 {
		return "pending"
	}
	state := "success"
	for _, st := range latest {
		switch st.State {
		case "failure", "error":
			return "failure"
		case "pending":
			state = "pending"
		}
	}
	return state
}

// ghCheckRuns serves GET /repos/{o}/{r}/commits/{ref}/check-runs: with
// filter=latest (the default) the newest run per name, else every run.
func (s *Server) ghCheckRuns(w http.ResponseWriter, r *http.Request, repo string) {
	all := r.URL.Query().Get("filter") == "all"
	s.checksAbout(repo, r.PathValue("ref"))
	s.mu.Lock()
	sha, ok := s.ghCommitSHA(repo, r.PathValue("ref"))
	var docs []map[string]any
	if ok {
		seen := map[string]bool{}
		runs := s.flowState().runs[repo+"@"+sha]
		for i := len(runs) - 1; i >= 0; i-- {
			run := runs[i]
			if !all && seen[run.Name] {
				continue
			}
			seen[run.Name] = true
			doc := map[string]any{
				"id": run.ID, "name": run.Name, "head_sha": sha, "status": run.Status, "conclusion": nil,
				"html_url": run.URL, "details_url": run.URL, "started_at": run.At.Format(time.RFC3339),
				"output": map[string]any{"title": nilIfEmpty(run.Title), "summary": nilIfEmpty(run.Summary), "text": nilIfEmpty(run.Text),
					"annotations_count": len(run.Annotations), "annotations_url": fmt.Sprintf("%s%s/repos/%s/check-runs/%d/annotations", s.srv.URL, ghPrefix, repo, run.ID)},
			}
			if run.App != "" {
				doc["app"] = map[string]any{"slug": run.App, "name": run.App}
			}
			if run.Status == "completed" {
				doc["conclusion"] = run.Conclusion
				doc["completed_at"] = run.At.Format(time.RFC3339)
			}
			docs = append(docs, doc)
		}
	}
	s.mu.Unlock()
	s.ghCommitPage(w, r, repo, ok, docs, func(page []map[string]any, total int) map[string]any {
		return map[string]any{"total_count": total, "check_runs": page}
	})
}

// ghWrappedPage is ghPage for the endpoints that answer an object holding
// the page (combined status, check runs): the same per_page, page, Link,
// ETag and free 304.
func (s *Server) ghWrappedPage(w http.ResponseWriter, r *http.Request, all []map[string]any, wrap func([]map[string]any) map[string]any) {
	items, per, page, last := s.ghSlice(r, all)
	if page < last {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(page+1))
		q.Set("per_page", strconv.Itoa(per))
		u.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, s.srv.URL, u.RequestURI()))
	}
	s.ghDoc(w, r, wrap(items))
}

// ghCommitPage answers a commit's listing: ghNoCommit when the commit was
// not found (ok false), else a page of docs wrapped with their total.
func (s *Server) ghCommitPage(w http.ResponseWriter, r *http.Request, repo string, ok bool, docs []map[string]any, wrap func(page []map[string]any, total int) map[string]any) {
	if !ok {
		s.ghNoCommit(w, r, repo)
		return
	}
	s.ghWrappedPage(w, r, docs, func(page []map[string]any) map[string]any { return wrap(page, len(docs)) })
}

// ghNoCommit answers a commits route whose repository (404) or commit (422)
// the fake does not have.
func (s *Server) ghNoCommit(w http.ResponseWriter, r *http.Request, repo string) {
	s.mu.Lock()
	_, known := s.nextNumber[repo]
	s.mu.Unlock()
	if !known {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghError(w, r, 422, "No commit found for SHA: "+r.PathValue("ref"), nil)
}
