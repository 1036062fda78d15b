package jira_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/jira"
	"github.com/the-loop/the-loop/integrations/providertest"
)

func keys(rs []integrations.Related) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Ref.Key)
	}
	return out
}

func newWith(t *testing.T, f *providertest.Server, opts jira.Options) *jira.Provider {
	t.Helper()
	opts.BaseURL, opts.Auth, opts.Email, opts.Token, opts.Projects = f.URL(), f.Auth(), f.Email(), f.Token(), f.Projects()
	opts.HTTPClient = &http.Client{Transport: http.DefaultTransport}
	p, err := jira.New(opts)
	require.NoError(t, err)
	return p
}

func TestReadRelationsLinkDirections(t *testing.T) {
	f := providertest.NewJira(t, jira.AuthCloud)
	item := f.Ticket()
	seed := func(title string) integrations.Ref { return f.SeedIssue(title, nil, true) }
	blocker, blocked, needed, needer, related, clone := seed("blocker"), seed("blocked"), seed("needed"), seed("needer"), seed("related"), seed("clone")
	f.LinkIssues("Blocks", blocker, item) // blocker blocks item
	f.LinkIssues("Blocks", item, blocked) // item blocks blocked
	f.LinkIssues("Depends", item, needed) // item depends on needed
	f.LinkIssues("Depends", needer, item) // needer depends on item
	f.LinkIssues("Relates", item, related)
	f.LinkIssues("Cloners", clone, item)

	got, err := newWith(t, f, jira.Options{}).ReadRelations(context.Background(), item)
	require.NoError(t, err)
	assert.Equal(t, []string{blocker.Key, needed.Key}, keys(got.BlockedBy))
	assert.Equal(t, []string{blocked.Key, needer.Key}, keys(got.Blocking))
	assert.Equal(t, "link:Blocks", got.BlockedBy[0].Via)
	assert.Equal(t, "link:Depends", got.BlockedBy[1].Via)
}

func TestReadRelationsConfiguredLinks(t *testing.T) {
	f := providertest.NewJira(t, jira.AuthDataCenter)
	item := f.Ticket()
	source, blocker := f.SeedIssue("source", nil, true), f.SeedIssue("blocker", nil, true)
	f.LinkIssues("Cloners", item, source) // item clones source
	f.LinkIssues("Blocks", blocker, item)
	p := newWith(t, f, jira.Options{BlockingLinks: []jira.BlockingLink{{Type: "cloners", Phrase: "Clones"}}})
	got, err := p.ReadRelations(context.Background(), item)
	require.NoError(t, err)
	assert.Equal(t, []string{source.Key}, keys(got.BlockedBy), "type and phrase match case-insensitively; the defaults no longer apply")
	assert.Empty(t, got.Blocking)

	_, err = jira.New(jira.Options{BaseURL: f.URL(), Auth: jira.AuthDataCenter, Token: "x", BlockingLinks: []jira.BlockingLink{{Type: "Blocks"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "integrations.jira.blockingLinks[0].phrase is empty")
}

func TestReadRelationsResolutions(t *testing.T) {
	f := providertest.NewJira(t, jira.AuthCloud)
	done, wont, shipped, none := f.SeedIssue("done", nil, true), f.SeedIssue("wont", nil, true), f.SeedIssue("shipped", nil, true), f.SeedIssue("none", nil, true)
	f.SetState(done, false, "Done")
	f.SetState(wont, false, "Won't Do")
	f.SetState(shipped, false, "Shipped")
	f.SetState(none, false, "")
	tests := []struct {
		name  string
		opts  jira.Options
		ref   integrations.Ref
		state integrations.ItemState
	}{
		{"Done resolution", jira.Options{}, done, integrations.StateDone},
		{"Won't Do", jira.Options{}, wont, integrations.StateNotDone},
		{"unknown resolution fails closed", jira.Options{}, shipped, integrations.StateNotDone},
		{"no resolution in the Done category", jira.Options{}, none, integrations.StateDone},
		{"configured resolution", jira.Options{DoneResolutions: []string{"shipped"}}, shipped, integrations.StateDone},
		{"configured list replaces the defaults", jira.Options{DoneResolutions: []string{"Shipped"}}, done, integrations.StateNotDone},
		{"open", jira.Options{}, f.Ticket(), integrations.StateOpen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := newWith(t, f, tt.opts).ReadRelations(context.Background(), tt.ref)
			require.NoError(t, err)
			assert.Equal(t, tt.state, got.Item.State)
		})
	}
}

func TestReadRelationsSubtasksAndRemoteLinks(t *testing.T) {
	f := providertest.NewJira(t, jira.AuthCloud)
	p := newWith(t, f, jira.Options{})
	ctx := context.Background()
	story := f.SeedIssue("story", nil, true)
	f.AddSubIssue(f.Ticket(), story)
	sub, err := p.CreateIssue(ctx, integrations.NewIssue{Project: "PROJ", Title: "sub", IssueType: "Sub-task", Parent: f.Ticket().Key})
	require.NoError(t, err)
	f.AddRemoteLink(f.Ticket(), "is blocked by", "https://github.com/octo/widgets/issues/7")
	f.AddRemoteLink(f.Ticket(), "mentioned in", "https://github.com/octo/widgets/issues/8")

	got, err := p.ReadRelations(ctx, f.Ticket())
	require.NoError(t, err)
	assert.Equal(t, []string{sub.Key, story.Key}, keys(got.Children), "subtasks first, then child issues, each once")
	assert.Equal(t, []string{"subtask", "child"}, []string{got.Children[0].Via, got.Children[1].Via})
	assert.Equal(t, []integrations.Mention{{Text: "https://github.com/octo/widgets/issues/7", Kind: integrations.RelBlockedBy, Via: "remote-link"}}, got.Mentions)

	child, err := p.ReadRelations(ctx, story)
	require.NoError(t, err)
	require.NotNil(t, child.Parent)
	assert.Equal(t, f.Ticket().Key, child.Parent.Ref.Key)
	assert.Equal(t, "Seeded ticket", child.Parent.Title)
}
