package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/service"
)

const checkUsage = "check [<id>] [--repo DIR] [--all] [--recompute] [--trusted-keys-from REF] [--repository [HOST/]OWNER/REPO] [--format table|json|github] [--fail-on unmet|block] [--db FILE]"

// checkOptions are the flags of `the-loop check`.
type checkOptions struct {
	service.CheckRequest
	Format string
	FailOn string
	DB     string
}

func checkCmd() *Command {
	return &Command{Name: "check", Usage: checkUsage,
		Summary: "report where work items stand (read-only; the CI and stop-hook verb)",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &checkOptions{}
			fs := f.flagSet("check", checkUsage)
			fs.StringVar(&opts.Repo, "repo", ".", "repository root")
			fs.BoolVar(&opts.All, "all", false, "check every work item under the spec directory")
			fs.BoolVar(&opts.Recompute, "recompute", false, "derive every verdict from the artifacts and verified decisions alone")
			fs.StringVar(&opts.TrustedKeysFrom, "trusted-keys-from", "", "verify decisions with the keys .the-loop/signing.pub holds at this git ref (the base branch), plus keys a rotation signed by one of them vouches for")
			fs.StringVar(&opts.Repository, "repository", "", "the repository the work items' GitHub tickets live in, [HOST/]OWNER/REPO (default: the repository config's ticketing.github); a decision bound to another is ignored")
			fs.StringVar(&opts.Format, "format", "table", "output format: table, json, or github (workflow-command annotations and a job summary)")
			fs.StringVar(&opts.FailOn, "fail-on", "unmet", "exit 1 when a work item is unmet, or only when a node blocks (block)")
			fs.StringVar(&opts.DB, "db", "", "state database (default $THE_LOOP_DB, else ~/.local/state/the-loop/the-loop.db)")
			pos, err := f.parseFlags(fs, args)
			if err != nil {
				return err
			}
			switch len(pos) {
			case 0:
			case 1:
				opts.WorkItem = pos[0]
			default:
				return usageErrorf("check takes at most one work item id; got %s", strings.Join(pos, " "))
			}
			if err := oneOf("format", opts.Format, "table", "json", "github"); err != nil {
				return err
			}
			if err := oneOf("fail-on", opts.FailOn, "unmet", "block"); err != nil {
				return err
			}
			if opts.WorkItem == "" && !opts.All {
				return usageErrorf("give a work item id, or --all")
			}
			opts.Repo = f.path(opts.Repo)
			return runCheck(ctx, f, opts)
		},
	}
}

// runCheck streams the reports: each is rendered on the worker that
// evaluated it and printed in work-item order, so memory stays flat.
func runCheck(ctx context.Context, f *Factory, opts *checkOptions) error {
	tuneGCForBatch(f)
	var gh *githubOutput
	if opts.Format == "github" {
		gh = newGitHubOutput(f, opts)
	}
	svc, err := f.Service(ServiceOptions{DB: opts.DB})
	if err != nil {
		if gh != nil {
			gh.finish(f.Stdout, err)
		}
		return err
	}
	defer svc.Close()
	buf := bufio.NewWriterSize(f.Stdout, 64<<10)
	defer buf.Flush()
	p := &checkPrinter{w: buf, opts: opts, gh: gh}
	req := opts.CheckRequest
	if opts.Format == "json" {
		req.Render = func(rep runtime.Report) ([]byte, error) { return encodeReport(rep, opts.All) }
	}
	req.Emit = p.item
	req.BeforeEvaluating = batchProcessors(f)
	res, err := svc.Check(ctx, req)
	for _, w := range res.Warnings {
		if gh != nil {
			gh.warn(buf, w)
		} else {
			fmt.Fprintln(f.Stderr, w)
		}
	}
	if err != nil {
		if gh != nil {
			gh.finish(buf, err)
		}
		return err
	}
	p.end()
	if p.failing > 0 {
		return unmet("")
	}
	return nil
}

// checkPrinter prints check's reports as they come, in the chosen format,
// and counts them.
type checkPrinter struct {
	w                         *bufio.Writer
	opts                      *checkOptions
	gh                        *githubOutput
	failing, satisfied, total int
	begun                     bool
}

// begin starts the --all JSON array, once: at the first report, or at the
// end of a check that succeeded without one, so a refused check prints no
// half document.
func (p *checkPrinter) begin() {
	if p.opts.Format == "json" && p.opts.All && !p.begun {
		p.w.WriteString("[")
		p.begun = true
	}
}

func (p *checkPrinter) item(rep runtime.Report, g *runtime.Graph, out []byte) error {
	if rep.Fails(g, p.opts.FailOn) {
		p.failing++
	} else {
		p.satisfied++
	}
	switch p.opts.Format {
	case "table":
		renderCheckItem(p.w, rep, g, p.opts)
	case "github":
		p.gh.item(p.w, rep, g)
	default:
		if p.opts.All {
			p.begin()
			if p.total > 0 {
				p.w.WriteString(",")
			}
			p.w.WriteString("\n")
		}
		p.w.Write(out)
	}
	p.total++
	return nil
}

func (p *checkPrinter) end() {
	switch {
	case p.opts.Format == "json" && p.opts.All:
		p.begin()
		if p.total > 0 {
			p.w.WriteString("\n")
		}
		p.w.WriteString("]\n")
	case p.opts.Format == "table" && p.opts.All:
		fmt.Fprintf(p.w, "\n%d/%d work items satisfied\n", p.satisfied, p.total)
	case p.gh != nil:
		p.gh.finish(p.w, nil)
	}
}

// renderCheckItem prints one item's block of the people's format.
func renderCheckItem(w io.Writer, r runtime.Report, g *runtime.Graph, opts *checkOptions) {
	head := "ok"
	switch {
	case len(r.Drift) > 0:
		head = "DRIFT"
	case !r.OK:
		head = "UNMET"
	}
	fmt.Fprintf(w, "%s: %s (at %s)\n", r.WorkItem, head, r.CurrentNode)
	for _, d := range r.Drift {
		fmt.Fprintf(w, "  DRIFT  %s\n", d)
	}
	if d := r.Dependencies; d != nil && d.Holds() && (!opts.All || !r.OK) {
		fmt.Fprintf(w, "  DEPS   %s (%s)\n", d.Message(), service.DependencyAge(d))
	}
	reached, ahead := r.Reached(g)
	var unmet []runtime.NodeReport
	for _, nr := range reached {
		if !runtime.Satisfied(nr.Status) {
			unmet = append(unmet, nr)
		}
	}
	if len(unmet) > 0 && (!opts.All || !r.OK) {
		if opts.All {
			unmet = unmet[:1]
		}
		for _, nr := range unmet {
			fmt.Fprintf(w, "  %-6s %s\n", strings.ToUpper(nr.Status), nr.Node)
			for _, m := range nr.Messages {
				fmt.Fprintf(w, "         · %s\n", m)
			}
		}
	}
	if !opts.All {
		n := 0
		for _, nr := range ahead {
			if !runtime.Satisfied(nr.Status) {
				n++
			}
		}
		if n > 0 {
			fmt.Fprintf(w, "  ····   %d node(s) not reached yet\n", n)
		}
	}
}
