package continuity

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInitFresh(t *testing.T) {
	s, _ := newLive(t)
	dp, notes, graph := loadParts(t, s)
	assert.Equal(t, StatusActive, dp.Status)
	assert.Equal(t, ModeFresh, dp.Started)
	assert.Equal(t, "github.com/acme/widgets", dp.Repository)
	assert.Equal(t, "test-harness", dp.Harness)
	assert.Equal(t, "initialized continuity state (fresh)", dp.LastCompleted)
	assert.Equal(t, "record the first task", dp.NextAction)
	assert.Equal(t, 1, dp.Revision)
	assert.Equal(t, 1, notes.Revision)
	assert.Equal(t, 1, graph.Revision)
	assert.Equal(t, "ship the widget importer", notes.Goal)
	assert.Equal(t, "importer package only", notes.Scope)
	require.Len(t, notes.Records, 1)
	assert.Equal(t, "customers asked", notes.Records[0].Why)
	require.Len(t, graph.Nodes, 1)
	assert.Equal(t, sessionNodeID(dp.Session), graph.Nodes[0].ID)
	assert.Equal(t, StatusActive, graph.Nodes[0].Status)
}

func TestInitWithoutGoal(t *testing.T) {
	s := openSet(t, gitRepo(t, ""), &clock{now: t0})
	_, err := s.Init(InitOptions{})
	require.ErrorIs(t, err, ErrNoGoal)
	_, err = s.Resume()
	require.ErrorIs(t, err, ErrNoGoal)
	_, statErr := os.Stat(s.DeathPointPath())
	assert.True(t, os.IsNotExist(statErr))
}

func TestResumeKeepsPriorRecord(t *testing.T) {
	s, c := newLive(t)
	_, err := s.Update(Entry{Kind: KindDecision, Text: "parse CSV with encoding/csv", Why: "stdlib is enough"})
	require.NoError(t, err)
	_, err = s.End(EndOptions{Kind: EndInterrupted, Next: "write the parser tests"})
	require.NoError(t, err)
	oldDP, _, _ := loadParts(t, s)
	oldNotes := readFile(t, setFile(s, NotesFile))

	c.advance(2 * time.Hour)
	res, err := s.Resume()
	require.NoError(t, err)
	assert.Equal(t, ModeResumed, res.Mode)
	assert.Equal(t, oldDP.Session, res.Resumed)
	assert.Nil(t, res.Rejected)
	assert.Equal(t, "write the parser tests", res.NextAction)

	dp, notes, graph := loadParts(t, s)
	assert.Equal(t, StatusActive, dp.Status)
	assert.Equal(t, ModeResumed, dp.Started)
	assert.NotEqual(t, oldDP.Session, dp.Session)
	assert.Equal(t, oldDP.Revision+1, dp.Revision)
	logBefore := oldNotes[:strings.LastIndex(oldNotes, "\n<!-- end:")]
	assert.True(t, strings.HasPrefix(readFile(t, setFile(s, NotesFile)), logBefore), "earlier records are not rewritten")
	last := notes.Records[len(notes.Records)-1]
	assert.Equal(t, kindResumed, last.Kind)
	assert.Equal(t, c.now, last.At)
	assert.Contains(t, last.Text, oldDP.Session)
	assert.Equal(t, StatusResumed, graph.node(sessionNodeID(oldDP.Session)).Status)
	assert.Equal(t, StatusActive, graph.node(sessionNodeID(dp.Session)).Status)
	assert.Contains(t, graph.Edges, Edge{From: sessionNodeID(oldDP.Session), To: sessionNodeID(dp.Session), Kind: EdgeSequence})
}

func TestInitOnLiveSetResumesAndRecordsRestatedGoal(t *testing.T) {
	s, _ := newLive(t)
	res, err := s.Init(InitOptions{Goal: "ship the importer and exporter"})
	require.NoError(t, err)
	assert.Equal(t, ModeResumed, res.Mode)
	_, notes, _ := loadParts(t, s)
	assert.Equal(t, "ship the widget importer", notes.Goal, "the recorded goal is not rewritten")
	assert.Equal(t, kindScope, notes.Records[len(notes.Records)-1].Kind)
	assert.Contains(t, notes.Records[len(notes.Records)-1].Text, "importer and exporter")
}

func TestResumeRejections(t *testing.T) {
	tests := []struct {
		name      string
		damage    func(t *testing.T, s *Set, c *clock)
		reason    Reason
		detail    string
		recovered string
	}{
		{"corrupt graph", func(t *testing.T, s *Set, c *clock) {
			require.NoError(t, os.WriteFile(setFile(s, GraphFile), []byte("garbage\n"), 0o644))
		}, ReasonCorrupt, "graph.md: first line", "ship the widget importer"},
		{"corrupt death point", func(t *testing.T, s *Set, c *clock) {
			data := strings.Replace(readFile(t, setFile(s, DeathPointFile)), "status: active", "status: ???", 1)
			require.NoError(t, os.WriteFile(setFile(s, DeathPointFile), []byte(data), 0o644))
		}, ReasonCorrupt, "death-point.md", "ship the widget importer"},
		{"notes cut short", func(t *testing.T, s *Set, c *clock) {
			data := readFile(t, setFile(s, NotesFile))
			require.NoError(t, os.WriteFile(setFile(s, NotesFile), []byte(data[:len(data)-30]), 0o644))
		}, ReasonIncomplete, "notes.md: no end marker", "ship the widget importer"},
		{"graph missing", func(t *testing.T, s *Set, c *clock) {
			require.NoError(t, os.Remove(setFile(s, GraphFile)))
		}, ReasonIncomplete, "graph.md missing", "ship the widget importer"},
		{"death point missing", func(t *testing.T, s *Set, c *clock) {
			require.NoError(t, os.Remove(setFile(s, DeathPointFile)))
		}, ReasonIncomplete, "death-point.md is missing", "ship the widget importer"},
		{"unfinished update", func(t *testing.T, s *Set, c *clock) {
			_, notes, _ := loadParts(t, s)
			notes.Revision++
			require.NoError(t, os.WriteFile(setFile(s, NotesFile), notes.render(), 0o644))
		}, ReasonStale, "an update did not finish", "ship the widget importer"},
		{"too old", func(t *testing.T, s *Set, c *clock) {
			c.advance(31 * 24 * time.Hour)
		}, ReasonStale, "more than 30 days ago", "ship the widget importer"},
		{"completed", func(t *testing.T, s *Set, c *clock) {
			_, err := s.End(EndOptions{Kind: EndCompleted, Result: "importer shipped"})
			require.NoError(t, err)
		}, ReasonCompleted, "completed its goal", ""},
		{"other project", func(t *testing.T, s *Set, c *clock) {
			runGit(t, s.Root, "remote", "set-url", "origin", "https://github.com/other/thing.git")
			reopened, err := Open(s.Root)
			require.NoError(t, err)
			s.Identity = reopened.Identity
		}, ReasonOtherProject, "recorded for github.com/acme/widgets, but this repository is github.com/other/thing", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := newLive(t)
			tt.damage(t, s, c)
			before := map[string]string{}
			for _, f := range []string{DeathPointFile, NotesFile, GraphFile} {
				if data, err := os.ReadFile(setFile(s, f)); err == nil {
					before[f] = string(data)
				}
			}
			st, err := s.Status()
			require.NoError(t, err)
			if tt.reason != ReasonCompleted {
				assert.Equal(t, StateUnusable, st.State)
				require.NotNil(t, st.Rejection)
				assert.Equal(t, tt.reason, st.Rejection.Reason)
			}

			res, err := s.Resume()
			if tt.recovered == "" {
				require.ErrorIs(t, err, ErrNoGoal, "nothing to recover the goal from")
				for f, want := range before {
					assert.Equal(t, want, readFile(t, setFile(s, f)), "a refused resume changes nothing")
				}
				res, err = s.Init(InitOptions{Goal: "a new goal"})
			}
			require.NoError(t, err)
			assert.Equal(t, ModeFresh, res.Mode)
			require.NotNil(t, res.Rejected)
			assert.Equal(t, tt.reason, res.Rejected.Reason)
			assert.Contains(t, res.Rejected.Detail, tt.detail)
			if tt.recovered != "" {
				assert.Equal(t, tt.recovered, res.Goal, "the goal is carried over from the rejected set")
			}
			require.NotEmpty(t, res.Rejected.PreservedAt)
			for f, want := range before {
				assert.Equal(t, want, readFile(t, filepath.Join(s.Root, res.Rejected.PreservedAt, f)), "rejected %s is kept", f)
			}
			assert.Contains(t, res.Rejected.Message(), "kept at "+res.Rejected.PreservedAt)
			dp, notes, _ := loadParts(t, s)
			assert.Equal(t, StatusActive, dp.Status)
			assert.Contains(t, notes.Records[0].Text, "Started fresh: previous continuity set rejected")
		})
	}
}

// TestHelperCrashAfterDeathPoint is not a test on its own: the crash test
// runs it in a child process that kills itself right after the minimal
// death point is flushed.
func TestHelperCrashAfterDeathPoint(t *testing.T) {
	dir := os.Getenv("CONTINUITY_CRASH_REPO")
	if dir == "" {
		t.Skip("helper process for TestCrashBetweenDeathPointAndNotes")
	}
	s, err := Open(dir)
	require.NoError(t, err)
	s.afterEmergency = func() {
		p, _ := os.FindProcess(os.Getpid())
		_ = p.Kill()
		select {}
	}
	_, _ = s.Init(InitOptions{Goal: "survive a crash mid-init"})
	t.Fatal("the process should have been killed")
}

func TestCrashBetweenDeathPointAndNotes(t *testing.T) {
	dir := gitRepo(t, "")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCrashAfterDeathPoint$")
	cmd.Env = append(os.Environ(), "CONTINUITY_CRASH_REPO="+dir)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "the helper must die, got %v: %s", err, out)
	assert.False(t, exit.Success())

	s := openSet(t, dir, &clock{now: time.Now().UTC()})
	dp, err := parseDeathPoint([]byte(readFile(t, s.DeathPointPath())))
	require.NoError(t, err, "the emergency death point is complete")
	assert.True(t, dp.minimal())
	assert.Equal(t, "survive a crash mid-init", dp.Goal)
	for _, f := range []string{NotesFile, GraphFile} {
		_, statErr := os.Stat(setFile(s, f))
		assert.True(t, os.IsNotExist(statErr), "%s was never written", f)
	}

	res, err := s.Resume()
	require.NoError(t, err)
	assert.Equal(t, ModeFresh, res.Mode)
	require.NotNil(t, res.Rejected)
	assert.Equal(t, ReasonIncomplete, res.Rejected.Reason)
	assert.True(t, res.Rejected.Emergency)
	assert.Equal(t, "survive a crash mid-init", res.Goal)
	assert.FileExists(t, filepath.Join(s.Root, res.Rejected.PreservedAt, DeathPointFile))
	newDP, _, _ := loadParts(t, s)
	assert.Equal(t, 1, newDP.Revision)
	assert.NotEqual(t, dp.Session, newDP.Session)
}
