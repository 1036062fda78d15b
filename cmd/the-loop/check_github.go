package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/service"
)

// EnvStepSummary is the file GitHub Actions renders as the job summary.
const EnvStepSummary = "GITHUB_STEP_SUMMARY"

// githubOutput is check's --format github: workflow-command annotations on
// stdout and, when $GITHUB_STEP_SUMMARY is set, a markdown job summary
// appended to that file.
type githubOutput struct {
	report      service.GitHubReport
	summaryPath string
}

func newGitHubOutput(f *Factory, opts *checkOptions) *githubOutput {
	o := &githubOutput{report: service.GitHubReport{FailOn: opts.FailOn}, summaryPath: f.Getenv(EnvStepSummary)}
	if repo, err := repoconfig.Open(opts.Repo); err == nil {
		o.report.Root = repo.Root
	}
	if wd, err := os.Getwd(); err == nil {
		if real, err := filepath.EvalSymlinks(wd); err == nil {
			wd = real
		}
		o.report.Workdir = wd
	}
	return o
}

func (o *githubOutput) item(w io.Writer, rep runtime.Report, g *runtime.Graph) {
	_ = o.report.Item(w, rep, g)
}

func (o *githubOutput) warn(w io.Writer, msg string) { _ = o.report.Warn(w, msg) }

// finish prints the tally, or the error that stopped the run, and writes
// the job summary. A summary that cannot be written is a warning: it never
// changes the check's verdict.
func (o *githubOutput) finish(w io.Writer, runErr error) {
	if runErr != nil {
		_ = o.report.Fail(w, runErr.Error())
	} else {
		fmt.Fprintln(w, o.report.Tally())
	}
	if o.summaryPath == "" {
		return
	}
	f, err := os.OpenFile(o.summaryPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		if runErr != nil {
			_, err = fmt.Fprintf(f, "### %s\n\nThe check could not run: %s\n\n", service.CheckTitle, runErr)
		} else {
			err = o.report.Summary(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		o.warn(w, fmt.Sprintf("the job summary could not be written to $%s: %v", EnvStepSummary, err))
	}
}
