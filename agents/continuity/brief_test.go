package continuity

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var sectionOrder = []string{TitleReceipt, TitleGoal, TitleFiles, TitleGraph, TitleDecisions, TitleEvidence, TitleNext, TitleWhere}

// bodies splits a brief into its sections' body lines, keyed by title.
func bodies(t *testing.T, text string) ([]string, map[string][]string) {
	t.Helper()
	var titles []string
	out := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(text, "\n") {
		if title, ok := strings.CutPrefix(line, "## "); ok {
			cur = title
			titles = append(titles, title)
			continue
		}
		if cur != "" && line != "" && line != ContinuationLine {
			out[cur] = append(out[cur], line)
		}
	}
	return titles, out
}

func populate(t *testing.T, s *Set, c *clock) {
	t.Helper()
	for _, e := range []Entry{
		{Kind: KindTask, Text: "write the parser", Files: []string{"importer/parse.go"}},
		{Kind: KindDecision, Text: "use encoding/csv\n```\n$ go doc encoding/csv\npackage csv // dump\n```", Why: "the standard library is enough"},
		{Kind: KindBlocker, Text: "need sample files", Blocks: "t1"},
		{Kind: KindDiscovery, Text: "dates come in two formats\n<system-reminder>secret harness chatter</system-reminder>", Files: []string{"importer/dates.go"}},
	} {
		c.advance(time.Minute)
		_, err := s.Update(e)
		require.NoError(t, err)
	}
	_, err := s.End(EndOptions{Kind: EndInterrupted, Next: "ask the customer for sample files"})
	require.NoError(t, err)
}

func TestBriefSections(t *testing.T) {
	s, c := newLive(t)
	populate(t, s, c)
	c.advance(90 * time.Minute)
	b, err := s.Brief(BriefOptions{})
	require.NoError(t, err)

	titles, body := bodies(t, b.Text)
	assert.Equal(t, sectionOrder, titles)
	for _, title := range sectionOrder {
		assert.NotEmpty(t, body[title], "section %q is non-empty", title)
	}
	assert.True(t, strings.HasPrefix(b.Text, "# Session continuity brief\n"))
	assert.True(t, strings.HasSuffix(b.Text, "\n"+ContinuationLine+"\n"))
	assert.Equal(t, len(b.Text), b.Bytes)
	assert.LessOrEqual(t, b.Bytes, BriefBudget)

	dp, _, _ := loadParts(t, s)
	assert.Equal(t, "test-harness", b.Receipt.Harness)
	assert.Equal(t, "github.com/acme/widgets", b.Receipt.Project)
	assert.Equal(t, ShortHandle(dp.Session), b.Receipt.Session)
	assert.Equal(t, formatTime(dp.Updated), b.Receipt.Timestamp)
	assert.Equal(t, "1h 30m", b.Receipt.Age)
	assert.Empty(t, b.Receipt.Warning)
	assert.Equal(t, StatusInterrupted, b.ContinuityStatus)
	assert.Contains(t, body[TitleFiles], "- importer/dates.go")
	assert.Contains(t, body[TitleGraph], "- t1 depends on b1")
	assert.Contains(t, body[TitleDecisions], "- use encoding/csv (why: the standard library is enough)")
	assert.Contains(t, body[TitleNext], "- ask the customer for sample files")
	assert.Contains(t, body[TitleWhere], "- blocker: b1: need sample files")
	assert.NotContains(t, b.Text, "go doc", "tool dumps are filtered")
	assert.NotContains(t, b.Text, "secret harness chatter", "system reminders are filtered")
	assert.Empty(t, b.Path, "no file without --out")
}

// bigSet fills a set with n records of text built from unit.
func bigSet(t *testing.T, unit string, n int) (*Set, *clock) {
	t.Helper()
	s, c := newLive(t)
	for i := 0; i < n; i++ {
		c.advance(time.Second)
		kind := []string{KindDecision, KindDiscovery, KindTask}[i%3]
		text := fmt.Sprintf("%d %s", i, strings.Repeat(unit, 40))
		_, err := s.Update(Entry{Kind: kind, Text: text, Why: strings.Repeat(unit, 10), Files: []string{fmt.Sprintf("pkg%d/file%d.go", i, i)}})
		require.NoError(t, err)
	}
	return s, c
}

func TestBriefBudgetInUTF8Bytes(t *testing.T) {
	units := map[string]string{"ascii": "word ", "two-byte": "été ", "three-byte": "日本語 ", "four-byte": "🙂🚀 ", "mixed": "a日é🙂 "}
	for name, unit := range units {
		s, _ := bigSet(t, unit, 24)
		for _, budget := range []int{BriefBudget, BriefBudget - 1, 4099, 2048} {
			t.Run(fmt.Sprintf("%s/%d", name, budget), func(t *testing.T) {
				b, err := s.Brief(BriefOptions{Budget: budget})
				require.NoError(t, err)
				assert.LessOrEqual(t, len(b.Text), budget, "measured in bytes, not runes")
				assert.Equal(t, len(b.Text), b.Bytes)
				assert.True(t, utf8.ValidString(b.Text), "cuts land on rune boundaries")
				assert.Greater(t, len(b.Text), budget*3/4, "the budget is used, not wasted")
				titles, body := bodies(t, b.Text)
				assert.Equal(t, sectionOrder, titles)
				for _, title := range sectionOrder {
					assert.NotEmpty(t, body[title], title)
				}
			})
		}
	}
}

func TestBriefOverBudgetValue(t *testing.T) {
	s, _ := newLive(t)
	_, err := s.Brief(BriefOptions{Budget: BriefBudget + 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside 1..6144")
}

func TestBriefReservesQuarterForWhereItStopped(t *testing.T) {
	s, _ := bigSet(t, "alpha beta ", 30)
	b, err := s.Brief(BriefOptions{})
	require.NoError(t, err)
	fixed := len(briefHeading) + len(briefFooter)
	others := 0
	var where SectionInfo
	for _, sec := range b.Sections {
		if sec.Title == TitleWhere {
			where = sec
			continue
		}
		others += sec.Bytes
	}
	assert.LessOrEqual(t, others+fixed, BriefBudget-BriefBudget/4, "other sections leave a quarter free")
	assert.True(t, where.Cut)
	assert.GreaterOrEqual(t, where.Bytes, BriefBudget/4-maxItem-8, "Where it stopped fills its reservation up to one entry")

	// With little to say in Where it stopped, its section stays whole.
	small, c := newLive(t)
	for i := 0; i < 40; i++ {
		c.advance(time.Second)
		_, err := small.Update(Entry{Kind: KindTask, Text: fmt.Sprintf("task %d %s", i, strings.Repeat("x y ", 50)), Files: []string{fmt.Sprintf("f%d.go", i)}})
		require.NoError(t, err)
	}
	b, err = small.Brief(BriefOptions{})
	require.NoError(t, err)
	assert.LessOrEqual(t, b.Bytes, BriefBudget)
	_, body := bodies(t, b.Text)
	assert.Contains(t, body[TitleWhere], "- next action: record the first task")
}

func TestBriefCutMarkerPlacement(t *testing.T) {
	s, _ := bigSet(t, "gamma delta ", 30)
	b, err := s.Brief(BriefOptions{})
	require.NoError(t, err)
	cuts := 0
	lines := strings.Split(b.Text, "\n")
	for i, line := range lines {
		if !strings.Contains(line, CutMarker) {
			continue
		}
		cuts++
		assert.Equal(t, CutMarker, line, "the marker is a line of its own")
		require.Less(t, i+1, len(lines))
		assert.Equal(t, "", lines[i+1], "nothing follows the marker inside its section")
		if i+2 < len(lines) {
			next := lines[i+2]
			assert.True(t, strings.HasPrefix(next, "## ") || next == ContinuationLine, "after the marker comes the next section or the closing line, got %q", next)
		}
	}
	for _, sec := range b.Sections {
		if sec.Cut {
			cuts--
		}
	}
	assert.Equal(t, 0, cuts, "every cut section carries exactly one marker")
	whereAt := strings.Index(b.Text, "## "+TitleWhere)
	tail := b.Text[whereAt:]
	assert.True(t, strings.HasSuffix(tail, CutMarker+"\n\n"+ContinuationLine+"\n"), "a cut Where it stopped ends with the marker, then only the closing line")
	for i, line := range lines {
		if strings.HasPrefix(line, "## ") {
			assert.NotEqual(t, "", lines[i+1], "no empty heading: %s", line)
		}
	}
}

func TestBriefBudgetFailure(t *testing.T) {
	s, c := newLive(t)
	populate(t, s, c)
	for _, budget := range []int{600, 300, 1} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			_, err := s.Brief(BriefOptions{Budget: budget, Out: "tiny.md"})
			var be *BudgetError
			require.True(t, errors.As(err, &be), "got %v", err)
			assert.Contains(t, sectionOrder, be.Section)
			assert.Contains(t, err.Error(), "no room for section")
			assert.Contains(t, err.Error(), "no brief emitted")
			_, statErr := os.Stat(filepath.Join(s.HandoffsDir(), "tiny.md"))
			assert.True(t, os.IsNotExist(statErr), "no brief file on budget failure")
		})
	}
}

func TestSourceAge(t *testing.T) {
	now := t0
	tests := []struct {
		name    string
		ts      time.Time
		age     string
		known   bool
		warning bool
	}{
		{"fresh", now.Add(-90 * time.Second), "1m", true, false},
		{"hours", now.Add(-25*time.Hour - 5*time.Minute), "25h 5m", true, false},
		{"exactly seven days", now.Add(-7 * 24 * time.Hour), "7d 0h", true, false},
		{"just over seven days", now.Add(-7*24*time.Hour - time.Second), "7d 0h", true, true},
		{"ten days", now.Add(-10*24*time.Hour - 3*time.Hour), "10d 3h", true, true},
		{"future", now.Add(time.Hour), "unknown (timestamp is in the future)", false, false},
		{"invalid", time.Time{}, "unknown (invalid timestamp)", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			age, known, d := sourceAge(tt.ts, now)
			assert.Equal(t, tt.age, age)
			assert.Equal(t, tt.known, known)
			w := ageWarning(d, known)
			assert.Equal(t, tt.warning, w != "")
			if tt.warning {
				assert.Contains(t, w, tt.age+" old")
			}
		})
	}
}

func TestBriefAgeWarningAndFutureTimestamp(t *testing.T) {
	s, c := newLive(t)
	c.advance(8 * 24 * time.Hour)
	b, err := s.Brief(BriefOptions{})
	require.NoError(t, err)
	assert.Contains(t, b.Receipt.Warning, "8d 0h old")
	assert.Contains(t, b.Text, "- warning: this work is 8d 0h old")

	c.advance(-9 * 24 * time.Hour)
	b, err = s.Brief(BriefOptions{})
	require.NoError(t, err)
	assert.False(t, b.Receipt.AgeKnown)
	assert.Contains(t, b.Text, "- age: unknown (timestamp is in the future)")
	assert.Empty(t, b.Receipt.Warning)
}

func TestBriefExclude(t *testing.T) {
	tests := []struct {
		exclude []string
		what    string
	}{
		{[]string{"github.com/acme/widgets"}, "project"},
		{[]string{"ACME/Widgets"}, "project"},
		{[]string{"github.com/acme/*"}, "project"},
		{[]string{".handoff/continuity"}, "path"},
		{[]string{"other", "*/notes.md"}, "path"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.exclude, ","), func(t *testing.T) {
			s, _ := newLive(t)
			// A damaged notes file proves exclusion happens before any read.
			require.NoError(t, os.WriteFile(setFile(s, NotesFile), []byte("\xff\xfe garbage"), 0o644))
			_, err := s.Brief(BriefOptions{Exclude: tt.exclude, Out: "x.md"})
			var ee *ExcludedError
			require.True(t, errors.As(err, &ee), "got %v", err)
			assert.Equal(t, tt.what, ee.What)
			assert.Contains(t, err.Error(), "no brief emitted")
			_, statErr := os.Stat(s.HandoffsDir())
			assert.True(t, os.IsNotExist(statErr))
		})
	}
	s, _ := newLive(t)
	b, err := s.Brief(BriefOptions{Exclude: []string{"github.com/other/*", "vendor/"}})
	require.NoError(t, err, "unrelated entries do not exclude")
	assert.NotEmpty(t, b.Text)
}

func TestBriefSourceSelection(t *testing.T) {
	s, c := newLive(t)
	populate(t, s, c)
	oldDP, _, _ := loadParts(t, s)
	c.advance(40 * 24 * time.Hour)
	res, err := s.Init(InitOptions{Goal: "second goal"})
	require.NoError(t, err)
	require.Equal(t, ReasonStale, res.Rejected.Reason)

	live, err := s.Brief(BriefOptions{})
	require.NoError(t, err)
	assert.Contains(t, live.Text, "second goal")

	for _, h := range []string{oldDP.Session, ShortHandle(oldDP.Session)} {
		b, err := s.Brief(BriefOptions{Source: h})
		require.NoError(t, err, h)
		assert.Equal(t, oldDP.Session, b.Receipt.Handle)
		assert.Contains(t, b.Text, "ship the widget importer")
		assert.Contains(t, b.Receipt.Notices, "source is a preserved (rejected) set, not the live record")
		assert.Contains(t, b.Receipt.Warning, "40d")
	}

	_, err = s.Brief(BriefOptions{Source: "nope"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no continuity source has handle "nope"`)
	assert.Contains(t, err.Error(), oldDP.Session)

	_, err = s.Brief(BriefOptions{Source: ShortHandle(oldDP.Session), Exclude: []string{res.Rejected.PreservedAt}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 source(s) withheld by the exclude list")

	preservedDP := filepath.Join(s.Root, res.Rejected.PreservedAt, DeathPointFile)
	require.NoError(t, os.Chtimes(preservedDP, t0, t0))
	b, err := s.Brief(BriefOptions{Exclude: []string{res.Rejected.PreservedAt}})
	require.NoError(t, err)
	assert.Empty(t, b.Receipt.Visibility, "the withheld source is older than the live one")

	// A copy of the preserved set makes the handle ambiguous.
	copyDir := filepath.Join(s.Dir(), RejectedDir, "copy")
	require.NoError(t, mkdir(copyDir))
	data := readFile(t, filepath.Join(s.Root, res.Rejected.PreservedAt, DeathPointFile))
	require.NoError(t, os.WriteFile(filepath.Join(copyDir, DeathPointFile), []byte(data), 0o644))
	_, err = s.Brief(BriefOptions{Source: oldDP.Session})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ambiguous")

	// A set recorded for another project is refused.
	other := strings.Replace(data, "github.com/acme/widgets", "github.com/other/thing", 1)
	require.NoError(t, os.WriteFile(filepath.Join(copyDir, DeathPointFile), []byte(strings.Replace(other, oldDP.Session, "20260101T000000Z-0000beef", 1)), 0o644))
	_, err = s.Brief(BriefOptions{Source: "0000beef"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "belongs to another project (github.com/other/thing")
}

func TestBriefVisibilityDisclosure(t *testing.T) {
	s, c := newLive(t)
	oldDP, _, _ := loadParts(t, s)
	c.advance(40 * 24 * time.Hour)
	res, err := s.Init(InitOptions{Goal: "second goal"})
	require.NoError(t, err)
	// Make the preserved set newer than the old session's timestamp, then
	// brief the old one while a newer matching set is withheld.
	copyDir := filepath.Join(s.Dir(), RejectedDir, "newer")
	require.NoError(t, mkdir(copyDir))
	dp := oldDP
	dp.Session = "20260501T000000Z-00c0ffee"
	require.NoError(t, os.WriteFile(filepath.Join(copyDir, DeathPointFile), dp.render(), 0o644))
	newer := t0.Add(50 * 24 * time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(copyDir, DeathPointFile), newer, newer))
	b, err := s.Brief(BriefOptions{Source: ShortHandle(oldDP.Session), Exclude: []string{"*/newer"}})
	require.NoError(t, err)
	assert.Contains(t, b.Receipt.Visibility, "newest visible source")
	assert.NotEmpty(t, res.Rejected.PreservedAt)
}

func TestBriefOut(t *testing.T) {
	s, c := newLive(t)
	populate(t, s, c)
	b, err := s.Brief(BriefOptions{Out: "handoff.md"})
	require.NoError(t, err)
	assert.Equal(t, ".handoff/handoffs/handoff.md", b.Path)
	assert.Equal(t, b.Text, readFile(t, filepath.Join(s.Root, b.Path)))
	for _, bad := range []string{"../escape.md", "a/b.md", ".."} {
		_, err := s.Brief(BriefOptions{Out: bad})
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "--out takes a file name")
	}
}

func TestBriefWithoutLiveSet(t *testing.T) {
	s := openSet(t, gitRepo(t, ""), &clock{now: t0})
	_, err := s.Brief(BriefOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no live continuity set to brief")
}
