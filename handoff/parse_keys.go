package handoff

import (
	"strconv"
	"strings"
)

// parseKeys reads the key block's lines; first is the 1-based line number
// of keyLines[0] in the comment.
func parseKeys(keyLines []string, first int) (Record, int, error) {
	if err := checkVersionFirst(keyLines, first); err != nil {
		return Record{}, 0, err
	}
	rec := Record{Version: Version}
	parts := 0
	seen := map[string]bool{}
	inArtifacts := false
	for n, line := range keyLines {
		ln := first + n
		if item, ok := strings.CutPrefix(line, "- "); ok {
			if !inArtifacts {
				return Record{}, 0, rejectf(CodeMalformedLine, ln, "a list item outside artifacts; list items belong directly under artifacts:")
			}
			a, err := parseArtifactItem(item, ln)
			if err != nil {
				return Record{}, 0, err
			}
			rec.Artifacts = append(rec.Artifacts, a)
			continue
		}
		inArtifacts = false
		m := keyLineRE.FindStringSubmatch(line)
		if m == nil {
			return Record{}, 0, rejectf(CodeMalformedLine, ln, "%q is not a line of the form key: value", clip(line))
		}
		key, value := m[1], m[2]
		if !knownKeys[key] {
			return Record{}, 0, rejectf(CodeUnknownKey, ln, "unknown key %q; this reader knows %s", key, knownKeyList())
		}
		if seen[key] {
			return Record{}, 0, rejectf(CodeDuplicateKey, ln, "key %s appears twice; give it once", key)
		}
		seen[key] = true
		if key == keyArtifacts {
			if value != "" {
				return Record{}, 0, rejectf(CodeBadArtifactLine, ln, "artifacts takes no value on its line; list each file below it as - name sha256:<hex>")
			}
			inArtifacts = true
			rec.Artifacts = []Artifact{}
			continue
		}
		if value == "" {
			return Record{}, 0, rejectf(CodeEmptyValue, ln, "key %s has no value; give one or omit the key", key)
		}
		if strings.TrimSpace(value) != value {
			return Record{}, 0, rejectf(CodeBadValue, ln, "the value of %s starts with whitespace; write key: value with one space", key)
		}
		if err := setKey(&rec, &parts, key, value, ln); err != nil {
			return Record{}, 0, err
		}
	}
	for _, k := range []string{keyStage, keyEnter, keyCarriedBy, keyArtifacts} {
		if !seen[k] {
			return Record{}, 0, rejectf(CodeMissingKey, 0, "the record has no %s; add the line %s:", k, k)
		}
	}
	return rec, parts, nil
}

// checkVersionFirst reads the version before anything else, so a record of
// a later version is rejected as such rather than for its new keys.
func checkVersionFirst(keyLines []string, first int) error {
	found := 0
	for n, line := range keyLines {
		m := keyLineRE.FindStringSubmatch(line)
		if m == nil || m[1] != keyVersion {
			continue
		}
		found++
		if found > 1 {
			return rejectf(CodeDuplicateKey, first+n, "key version appears twice; give it once")
		}
		if m[2] != strconv.Itoa(Version) {
			return rejectf(CodeUnknownVersion, first+n, "version %q is not understood; this reader reads version %d only", clip(m[2]), Version)
		}
	}
	if found == 0 {
		return rejectf(CodeMissingKey, 0, "the record has no version; add the line version: %d", Version)
	}
	return nil
}

func setKey(rec *Record, parts *int, key, value string, ln int) error {
	switch key {
	case keyVersion:
		// checked by checkVersionFirst
	case keyStage:
		rec.Stage = value
	case keyEnter:
		rec.Enter = value
	case keyCarriedBy:
		rec.CarriedBy = value
	case keyBranch:
		rec.Branch = value
	case keySpecArtifact:
		rec.SpecArtifact = value
	case keySource:
		rec.Source = value
	case keyMirror:
		rec.Mirror = value
	case keyConfirmation:
		rec.Confirmation = value
	case keyPullRequest:
		if !decimalRE().MatchString(value) {
			return rejectf(CodeBadPullRequest, ln, "pull-request %q is not a positive number; give the PR number or omit it", clip(value))
		}
		rec.PullRequest, _ = strconv.Atoi(value)
	case keyParts:
		n, err := strconv.Atoi(value)
		if !decimalRE().MatchString(value) || err != nil || n > maxParts {
			return rejectf(CodeBadParts, ln, "parts %q is not a number from 1 to %d; omit parts when there are none", clip(value), maxParts)
		}
		*parts = n
	case keyApproved:
		for _, item := range strings.Split(value, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				return rejectf(CodeBadApproved, ln, "approved-in-chat has an empty entry; list names separated by \", \"")
			}
			rec.ApprovedInChat = append(rec.ApprovedInChat, item)
		}
	}
	return nil
}

func parseArtifactItem(item string, ln int) (Artifact, error) {
	fields := strings.Split(item, " ")
	if len(fields) != 2 {
		return Artifact{}, rejectf(CodeBadArtifactLine, ln, "artifact line %q is not - name sha256:<64 hex>", clip(item))
	}
	name, hash := fields[0], fields[1]
	if !IsArtifactName(name) {
		return Artifact{}, rejectf(CodeUnknownArtifact, ln, "artifact %q is not one of %s; a record names files, never paths", clip(name), strings.Join(chain, ", "))
	}
	hex, ok := strings.CutPrefix(hash, "sha256:")
	if !ok || !isHexHash(hex) {
		return Artifact{}, rejectf(CodeBadHash, ln, "artifact %s: %q is not sha256:<64 lowercase hex>; hash the file's bytes with LF line endings", name, clip(hash))
	}
	return Artifact{Name: name, SHA256: hex}, nil
}

func knownKeyList() string {
	return strings.Join([]string{keyVersion, keyStage, keyEnter, keyCarriedBy, keyBranch, keyPullRequest, keySpecArtifact, keySource, keyMirror, keyApproved, keyConfirmation, keyParts, keyArtifacts}, ", ")
}
