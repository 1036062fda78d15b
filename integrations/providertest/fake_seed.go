package providertest

import (
	"fmt"
	"slices"
	"time"

	"github.com/the-loop/the-loop/integrations"
)

// Ticket is the seeded ticket: octo/widgets#1 or PROJ-1.
func (s *Server) Ticket() integrations.Ref {
	if s.system == "jira" {
		return integrations.Ref{System: "jira", Key: JiraEpic}
	}
	return integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 1}
}

// Missing is a well-formed ref the fake does not have.
func (s *Server) Missing() integrations.Ref {
	if s.system == "jira" {
		return integrations.Ref{System: "jira", Key: "PROJ-999"}
	}
	return integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 999}
}

// NewIssue is creation input the fake accepts (a Jira Story under the epic).
func (s *Server) NewIssue(title string) integrations.NewIssue {
	if s.system == "jira" {
		return integrations.NewIssue{Project: "PROJ", Title: title, Body: "Created body", Labels: []string{"loop:design"}, IssueType: "Story", Parent: JiraEpic}
	}
	return integrations.NewIssue{Repo: GitHubRepo, Title: title, Body: "Created body", Labels: []string{"loop:design"}}
}

// SetQuota sets the GitHub primary budget and how far its reset is.
func (s *Server) SetQuota(remaining int, resetIn time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quota = remaining
	s.quotaReset = resetIn
}

// SeedIssue stores another ticket in octo/widgets or PROJ, open or closed
// (Jira: status To Do or Done), and returns its ref.
func (s *Server) SeedIssue(title string, labels []string, open bool) integrations.Ref {
	s.mu.Lock()
	defer s.mu.Unlock()
	container, state := GitHubRepo, "open"
	if s.system == "jira" {
		container, state = "PROJ", "To Do"
		if !open {
			state = "Done"
		}
	} else if !open {
		state = "closed"
	}
	s.nextNumber[container]++
	n := s.nextNumber[container]
	is := &Issue{Number: n, Title: title, Body: title + " body", State: state, Author: "alice", Labels: slices.Clone(labels), IssueType: "Task"}
	ref := integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: n}
	if s.system == "jira" {
		ref = integrations.Ref{System: "jira", Key: fmt.Sprintf("PROJ-%d", n)}
	}
	is.Key = keyOf(ref)
	s.issues[is.Key] = is
	s.touch(is.Key)
	return ref
}

// Container is what ListOpenIssues is asked for: octo/widgets or PROJ.
func (s *Server) Container() string {
	if s.system == "jira" {
		return "PROJ"
	}
	return GitHubRepo
}
