package continuity

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Environment of the re-executed test binary.
const (
	writersRepoEnv = "CONTINUITY_WRITERS_REPO"
	writersNEnv    = "CONTINUITY_WRITERS_N"
	writersTagEnv  = "CONTINUITY_WRITERS_TAG"
	tornRepoEnv    = "CONTINUITY_TORN_REPO"
	tornStepEnv    = "CONTINUITY_TORN_STEP"
)

// TestHelperWriter is not a test: it is the body of the child processes
// that update one continuity set concurrently, printing each revision they
// were given.
func TestHelperWriter(t *testing.T) {
	dir := os.Getenv(writersRepoEnv)
	if dir == "" {
		t.Skip("runs only as a child of TestConcurrentProcessesLoseNoUpdate")
	}
	n, _ := strconv.Atoi(os.Getenv(writersNEnv))
	tag := os.Getenv(writersTagEnv)
	s, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := range n {
		res, err := s.Update(Entry{Kind: KindDiscovery, Text: fmt.Sprintf("finding %s-%d", tag, i)})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		fmt.Println(res.Revision)
	}
	os.Exit(0)
}

// Fault 6: N processes × M updates of one set land exactly N×M records, and
// no two callers are handed the same revision.
func TestConcurrentProcessesLoseNoUpdate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	const procs, each = 4, 12
	dir := gitRepo(t, "https://github.com/acme/widgets.git")
	s, err := Open(dir)
	require.NoError(t, err)
	_, err = s.Init(InitOptions{Goal: "count every finding"})
	require.NoError(t, err)

	var mu sync.Mutex
	revisions := map[int]string{}
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
			cmd.Env = append(os.Environ(), writersRepoEnv+"="+dir, writersNEnv+"="+strconv.Itoa(each), writersTagEnv+"="+strconv.Itoa(p))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				errs <- fmt.Errorf("writer %d: %v: %s", p, err, stderr.String())
				return
			}
			sc := bufio.NewScanner(strings.NewReader(string(out)))
			for sc.Scan() {
				rev, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
				if err != nil {
					continue // test framework output
				}
				mu.Lock()
				if other, dup := revisions[rev]; dup {
					errs <- fmt.Errorf("revision %d handed to writers %s and %d", rev, other, p)
				}
				revisions[rev] = strconv.Itoa(p)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	dp, notes, graph := loadParts(t, s)
	assert.Equal(t, 1+procs*each, dp.Revision)
	assert.Equal(t, dp.Revision, notes.Revision)
	assert.Equal(t, dp.Revision, graph.Revision)
	findings := map[string]bool{}
	for _, r := range notes.Records {
		if r.Kind == KindDiscovery {
			findings[r.Text] = true
		}
	}
	assert.Len(t, findings, procs*each, "every acknowledged update is in the notes")
	assert.Len(t, revisions, procs*each)
}

// TestHelperTornWrite is not a test: it updates the set and kills itself at
// the step named by CONTINUITY_TORN_STEP of the three-file write.
func TestHelperTornWrite(t *testing.T) {
	dir := os.Getenv(tornRepoEnv)
	if dir == "" {
		t.Skip("runs only as a child of TestAWriteKilledPartWayIsRepairedByTheNextUpdate")
	}
	s, err := Open(dir)
	require.NoError(t, err)
	s.Now = func() time.Time { return t0.Add(time.Hour) }
	step := os.Getenv(tornStepEnv)
	s.afterWriteStep = func(name string) {
		if name == step {
			p, _ := os.FindProcess(os.Getpid())
			_ = p.Kill()
			select {}
		}
	}
	_, _ = s.Update(Entry{Kind: KindDecision, Text: "the update that was cut short"})
	t.Fatal("the process should have been killed")
}

// Fault 11 (continuity): a write killed part-way never leaves a set that
// refuses updates. Killed before the commit point, the update is gone and
// the set is as before; killed after it, the next call finishes the write.
func TestAWriteKilledPartWayIsRepairedByTheNextUpdate(t *testing.T) {
	tests := []struct {
		step      string
		committed bool
	}{
		{step: "pending " + NotesFile, committed: false},
		{step: "pending " + DeathPointFile, committed: false},
		{step: "commit", committed: true},
		{step: "installed " + NotesFile, committed: true},
		{step: "installed " + GraphFile, committed: true},
	}
	for _, tt := range tests {
		t.Run(tt.step, func(t *testing.T) {
			c := &clock{now: t0}
			s := openSet(t, gitRepo(t, "https://github.com/acme/widgets.git"), c)
			_, err := s.Init(InitOptions{Goal: "survive a torn write"})
			require.NoError(t, err)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperTornWrite$", "-test.count=1")
			cmd.Env = append(os.Environ(), tornRepoEnv+"="+s.Root, tornStepEnv+"="+tt.step)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "the helper must die, got %v: %s", err, out)

			c.advance(2 * time.Hour)
			res, err := s.Update(Entry{Kind: KindDiscovery, Text: "the next update"})
			require.NoError(t, err, "the next update repairs the set")
			dp, notes, graph := loadParts(t, s)
			assert.Equal(t, res.Revision, dp.Revision)
			assert.Equal(t, dp.Revision, notes.Revision)
			assert.Equal(t, dp.Revision, graph.Revision)
			var texts []string
			for _, r := range notes.Records {
				texts = append(texts, r.Text)
			}
			if tt.committed {
				assert.Contains(t, texts, "the update that was cut short")
				assert.Equal(t, 3, res.Revision)
			} else {
				assert.NotContains(t, texts, "the update that was cut short")
				assert.Equal(t, 2, res.Revision)
			}
			entries, err := os.ReadDir(s.Dir())
			require.NoError(t, err)
			for _, e := range entries {
				assert.False(t, strings.HasPrefix(e.Name(), "."), "no leftover %s", e.Name())
			}
		})
	}
}

// A set torn by an older release (revisions that disagree) is repaired by
// the next update instead of refusing every update until a resume.
func TestATornSetIsRepairedByTheNextUpdate(t *testing.T) {
	s, c := newLive(t)
	_, notes, _ := loadParts(t, s)
	notes.Records = append(notes.Records, Record{At: c.now, Kind: KindDecision, Session: notes.Session, Text: "written before the crash"})
	notes.Revision++
	require.NoError(t, os.WriteFile(setFile(s, NotesFile), notes.render(), 0o644))
	c.advance(time.Minute)

	res, err := s.Update(Entry{Kind: KindTask, Text: "carry on"})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Revision, "the revision moves past every part")
	dp, after, graph := loadParts(t, s)
	assert.Equal(t, 3, dp.Revision)
	assert.Equal(t, 3, graph.Revision)
	var kinds, texts []string
	for _, r := range after.Records {
		kinds, texts = append(kinds, r.Kind), append(texts, r.Text)
	}
	assert.Contains(t, texts, "written before the crash", "nothing recorded is dropped")
	assert.Contains(t, kinds, kindRepaired)
	st, err := s.Status()
	require.NoError(t, err)
	assert.Equal(t, StatusActive, st.State)
}

func TestTheLockFileLivesInTheGitDirectory(t *testing.T) {
	s, _ := newLive(t)
	_, err := os.Stat(filepath.Join(s.Root, ".git", lockName))
	require.NoError(t, err, "the lock never shows up as an untracked file")
	assert.Empty(t, runGit(t, s.Root, "status", "--porcelain", "--untracked-files=all"))
}
