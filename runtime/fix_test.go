package runtime

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fixGraph = `
version: 1
name: fixwalk
start: build
nodes:
  - id: build
    exit: [ok]
  - id: ship
    exit: [reading]
  - id: complete
    terminal: true
  - id: escalated
    actor: human
    terminal: true
edges:
  - {from: build, to: ship, on: pass}
  - {from: ship, to: complete, on: pass}
  - {from: ship, to: build, on: ci-failed}
`

// fixRig walks fixGraph; reading returns whatever next holds.
func fixRig(t *testing.T) (*Runtime, *MemoryPersister, *Result) {
	t.Helper()
	next := &Result{}
	mem := NewMemoryPersister()
	hooks := map[string]HookFunc{"ok": passHook(nil), "reading": func(*HookContext) (Result, error) { return *next, nil }}
	g, err := Compile("fixwalk", []byte(fixGraph), testRegistry(t, hooks))
	require.NoError(t, err)
	rt := &Runtime{Graph: g, Persist: mem, Signer: NewSigner(nil), Repo: t.TempDir(), SpecRoot: "docs/specs"}
	require.NoError(t, os.MkdirAll(rt.SpecDir("issue-1"), 0o755))
	_, err = rt.Start(context.Background(), "issue-1", StartOptions{})
	require.NoError(t, err)
	_, err = rt.Advance(context.Background(), "issue-1", nil)
	require.NoError(t, err)
	return rt, mem, next
}

func TestAFixRoundIsRecordedAndBriefsTheVisitItSendsTheWorkTo(t *testing.T) {
	rt, mem, next := fixRig(t)
	ctx := context.Background()
	*next = OK("reading", map[string]any{"outcome": OutcomeCIFailed, DataFixRound: &FixRound{Reason: OutcomeCIFailed,
		Checks: []FixCheck{{Name: "build", Head: "abc", Log: "FAIL", Annotations: []FixAnnotation{{Message: "m"}}}}}})
	next.Messages = []Message{{Text: "check build failed on abc", Severity: SevInfo}}
	rep, err := rt.Advance(ctx, "issue-1", nil)
	require.NoError(t, err)
	assert.Equal(t, "pass", rep.Status)
	assert.Equal(t, []string{"check build failed on abc", "advanced to build"}, rep.Messages, "the report says why the work went back")
	st, _, _ := mem.Load(ctx, "issue-1")
	assert.Equal(t, "build", st.CurrentNode)
	assert.Zero(t, st.Nodes["ship"].Attempts, "a red reading spends no attempt")
	require.Len(t, st.FixRounds, 1)
	fr := st.FixRounds[0]
	assert.Equal(t, []any{"ship", "build", 2, 0}, []any{fr.From, fr.To, fr.Entry, fr.Forces})
	assert.Same(t, fr, st.Briefing("build"), "the visit it entered is briefed with it")
	assert.Nil(t, st.Briefing("ship"))
	assert.Len(t, st.CIFixRounds(), 1)
	evs, _ := mem.Events(ctx, "issue-1")
	var names []string
	for _, e := range evs {
		names = append(names, e.Name)
	}
	assert.Contains(t, names, "graph.fix_round")

	_, err = rt.Force(ctx, "issue-1", "build", "start the build again", "@ops") // a visit entered otherwise
	require.NoError(t, err)
	st, _, _ = mem.Load(ctx, "issue-1")
	assert.Nil(t, st.Briefing("build"), "a later visit entered otherwise is not briefed with an old round")
	assert.Empty(t, st.CIFixRounds(), "a force starts the CI rounds again")
}

func TestEscalateDataEscalatesAtOnceWithoutAnAttempt(t *testing.T) {
	rt, mem, next := fixRig(t)
	ctx := context.Background()
	*next = Result{Status: Block, Hook: "reading", Data: map[string]any{DataEscalate: "CI still fails after 3 fix round(s)"}, Messages: []Message{Errorf("", "red")}}
	rep, err := rt.Advance(ctx, "issue-1", nil)
	require.NoError(t, err)
	assert.Equal(t, StatusEscalated, rep.Status)
	assert.Contains(t, rep.Messages, "escalated: CI still fails after 3 fix round(s)")
	st, _, _ := mem.Load(ctx, "issue-1")
	assert.Equal(t, "escalated", st.CurrentNode)
	require.NotNil(t, st.Escalation)
	assert.Equal(t, []string{"ship", "CI still fails after 3 fix round(s)"}, []string{st.Escalation.From, st.Escalation.Reason})
	assert.Zero(t, st.Nodes["ship"].Attempts)
}

func TestOldFixRoundsKeepTheirSummaryOnly(t *testing.T) {
	st := NewState("issue-1")
	for i := range 5 {
		st.recordFixRound("ship", &FixRound{Reason: OutcomeCIFailed, Checks: []FixCheck{{Name: fmt.Sprint(i), Log: "FAIL", Summary: "s"}},
			Threads: []FixThread{{ID: "T", Comments: []FixComment{{ID: int64(i + 1), Author: "alice", Body: "why?"}}}}})
	}
	require.Len(t, st.FixRounds, 5)
	assert.Empty(t, st.FixRounds[0].Checks[0].Log, "an old round drops its log")
	assert.Empty(t, st.FixRounds[1].Threads[0].Comments[0].Body)
	assert.Equal(t, "FAIL", st.FixRounds[4].Checks[0].Log, "the newest keep their details")
	assert.Equal(t, int64(5), st.HandedComment("T"), "a thread's handed comments are remembered by id")
	for range maxFixRounds {
		st.recordFixRound("ship", &FixRound{Reason: OutcomeThreadsUnresolved})
	}
	assert.Len(t, st.FixRounds, maxFixRounds)
}
