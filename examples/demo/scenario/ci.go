package scenario

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/lazyre"
)

// CIScript is the repository's CI job, which the demo's CI runs on every
// head pushed to the remote.
const CIScript = "scripts/ci.sh"

// errorLine is a GitHub Actions workflow command that annotates a file's
// line: ::error file=F,line=N::message.
var errorLine = lazyre.New(`^::error file=([^,]+),line=(\d+)::(.*)$`)

// ciOnce runs the CI job of commit sha the first time anyone asks the fake
// GitHub for its checks (OnChecksRead); a second caller waits for the
// first. It plays a CI that builds every head pushed and has finished by
// the time its result is read, building only the commits that are read
// (the heads of pull requests, not every state record the loop pushes).
func (l *Loop) ciOnce(sha string) {
	once, _ := l.built.LoadOrStore(sha, new(sync.Once))
	once.(*sync.Once).Do(func() { l.runCI(context.Background(), sha) })
}

// runCI plays GitHub Actions for head sha of the remote: it runs CIScript
// on that commit's files and reports the job as the check run "build" —
// its conclusion, its output, one annotation per ::error line, and its log
// in GitHub's shape (a timestamp before every line, the error line, the
// job's clean-up after it).
func (l *Loop) runCI(ctx context.Context, sha string) {
	url := "https://ci.example.invalid/build/" + sha[:7]
	out, code, err := l.ciJob(ctx, sha)
	if err != nil {
		l.GitHub.AddCheckRun(Repo, sha, "build", "completed", "failure", url, providertest.CheckRunDetail{App: providertest.ActionsApp,
			Title: "the job could not run", Summary: err.Error()})
		return
	}
	d := providertest.CheckRunDetail{App: providertest.ActionsApp}
	stamp := time.Now().UTC().Format("2006-01-02T15:04:05.0000000Z") + " "
	var log strings.Builder
	log.WriteString(stamp + "##[group]Run sh " + CIScript + "\n")
	failed := 0
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if m := errorLine().FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			d.Annotations = append(d.Annotations, integrations.Annotation{Path: m[1], StartLine: n, EndLine: n, Level: "failure", Message: m[3]})
			log.WriteString(stamp + "##[error]" + m[3] + "\n")
			failed++
			continue
		}
		log.WriteString(stamp + line + "\n")
	}
	log.WriteString(stamp + "##[endgroup]\n")
	conclusion := "success"
	d.Title, d.Summary = CIScript+" passed", "every check of "+CIScript+" passed"
	if code != 0 {
		conclusion = "failure"
		d.Title, d.Summary = fmt.Sprintf("%s failed", CIScript), fmt.Sprintf("%d check(s) of %s failed", max(failed, 1), CIScript)
		log.WriteString(stamp + fmt.Sprintf("##[error]Process completed with exit code %d.\n", code))
	}
	log.WriteString(stamp + "Post job cleanup.\n" + stamp + "Cleaning up orphan processes\n")
	d.Log = log.String()
	l.GitHub.AddCheckRun(Repo, sha, "build", "completed", conclusion, url, d)
}

// ciJob runs CIScript on the files of commit sha, in a directory of their
// own, and returns what it printed and its exit code. A commit without the
// script passes.
func (l *Loop) ciJob(ctx context.Context, sha string) (string, int, error) {
	dir, err := os.MkdirTemp(l.Dir, "ci-")
	if err != nil {
		return "", 0, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	archive := exec.CommandContext(ctx, "git", "--git-dir", l.Remote, "archive", "--format=tar", sha)
	archive.Env = l.env
	tarball, err := archive.Output()
	if err != nil {
		return "", 0, fmt.Errorf("git archive %s: %w", sha[:7], err)
	}
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	untar.Stdin = bytes.NewReader(tarball)
	if out, err := untar.CombinedOutput(); err != nil {
		return "", 0, fmt.Errorf("tar: %v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, CIScript)); err != nil {
		return "ok    no " + CIScript + " at this commit\n", 0, nil
	}
	job := exec.CommandContext(ctx, "sh", CIScript)
	job.Dir, job.Env = dir, l.env
	out, err := job.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode(), nil
	}
	return string(out), 0, err
}
