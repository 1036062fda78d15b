package service

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/runtime"
)

// Annotation is one GitHub Actions workflow command that annotates a run:
// `::error file=F,line=L,title=T::message`.
type Annotation struct {
	// Level is error, warning or notice.
	Level   string
	File    string
	Line    int
	Title   string
	Message string
}

// String renders the command on one line, escaped as GitHub's runner
// parses it: in the message %, CR and LF become %25, %0D and %0A; property
// values additionally turn : and , into %3A and %2C. A message can
// therefore never end the command early or start another one.
func (a Annotation) String() string {
	var props []string
	if a.File != "" {
		props = append(props, "file="+escapeProperty(a.File))
		if a.Line > 0 {
			props = append(props, "line="+strconv.Itoa(a.Line))
		}
	}
	if a.Title != "" {
		props = append(props, "title="+escapeProperty(a.Title))
	}
	cmd := "::" + a.Level
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	return cmd + "::" + escapeData(a.Message)
}

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }

// GitHubReport renders check reports for GitHub Actions: annotations on the
// artifact and line each finding is about, and a markdown job summary.
type GitHubReport struct {
	// Root is the repository root the findings' paths are relative to.
	Root string
	// Workdir is the job's working directory: annotation paths are made
	// relative to it, the way GitHub resolves them.
	Workdir string
	// FailOn is check's --fail-on: unmet or block.
	FailOn string

	rows               []summaryRow
	satisfied, failing int
}

// summaryRow is one work item in the job summary.
type summaryRow struct {
	item, node, status, finding, where string
	fails, ok                          bool
}

// CheckTitle titles annotations about the check run as a whole.
const CheckTitle = "the-loop check"

// Item writes one report's annotations to w — one per finding of every
// reached node that is not satisfied — and keeps its summary row.
func (r *GitHubReport) Item(w io.Writer, rep runtime.Report, g *runtime.Graph) error {
	fails := rep.Fails(g, r.FailOn)
	row := summaryRow{item: rep.WorkItem, node: rep.CurrentNode, status: "ok", ok: rep.OK, fails: fails}
	if fails {
		r.failing++
	}
	if rep.OK {
		r.satisfied++
	}
	if rep.RepoResolved != nil && !*rep.RepoResolved {
		row.status, row.finding = "error", "the repository could not be read"
		r.rows = append(r.rows, row)
		return writeLine(w, Annotation{Level: "error", Title: rep.WorkItem, Message: row.finding}.String())
	}
	// Drift fails under every --fail-on: each claim is an error.
	for _, d := range rep.Drift {
		if row.finding == "" {
			row.status, row.finding = "drift", d
		}
		if err := writeLine(w, Annotation{Level: "error", Title: rep.WorkItem + " · drift", Message: d}.String()); err != nil {
			return err
		}
	}
	reached, _ := rep.Reached(g)
	for _, nr := range reached {
		if runtime.Satisfied(nr.Status) {
			continue
		}
		for i, a := range r.nodeAnnotations(rep.WorkItem, nr) {
			if row.finding == "" && i == 0 {
				row.node, row.status, row.finding, row.where = nr.Node, nr.Status, a.Message, where(a)
			}
			if err := writeLine(w, a.String()); err != nil {
				return err
			}
		}
	}
	r.rows = append(r.rows, row)
	return nil
}

// nodeAnnotations turns one unsatisfied node's messages into annotations.
func (r *GitHubReport) nodeAnnotations(item string, nr runtime.NodeReport) []Annotation {
	level := r.level(nr.Status)
	title := fmt.Sprintf("%s · %s (%s)", item, nr.Node, nr.Status)
	if len(nr.Messages) == 0 {
		return []Annotation{{Level: level, Title: title, Message: fmt.Sprintf("%s: %s", nr.Node, nr.Status)}}
	}
	out := make([]Annotation, 0, len(nr.Messages))
	for _, m := range nr.Messages {
		text, path := splitFinding(m, r.Root)
		a := Annotation{Level: level, Title: title, Message: text}
		if path != "" {
			a.File = r.workspacePath(path)
			a.Line = findingLine(filepath.Join(r.Root, filepath.FromSlash(path)), text)
		}
		out = append(out, a)
	}
	return out
}

// level is the annotation level of an unsatisfied node: error when it
// alone fails the check under --fail-on, else notice for a wait (a human
// has not answered yet) and warning for anything else.
func (r *GitHubReport) level(status string) string {
	switch {
	case r.FailOn != "block", status == string(runtime.Block):
		return "error"
	case status == string(runtime.Wait):
		return "notice"
	}
	return "warning"
}

// workspacePath is a repository path relative to the job's working
// directory (slash-separated); the repository path when it lies elsewhere.
func (r *GitHubReport) workspacePath(path string) string {
	if r.Workdir == "" {
		return path
	}
	rel, err := filepath.Rel(r.Workdir, filepath.Join(r.Root, filepath.FromSlash(path)))
	if err != nil || !filepath.IsLocal(rel) {
		return path
	}
	return filepath.ToSlash(rel)
}

// splitFinding separates a report message "text (path)" into its text and
// the repository path it names. The path is taken only when it is a local,
// whitespace-free path with a slash whose file or parent directory exists
// in root, so a parenthesis in prose is never mistaken for one.
func splitFinding(msg, root string) (text, path string) {
	if !strings.HasSuffix(msg, ")") {
		return msg, ""
	}
	i := strings.LastIndex(msg, " (")
	if i < 0 {
		return msg, ""
	}
	cand := msg[i+2 : len(msg)-1]
	if cand == "" || strings.ContainsAny(cand, " \t\r\n") || !strings.Contains(cand, "/") || !filepath.IsLocal(filepath.FromSlash(cand)) {
		return msg, ""
	}
	abs := filepath.Join(root, filepath.FromSlash(cand))
	if _, err := os.Stat(abs); err != nil {
		if fi, err := os.Stat(filepath.Dir(abs)); err != nil || !fi.IsDir() {
			return msg, ""
		}
	}
	return msg[:i], cand
}

// Warn writes a warning about the run as a whole.
func (r *GitHubReport) Warn(w io.Writer, msg string) error {
	msg = strings.TrimPrefix(msg, "warning: ") // the annotation's level says it
	return writeLine(w, Annotation{Level: "warning", Title: CheckTitle, Message: msg}.String())
}

// Fail writes the error that stopped the run.
func (r *GitHubReport) Fail(w io.Writer, msg string) error {
	return writeLine(w, Annotation{Level: "error", Title: CheckTitle, Message: msg}.String())
}

func writeLine(w io.Writer, s string) error {
	_, err := io.WriteString(w, s+"\n")
	return err
}

// where renders an annotation's place for the summary ("" without a file).
func where(a Annotation) string {
	if a.File == "" {
		return ""
	}
	if a.Line > 0 {
		return a.File + ":" + strconv.Itoa(a.Line)
	}
	return a.File
}

// Tally is the run's one-line result for the log.
func (r *GitHubReport) Tally() string {
	s := fmt.Sprintf("%d/%d work items satisfied", r.satisfied, len(r.rows))
	if r.failing > 0 {
		s += fmt.Sprintf(", %d failing the check (--fail-on %s)", r.failing, r.FailOn)
	}
	return s
}

// summaryBudget keeps the job summary under GitHub's 1 MiB per step.
const summaryBudget = 900 << 10

// Summary writes the markdown job summary: the tally, then one row per
// work item with its first finding and where it is.
func (r *GitHubReport) Summary(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n**%d/%d work items satisfied**", CheckTitle, r.satisfied, len(r.rows))
	if r.failing > 0 {
		fmt.Fprintf(&b, " · %d failing the check (`--fail-on %s`)", r.failing, r.FailOn)
	}
	b.WriteString("\n\n")
	if len(r.rows) > 0 {
		b.WriteString("| | work item | at | status | first finding | where |\n|---|---|---|---|---|---|\n")
	}
	for i, row := range r.rows {
		line := row.markdown()
		if b.Len()+len(line) > summaryBudget {
			fmt.Fprintf(&b, "\n… and %d more work items: see the job log.\n", len(r.rows)-i)
			break
		}
		b.WriteString(line)
	}
	_, err := io.WriteString(w, b.String()+"\n")
	return err
}

func (row summaryRow) markdown() string {
	mark := "✅"
	switch {
	case row.fails:
		mark = "❌"
	case !row.ok:
		mark = "⏳"
	}
	where := ""
	if row.where != "" {
		where = code(row.where)
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s |\n", mark, code(row.item), code(row.node), cell(row.status), cell(row.finding), where)
}

// cell makes text safe inside a markdown table cell: one line, no column
// break, no HTML tag.
var cellEscaper = strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ", "<", "&lt;")

func cell(s string) string { return cellEscaper.Replace(s) }

// code renders s as a code span, or as a plain cell when s holds a backtick.
func code(s string) string {
	if s == "" {
		return ""
	}
	if strings.Contains(s, "`") {
		return cell(s)
	}
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}
