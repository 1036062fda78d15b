package continuity

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/the-loop/the-loop/internal/atomicfile"
)

// Titles of the brief's required sections, in order.
const (
	TitleReceipt   = "Source receipt"
	TitleGoal      = "Goal and scope"
	TitleFiles     = "Active files"
	TitleGraph     = "Task, decision and blocker graph"
	TitleDecisions = "Decisions with rationale"
	TitleEvidence  = "Evidence"
	TitleNext      = "Next action"
	TitleWhere     = whereTitle
)

// BriefOptions select and shape a brief.
type BriefOptions struct {
	// Source is an exact session handle (full or short); empty means the
	// live set.
	Source string `json:"source,omitempty"`
	// Exclude lists projects or paths that must not be packaged.
	Exclude []string `json:"exclude,omitempty"`
	// Out is a file name to write under .handoff/handoffs/; empty returns
	// the brief only.
	Out string `json:"out,omitempty"`
	// Budget is the byte limit, at most (and by default) BriefBudget.
	Budget int `json:"budget,omitempty"`
}

// SectionInfo describes one section of an emitted brief.
type SectionInfo struct {
	Title string `json:"title"`
	Bytes int    `json:"bytes"`
	Cut   bool   `json:"cut"`
}

// Brief is a packaged continuity brief.
type Brief struct {
	Receipt          Receipt       `json:"receipt"`
	Text             string        `json:"text"`
	Bytes            int           `json:"bytes"`
	Budget           int           `json:"budget"`
	Sections         []SectionInfo `json:"sections"`
	Path             string        `json:"path,omitempty"`
	ContinuityStatus string        `json:"continuityStatus"`
	DeathPoint       string        `json:"deathPoint"`
}

// Brief packages one UTF-8 brief of at most opts.Budget bytes. It never
// launches a receiver.
// It holds the repository's continuity lock, so calls from several
// processes never interleave.
func (s *Set) Brief(opts BriefOptions) (Brief, error) {
	return locked(s, func() (Brief, error) { return s.brief(opts) })
}

// brief is Brief without the lock.
func (s *Set) brief(opts BriefOptions) (Brief, error) {
	budget := opts.Budget
	if budget == 0 {
		budget = BriefBudget
	}
	if budget < 0 || budget > BriefBudget {
		return Brief{}, fmt.Errorf("continuity: brief budget %d is outside 1..%d bytes", budget, BriefBudget)
	}
	out, err := s.outPath(opts.Out)
	if err != nil {
		return Brief{}, err
	}
	src, err := s.resolveSource(strings.TrimSpace(opts.Source), opts.Exclude)
	if err != nil {
		return Brief{}, err
	}
	receipt := s.receipt(src)
	others, where := buildSections(src, receipt)
	f, err := fit(others, where, budget)
	if err != nil {
		return Brief{}, err
	}
	var b strings.Builder
	b.WriteString(briefHeading)
	brief := Brief{Receipt: receipt, Budget: budget, DeathPoint: s.rel(s.DeathPointPath())}
	for i, sec := range f.sections {
		r := sec.render()
		b.WriteString(r)
		brief.Sections = append(brief.Sections, SectionInfo{Title: sec.title, Bytes: len(r), Cut: f.cut[i]})
	}
	b.WriteString(briefFooter)
	brief.Text = b.String()
	brief.Bytes = len(brief.Text)
	if brief.Bytes > budget || !utf8.ValidString(brief.Text) {
		return Brief{}, fmt.Errorf("continuity: internal error: brief is %d bytes for a %d-byte budget", brief.Bytes, budget)
	}
	if st, err := s.status(); err == nil {
		brief.ContinuityStatus = st.State
	}
	if out != "" {
		if _, err := s.EnsureIgnored(); err != nil {
			return Brief{}, err
		}
		if err := os.MkdirAll(s.HandoffsDir(), 0o755); err != nil {
			return Brief{}, fmt.Errorf("continuity: create %s: %w", s.rel(s.HandoffsDir()), err)
		}
		if err := atomicfile.Write(out, []byte(brief.Text), 0o644); err != nil {
			return Brief{}, fmt.Errorf("continuity: write brief: %w", err)
		}
		brief.Path = s.rel(out)
	}
	return brief, nil
}

func (s *Set) outPath(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", nil
	}
	if name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return "", errors.New("continuity: --out takes a file name, not a path: briefs are written under .handoff/handoffs/")
	}
	return filepath.Join(s.HandoffsDir(), name), nil
}

func (s *Set) receipt(src briefSource) Receipt {
	age, known, d := sourceAge(src.dp.Updated, s.now())
	r := Receipt{
		Harness: src.dp.Harness, Project: s.Identity, Session: ShortHandle(src.dp.Session), Handle: src.dp.Session,
		Timestamp: formatTime(src.dp.Updated), Age: age, AgeKnown: known, Warning: ageWarning(d, known),
		Notices: src.notices,
	}
	if r.Harness == "" {
		r.Harness = "unknown"
	}
	if src.newer > 0 {
		r.Visibility = fmt.Sprintf("this is the newest visible source; %d newer source(s) are withheld by the exclude list", src.newer)
	}
	if !src.live {
		r.Notices = append(r.Notices, "source is a preserved (rejected) set, not the live record")
	}
	return r
}

func orNone(lines []string, none string) []string {
	if len(lines) == 0 {
		return []string{"- " + none}
	}
	return lines
}

// buildSections turns the source into the brief's sections, filtering noise
// from every piece of free text.
func buildSections(src briefSource, r Receipt) ([]section, whereSection) {
	dp := src.dp
	var records []Record
	goal, scope := dp.Goal, ""
	if src.notes != nil {
		records, scope = src.notes.Records, src.notes.Scope
		if src.notes.Goal != "" {
			goal = src.notes.Goal
		}
	}
	nf := newNoiseFilter()
	goalLines := []string{"- goal: " + orText(nf.item(goal), "(not recorded)")}
	if sc := nf.item(scope); sc != "" {
		goalLines = append(goalLines, "- scope: "+sc)
	}
	for _, rec := range records {
		if rec.Kind == kindScope {
			if t := nf.item(rec.Text); t != "" {
				goalLines = append(goalLines, "- "+t)
			}
		}
	}

	var files []string
	seen := map[string]bool{}
	for i := len(records) - 1; i >= 0; i-- {
		for _, f := range records[i].Files {
			if !seen[f] {
				seen[f] = true
				files = append(files, "- "+capItem(f))
			}
		}
	}

	var graphLines []string
	if src.graph != nil {
		gf := newNoiseFilter()
		for _, n := range src.graph.Nodes {
			if n.Kind != NodeSession {
				graphLines = append(graphLines, fmt.Sprintf("- %s %s [%s]: %s", n.ID, n.Kind, n.Status, orText(gf.item(n.Text), "(noise only)")))
			}
		}
		for _, e := range src.graph.Edges {
			if from, to := src.graph.node(e.From), src.graph.node(e.To); from.Kind != NodeSession && to.Kind != NodeSession {
				graphLines = append(graphLines, "- "+edgePhrase(e))
			}
		}
	}

	df, ef := newNoiseFilter(), newNoiseFilter()
	var decisions, evidence []string
	for _, rec := range records {
		t := ""
		switch {
		case rec.Kind == KindDecision:
			if t = df.item(rec.Text); t != "" {
				if why := df.item(rec.Why); why != "" {
					t += " (why: " + why + ")"
				}
				decisions = append(decisions, "- "+capItem(t))
			}
		case rec.Kind == KindDiscovery || rec.Kind == KindPhase || rec.Kind == kindCompleted ||
			(rec.Kind == KindTask && rec.Status == StatusDone):
			if t = ef.item(rec.Text); t != "" {
				label := rec.Kind
				if rec.Kind == KindTask {
					label = "done " + rec.Node
				}
				if why := ef.item(rec.Why); why != "" {
					t += " (why: " + why + ")"
				}
				evidence = append(evidence, "- "+label+": "+capItem(t))
			}
		}
	}

	nx := newNoiseFilter()
	next := []string{"- " + orText(nx.item(dp.NextAction), "(not recorded)")}
	if src.graph != nil {
		for _, n := range src.graph.Nodes {
			if n.Kind == NodeTask && (n.Status == StatusOpen || n.Status == StatusBlocked) {
				next = append(next, fmt.Sprintf("- then %s [%s]: %s", n.ID, n.Status, orText(nx.item(n.Text), "(noise only)")))
			}
		}
	}

	others := []section{
		{TitleReceipt, r.lines()},
		{TitleGoal, goalLines},
		{TitleFiles, orNone(files, "none recorded")},
		{TitleGraph, orNone(graphLines, "no tasks, decisions or blockers recorded")},
		{TitleDecisions, orNone(decisions, "none recorded")},
		{TitleEvidence, orNone(evidence, "none recorded")},
		{TitleNext, next},
	}
	return others, whereFacts(dp, records)
}

func whereFacts(dp DeathPoint, records []Record) whereSection {
	wf := newNoiseFilter()
	w := whereSection{facts: []string{
		fmt.Sprintf("- status: %s at %s (session %s)", dp.Status, formatTime(dp.Updated), ShortHandle(dp.Session)),
		"- last completed: " + orText(wf.item(dp.LastCompleted), "(not recorded)"),
		"- next action: " + orText(wf.item(dp.NextAction), "(not recorded)"),
	}}
	if dp.Phase != "" {
		w.facts = append(w.facts, "- phase: "+capItem(dp.Phase))
	}
	if len(dp.Blockers) == 0 {
		w.facts = append(w.facts, "- blockers: none")
	}
	for _, b := range dp.Blockers {
		w.facts = append(w.facts, "- blocker: "+capItem(b))
	}
	ent := newNoiseFilter()
	for _, rec := range records {
		t := ent.item(rec.Text)
		if t == "" {
			continue
		}
		label := rec.Kind
		if rec.Node != "" {
			label += " " + rec.Node
		}
		if rec.Status != "" {
			label += " [" + rec.Status + "]"
		}
		w.entries = append(w.entries, fmt.Sprintf("  - %s %s: %s", formatTime(rec.At), label, t))
	}
	return w
}

func edgePhrase(e Edge) string {
	switch e.Kind {
	case EdgeDepends:
		return e.From + " depends on " + e.To
	case EdgeSequence:
		return e.From + " then " + e.To
	default:
		return e.From + " resolves " + e.To
	}
}

func orText(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
