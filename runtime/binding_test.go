package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/the-loop/the-loop/integrations"
)

func TestACommentBelongsToItsTicketOnly(t *testing.T) {
	gh := integrations.Ref{System: "github", Owner: "acme", Repo: "widgets", Number: 4}
	jira := integrations.Ref{System: "jira", Key: "PROJ-12"}
	tests := []struct {
		name, link, home string
		ref              integrations.Ref
		ok               bool
	}{
		{"an issue comment", "https://github.com/acme/widgets/issues/4#issuecomment-9", "github.com/acme/widgets", gh, true},
		{"a pull request review", "https://github.com/acme/widgets/pull/4#pullrequestreview-9", "github.com/acme/widgets", gh, true},
		{"owner and host in another case", "https://GitHub.com/Acme/Widgets/issues/4", "github.com/acme/widgets", gh, true},
		{"an enterprise host with a port", "http://127.0.0.1:8080/acme/widgets/issues/4#issuecomment-1", "127.0.0.1:8080/acme/widgets", gh, true},
		{"another issue", "https://github.com/acme/widgets/issues/40#issuecomment-9", "github.com/acme/widgets", gh, false},
		{"another repository", "https://github.com/acme/gadgets/issues/4", "github.com/acme/widgets", gh, false},
		{"another owner", "https://github.com/evil/widgets/issues/4", "github.com/acme/widgets", gh, false},
		{"another host", "https://github.evil.example/acme/widgets/issues/4", "github.com/acme/widgets", gh, false},
		{"a deeper path", "https://github.com/acme/widgets/issues/4/../../../evil/x/issues/4", "github.com/acme/widgets", gh, false},
		{"a query", "https://github.com/acme/widgets/issues/4?x=1", "github.com/acme/widgets", gh, false},
		{"not an issue page", "https://github.com/acme/widgets/commit/4", "github.com/acme/widgets", gh, false},
		{"credentials in the link", "https://me@github.com/acme/widgets/issues/4", "github.com/acme/widgets", gh, false},
		{"not a web address", "javascript:alert(1)", "github.com/acme/widgets", gh, false},
		{"a jira comment", "https://acme.atlassian.net/browse/PROJ-12?focusedCommentId=10001", "acme.atlassian.net", jira, true},
		{"a jira site with a path", "https://jira.example.com/jira/browse/PROJ-12?focusedCommentId=1", "jira.example.com/jira", jira, true},
		{"another jira ticket", "https://acme.atlassian.net/browse/PROJ-13?focusedCommentId=1", "acme.atlassian.net", jira, false},
		{"another jira site", "https://evil.atlassian.net/browse/PROJ-12", "acme.atlassian.net", jira, false},
		{"an unknown home checks nothing", "https://anywhere.example/x", "", gh, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			why := commentFault(tt.link, tt.home, tt.ref)
			assert.Equal(t, tt.ok, why == "", why)
		})
	}
}

func TestTheHomeOfAnItem(t *testing.T) {
	tests := []struct {
		name string
		rt   Runtime
		st   State
		want string
	}{
		{"a github reference", Runtime{}, State{WorkItem: "issue-4", Ref: "github:Acme/Widgets#4"}, "github.com/acme/widgets"},
		{"an enterprise reference", Runtime{}, State{WorkItem: "issue-4", Ref: "github:ghe.example.com/acme/widgets#4"}, "ghe.example.com/acme/widgets"},
		{"the configured host", Runtime{Hosts: TicketHosts{GitHub: "ghe.example.com"}}, State{WorkItem: "issue-4", Ref: "github:acme/widgets#4"}, "ghe.example.com/acme/widgets"},
		{"issue-N of the origin", Runtime{Origin: "acme/widgets"}, State{WorkItem: "issue-4"}, "github.com/acme/widgets"},
		{"check --repository wins for the item's own loop", Runtime{ExpectRepository: "ghe.example.com/victim/app"}, State{WorkItem: "issue-4", Ref: "github:acme/widgets#4"}, "ghe.example.com/victim/app"},
		{"but not for a pull request's loop", Runtime{ExpectRepository: "victim/app", LoopDir: "pr-loops/pr-7"}, State{WorkItem: "issue-4", Ref: "github:acme/infra#7"}, "github.com/acme/infra"},
		{"a jira ticket", Runtime{Hosts: TicketHosts{Jira: "acme.atlassian.net"}}, State{WorkItem: "PROJ-12"}, "acme.atlassian.net"},
		{"no ticket", Runtime{}, State{WorkItem: "draft-login"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.rt.Home(&tt.st))
		})
	}
	assert.Equal(t, "github.com", WebHost("https://api.github.com/"))
	assert.Equal(t, "ghe.example.com", WebHost("https://ghe.example.com/api/v3/"))
	assert.Equal(t, "sub.ghe.com", WebHost("https://api.sub.ghe.com/"))
	assert.Equal(t, "127.0.0.1:8080", WebHost("http://127.0.0.1:8080/api/v3/"))
	assert.Equal(t, "jira.example.com/jira", JiraSite("https://Jira.Example.com/jira/"))
}
