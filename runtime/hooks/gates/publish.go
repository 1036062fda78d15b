package gates

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

const HookPublishArtifact = "publish-artifact"

// repoConfigFile is the repository config: it marks a repository that
// adopted the loop, whose artifacts are reviewable in the repository itself.
const repoConfigFile = ".the-loop/harness-config.yaml"

// gatePublishLimit keeps a published artifact under the ticket system's
// comment size limit.
const gatePublishLimit = 60000

// PublishArtifact posts an artifact (param artifact, "a.md|b.md"
// alternatives) on the thread when the repository has not adopted the loop:
// there the spec folder is working state, excluded from git, and the thread
// is the only review surface. In an adopted repository it skips.
func PublishArtifact(hc *runtime.HookContext) (runtime.Result, error) {
	if hc.ReadOnly {
		return runtime.Skipped(HookPublishArtifact, gateReadOnly), nil
	}
	if _, err := os.Stat(filepath.Join(hc.Repo, filepath.FromSlash(repoConfigFile))); err == nil {
		return runtime.Skipped(HookPublishArtifact, "the repository carries the artifact; it is reviewable there"), nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return runtime.Result{}, fmt.Errorf("look for %s: %w", repoConfigFile, err)
	}
	entry := hc.Param("artifact")
	if len(runtime.Alternatives(entry)) == 0 {
		return runtime.Skipped(HookPublishArtifact, "no artifact named"), nil
	}
	name, text, err := gateReadFirst(hc, entry)
	switch {
	case err != nil:
		return gateDegrade(HookPublishArtifact, err.Error(), "posted", false), nil
	case name == "":
		return runtime.Skipped(HookPublishArtifact, fmt.Sprintf("no %s for this work item", gateNames(entry))), nil
	}
	p, why := gateTracker(hc)
	if p == nil {
		return gateDegrade(HookPublishArtifact, why, "posted", false), nil
	}
	body := fmt.Sprintf("🤖 _the-loop_ — **`%s`** for `%s`.\n\nThis repository does not carry the loop's files, so the artifact is posted here for review: reply on this thread.\n\n---\n\n%s", name, hc.WorkItem.ID, gateTruncate(text, gatePublishLimit))
	c, err := gatePost(hc, body)
	if err != nil {
		return gateDegrade(HookPublishArtifact, err.Error(), "posted", false), nil
	}
	return runtime.OK(HookPublishArtifact, gateData("posted", true, "artifact", name, "commentUrl", c.URL)), nil
}

// gateReadFirst reads the first present alternative of entry in the spec
// folder; name is "" when none exists.
func gateReadFirst(hc *runtime.HookContext, entry string) (name, text string, err error) {
	d, err := specdir.Open(hc)
	if err != nil {
		return "", "", err
	}
	defer d.Close()
	for _, s := range specdir.ParseSlots([]string{entry}) {
		present := d.PresentOf(s)
		if len(present) == 0 {
			continue
		}
		n := present[0] // the first present alternative of the slot
		t, err := d.Read(n)
		if err != nil {
			return n, "", fmt.Errorf("read %s: %w", d.Rel(n), err)
		}
		return n, t, nil
	}
	return "", "", nil
}

// gateTruncate cuts s to at most limit bytes on a rune boundary, saying so.
func gateTruncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n\n_(cut here: the artifact is longer than one comment can hold)_\n"
}
