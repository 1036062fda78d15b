package service

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
)

// loopRecords are the files of item id's spec folder that the loop itself
// wrote during a claim — the output of the repository's own commands, which
// verify-tests writes as evidence — relative to root, when each still holds
// what the loop's signed receipt says it wrote. The poller commits them with
// what the entry chain after the claim writes: the claim ran in a session's
// server, after the session had committed its own work. A file changed
// since is the session's, never published as the loop's.
func loopRecords(root string, sess *session, id string) []string {
	view := sess.rt.Trusted(sess.state, false).State
	specDir := sess.repo.SpecDir(id)
	var out []string
	for node := range view.TestRuns {
		run, ok := view.TestRunAt(node)
		if !ok || run.Evidence == "" || run.EvidenceSHA256 == "" || !filepath.IsLocal(filepath.FromSlash(run.Evidence)) {
			continue
		}
		abs := filepath.Join(specDir, filepath.FromSlash(run.Evidence))
		b, err := os.ReadFile(abs)
		if err != nil {
			continue
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != run.EvidenceSHA256 {
			continue
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		out = append(out, filepath.ToSlash(rel))
	}
	sort.Strings(out)
	return out
}
