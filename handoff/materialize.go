package handoff

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrHashMismatch marks a carried file whose bytes do not hash to the
// record's sha256.
var ErrHashMismatch = errors.New("sha256 mismatch")

// Check is the verdict on one carried file.
type Check struct {
	Name string
	// Data is the file's bytes with LF line endings; nil when Err is set.
	Data []byte
	// Err is nil when the file verified; otherwise it wraps fs.ErrNotExist
	// (missing), ErrHashMismatch (tampered) or a read error.
	Err error
}

// VerifyError lists the files that failed verification.
type VerifyError struct {
	Source string
	Failed []Check
}

func (e *VerifyError) Error() string {
	parts := make([]string, 0, len(e.Failed))
	for _, c := range e.Failed {
		parts = append(parts, c.Err.Error())
	}
	return fmt.Sprintf("handoff import from %s refused, nothing written: %s", e.Source, strings.Join(parts, "; "))
}

// Unwrap returns every failure so errors.Is finds ErrHashMismatch and
// fs.ErrNotExist.
func (e *VerifyError) Unwrap() []error {
	out := make([]error, 0, len(e.Failed))
	for _, c := range e.Failed {
		out = append(out, c.Err)
	}
	return out
}

// Verify reads every artifact the record names from src, in record (chain)
// order, and checks its bytes with LF line endings against the record's
// sha256.
func Verify(rec Record, src Source) []Check {
	out := make([]Check, 0, len(rec.Artifacts))
	for _, a := range rec.Artifacts {
		c := Check{Name: a.Name}
		data, err := src.Read(a.Name)
		switch {
		case err != nil:
			c.Err = fmt.Errorf("%s: %w", a.Name, err)
		case HashLF(data) != a.SHA256:
			c.Err = fmt.Errorf("%s: %w (file %s, record %s)", a.Name, ErrHashMismatch, HashLF(data), a.SHA256)
		default:
			c.Data = NormalizeLF(data)
		}
		out = append(out, c)
	}
	return out
}

// Materialize verifies every artifact the record names and only then writes
// them into dst (docs/specs/<id>/), with LF line endings. If any file is
// missing or mismatched it writes nothing and returns a *VerifyError. It
// returns the names of the files now in dst with verified bytes, in chain
// order (files already holding exactly those bytes are not rewritten but
// are listed). Writes go through os.Root, so nothing lands outside dst.
func Materialize(dst string, rec Record, src Source) ([]string, error) {
	if err := validateRecord(rec); err != nil {
		return nil, fmt.Errorf("handoff import: %w", err)
	}
	checks := Verify(rec, src)
	var failed []Check
	for _, c := range checks {
		if c.Err != nil {
			failed = append(failed, c)
		}
	}
	if len(failed) > 0 {
		return nil, &VerifyError{Source: src.String(), Failed: failed}
	}
	return writeVerified(dst, checks)
}

// MaterializePrefix writes the verified files that precede the first
// failure in chain order and reports every failed check. The import hook
// demotes to the producer of the first failure, so the files before it are
// exactly the ones the walk keeps; nothing unverified is ever written.
func MaterializePrefix(dst string, rec Record, src Source) ([]string, []Check, error) {
	if err := validateRecord(rec); err != nil {
		return nil, nil, fmt.Errorf("handoff import: %w", err)
	}
	checks := Verify(rec, src)
	var failed []Check
	prefix := len(checks)
	for i, c := range checks {
		if c.Err != nil {
			failed = append(failed, c)
			prefix = min(prefix, i)
		}
	}
	written, err := writeVerified(dst, checks[:prefix])
	return written, failed, err
}

// writeVerified writes verified files into dst: every temporary file first,
// then the renames, so a failed write leaves no partial artifact behind.
func writeVerified(dst string, checks []Check) ([]string, error) {
	if len(checks) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dst, err)
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dst, err)
	}
	defer root.Close()
	var pending []Check
	for _, c := range checks {
		if c.Err != nil || !IsArtifactName(c.Name) || !filepath.IsLocal(c.Name) {
			return nil, fmt.Errorf("write %q: not a verified artifact", c.Name)
		}
		if old, err := root.ReadFile(c.Name); err == nil && bytes.Equal(old, c.Data) {
			continue
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read existing %s in %s: %w", c.Name, dst, err)
		}
		pending = append(pending, c)
	}
	var temps []string
	cleanup := func() {
		for _, t := range temps {
			_ = root.Remove(t)
		}
	}
	for _, c := range pending {
		tmp := "." + c.Name + ".handoff-tmp"
		if err := root.WriteFile(tmp, c.Data, 0o644); err != nil {
			cleanup()
			return nil, fmt.Errorf("write %s in %s: %w", c.Name, dst, err)
		}
		temps = append(temps, tmp)
	}
	for i, c := range pending {
		if err := root.Rename(temps[i], c.Name); err != nil {
			cleanup()
			return nil, fmt.Errorf("place %s in %s: %w", c.Name, dst, err)
		}
	}
	names := make([]string, 0, len(checks))
	for _, c := range checks {
		names = append(names, c.Name)
	}
	return names, nil
}
