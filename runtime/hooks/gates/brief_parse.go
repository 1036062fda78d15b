package gates

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/integrations"
)

// Brief is what a reviewer asks the loop to review: questions to answer,
// angles to examine, validations to run, and — for a review spanning a work
// item's pull requests — which ones, as owner/repo#n refs.
type Brief struct {
	Questions    []string `json:"questions"`
	Angles       []string `json:"angles"`
	Validations  []string `json:"validations"`
	PullRequests []string `json:"pullRequests"`
	// Unrecognized counts pull-request entries that name no pull request.
	Unrecognized int `json:"unrecognized,omitempty"`
}

var (
	gateQualifiedPR = regexp.MustCompile(`^([A-Za-z0-9._-]+)/([A-Za-z0-9._-]+)#([0-9]+)$`)
	gateBarePR      = regexp.MustCompile(`^#([0-9]+)$`)
)

// ParseBrief reads a review brief from one comment: lines "Questions:",
// "Angles:", "Validations:" and "Pull requests:" (any case, decoration
// tolerated) each followed by a bullet list. At least one of the first
// three must hold a bullet. Pull requests are normalised against origin (the
// thread's own repository) to owner/repo#n: "#12", "owner/repo#12" and a
// pull-request URL are accepted; anything else is counted as unrecognized.
func ParseBrief(body string, origin integrations.Ref) (Brief, bool) {
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	var b Brief
	for i, line := range lines {
		label, rest, colon := gateLabel(line)
		if !colon || strings.TrimSpace(rest) != "" {
			continue
		}
		items := gateBullets(lines, i+1)
		switch label {
		case "questions":
			b.Questions = append(b.Questions, items...)
		case "angles":
			b.Angles = append(b.Angles, items...)
		case "validations":
			b.Validations = append(b.Validations, items...)
		case "pull requests":
			for _, it := range items {
				if ref, ok := NormalizePullRequest(it, origin); ok {
					b.PullRequests = append(b.PullRequests, ref)
				} else {
					b.Unrecognized++
				}
			}
		}
	}
	return b, len(b.Questions)+len(b.Angles)+len(b.Validations) > 0
}

// NormalizePullRequest turns "#12" (against origin), "owner/repo#12" or a
// pull-request URL into owner/repo#12.
func NormalizePullRequest(s string, origin integrations.Ref) (string, bool) {
	s = strings.Trim(strings.TrimSpace(s), "`<>")
	if m := gateQualifiedPR.FindStringSubmatch(s); m != nil {
		return gatePRRef(m[1], m[2], m[3])
	}
	if m := gateBarePR.FindStringSubmatch(s); m != nil {
		if origin.System != "github" || origin.Owner == "" || origin.Repo == "" {
			return "", false
		}
		return gatePRRef(origin.Owner, origin.Repo, m[1])
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return "", false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 4 || parts[2] != "pull" {
		return "", false
	}
	return gatePRRef(parts[0], parts[1], parts[3])
}

func gatePRRef(owner, repo, num string) (string, bool) {
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || !gateQualifiedPR.MatchString(owner+"/"+repo+"#1") {
		return "", false
	}
	return fmt.Sprintf("%s/%s#%d", owner, repo, n), true
}
