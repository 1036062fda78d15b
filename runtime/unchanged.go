package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// inputsOf fingerprints what an evaluation of id reads, so an evaluation
// with nothing new can be told apart: the hash of every artifact in the spec
// folder (path and content; the portable record and temporary files
// excluded), the recorded decisions (gate decisions, declared skips, opt-ins,
// forces), and the comments the evaluation sees (id, author, body, times).
// It returns "" when the folder cannot be read: an unknown input never
// counts as unchanged.
func (r *Runtime) inputsOf(id string, st *State, ev *Event) string {
	h := sha256.New()
	if err := hashArtifacts(h, r.SpecDir(id)); err != nil {
		return ""
	}
	decisions, err := json.Marshal(struct {
		D map[string]*Decision `json:"d"`
		S map[string]*Decision `json:"s"`
		O map[string]*Decision `json:"o"`
		F []*Decision          `json:"f"`
	}{st.Decisions, st.Skips, st.OptIns, st.Forced})
	if err != nil {
		return ""
	}
	fmt.Fprintf(h, "decisions %d %s\n", len(decisions), decisions)
	if ev != nil {
		for _, c := range ev.Comments {
			fmt.Fprintf(h, "comment %d %q %d %s %s %s\n", c.ID, c.Author, len(c.Body), c.Body,
				c.CreatedAt.UTC().Format("2006-01-02T15:04:05.999999999Z"), c.UpdatedAt.UTC().Format("2006-01-02T15:04:05.999999999Z"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hashArtifacts writes every regular file under dir, in path order, into
// h. An absent folder hashes as empty.
func hashArtifacts(h io.Writer, dir string) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && os.IsNotExist(err) {
				return fs.SkipAll
			}
			return err
		}
		name := d.Name()
		if !d.Type().IsRegular() || name == StateFile || name == LegacyStateFile || strings.Contains(name, ".tmp-") {
			return nil
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		fmt.Fprintf(h, "file %s %x\n", filepath.ToSlash(rel), sum)
	}
	return nil
}
