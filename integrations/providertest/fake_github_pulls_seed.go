package providertest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// lookupPull returns pull request repo#number (under s.mu); it panics in a
// test that names one the fake does not have.
func (s *Server) lookupPull(repo string, number int) *pull {
	p, ok := s.pulls[repo+"#"+strconv.Itoa(number)]
	if !ok {
		panic(fmt.Sprintf("providertest: no pull request %s#%d", repo, number))
	}
	return p
}

// PullBody returns the body of pull request repo#number and whether it exists.
func (s *Server) PullBody(repo string, number int) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pulls[repo+"#"+strconv.Itoa(number)]
	if !ok {
		return "", false
	}
	return p.Body, true
}

// OpenPullCount is how many open pull requests repo has.
func (s *Server) OpenPullCount(repo string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for key, p := range s.pulls {
		if strings.HasPrefix(key, repo+"#") && p.State == "open" {
			n++
		}
	}
	return n
}

// SeedPull opens a pull request from head (created at sha when absent)
// into base, as a person would, and returns its number.
func (s *Server) SeedPull(repo, head, base, sha, title string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.refs[repo+" refs/heads/"+head]; !ok {
		s.refs[repo+" refs/heads/"+head] = sha
	}
	if _, ok := s.nextNumber[repo]; !ok {
		s.nextNumber[repo] = 0
	}
	s.nextNumber[repo]++
	n := s.nextNumber[repo]
	at := s.stamp()
	yes := true
	key := fmt.Sprintf("%s#%d", repo, n)
	s.pulls[key] = &pull{Number: n, Title: title, Body: title + " body", Head: head, Base: base, State: "open",
		Mergeable: &yes, MergeableState: "clean", Author: "alice", Created: at, Updated: at,
		issue: &Issue{Key: key, Number: n, Title: title, Body: title + " body", State: "open", Author: "alice"}}
	return n
}

// RaceNextPullCreate makes a person open a pull request from head into
// base just before the next create request is handled.
func (s *Server) RaceNextPullCreate(head, base string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flowState().raceCreate = &[2]string{head, base}
}

func (s *Server) raceBeforeCreate(repo string) {
	s.mu.Lock()
	race := s.flowState().raceCreate
	s.flow.raceCreate = nil
	s.mu.Unlock()
	if race != nil {
		s.SeedPull(repo, race[0], race[1], GitHubMainSHA, "Opened concurrently")
	}
}

// PushBranch moves branch to sha, as a push does: every open pull request
// from branch gets the new head and a new updated_at.
func (s *Server) PushBranch(repo, branch, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refs[repo+" refs/heads/"+branch] = sha
	at := s.stamp()
	for key, p := range s.pulls {
		if strings.HasPrefix(key, repo+"#") && p.State == "open" && p.Head == branch {
			p.Updated = at
		}
	}
}

// MergePull merges pull request repo#number (merged by octocat).
func (s *Server) MergePull(repo string, number int) { s.MergePullAs(repo, number, "octocat") }

// MergePullAs merges pull request repo#number as login.
func (s *Server) MergePullAs(repo string, number int, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.lookupPull(repo, number)
	p.State, p.issue.State, p.Merged, p.MergedBy = "closed", "closed", true, login
	p.MergedAt = s.stamp()
	p.Updated = p.MergedAt
}

// ClosePull closes pull request repo#number without merging.
func (s *Server) ClosePull(repo string, number int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.lookupPull(repo, number)
	p.State, p.issue.State = "closed", "closed"
	p.Updated = s.stamp()
}

// SetMergeability sets what GitHub computed about merging repo#number
// (mergeable nil: not computed yet).
func (s *Server) SetMergeability(repo string, number int, mergeable *bool, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.lookupPull(repo, number)
	p.Mergeable, p.MergeableState = mergeable, state
}

// SetPullFiles sets the paths pull request repo#number changes.
func (s *Server) SetPullFiles(repo string, number int, files ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lookupPull(repo, number).Files = slices.Clone(files)
}

// SeedRepo makes another repository exist, with branch main at sha and no
// issue or pull request yet.
func (s *Server) SeedRepo(repo, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.nextNumber[repo]; !ok {
		s.nextNumber[repo] = 0
	}
	s.refs[repo+" refs/heads/main"] = sha
}
