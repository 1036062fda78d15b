package handoff

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Render writes the record as its record comment followed by any
// continuation parts, each at most MaxCommentChars characters. It refuses a
// record Parse would reject, with the same *Error, and a carried body whose
// hash differs from the record's.
func Render(r Record) ([]string, error) {
	return RenderWithLimit(r, MaxCommentChars)
}

// RenderWithLimit is Render with a different per-comment limit, in
// characters (for trackers with smaller comments than GitHub's).
func RenderWithLimit(r Record, limit int) ([]string, error) {
	r = normalizeFiles(r)
	if err := Validate(r); err != nil {
		return nil, err
	}
	if r.CarriedBy == CarriedByTicket {
		for _, a := range r.Artifacts {
			if got := HashLF([]byte(r.Files[a.Name])); got != a.SHA256 {
				return nil, rejectf(CodeFileMismatch, 0, "the body of %s hashes to %s but the record says %s; recompute the hash or carry the right file", a.Name, got, a.SHA256)
			}
		}
	}
	parts := 0
	for range maxParts + 2 {
		keys := keyLines(r, parts)
		comments, err := pack(r, keys, limit)
		if err != nil {
			return nil, err
		}
		if len(comments)-1 == parts {
			return comments, nil
		}
		parts = len(comments) - 1
		if parts > maxParts {
			return nil, rejectf(CodeTooLarge, 0, "the carried files need %d continuation parts, more than %d; carry them on a branch instead", parts, maxParts)
		}
	}
	return nil, rejectf(CodeTooLarge, 0, "could not settle the number of continuation parts; carry the files on a branch instead")
}

// normalizeFiles returns r with LF-only bodies and a nil map when empty.
func normalizeFiles(r Record) Record {
	if len(r.Files) == 0 {
		r.Files = nil
		return r
	}
	files := make(map[string]string, len(r.Files))
	for k, v := range r.Files {
		files[k] = string(NormalizeLF([]byte(v)))
	}
	r.Files = files
	return r
}

// keyLines renders the key block's lines in canonical order.
func keyLines(r Record, parts int) []string {
	out := []string{
		keyVersion + ": " + strconv.Itoa(r.Version),
		keyStage + ": " + r.Stage,
		keyEnter + ": " + r.Enter,
		keyCarriedBy + ": " + r.CarriedBy,
	}
	add := func(k, v string) {
		if v != "" {
			out = append(out, k+": "+v)
		}
	}
	add(keyBranch, r.Branch)
	if r.PullRequest > 0 {
		add(keyPullRequest, strconv.Itoa(r.PullRequest))
	}
	add(keySpecArtifact, r.SpecArtifact)
	add(keySource, r.Source)
	add(keyMirror, r.Mirror)
	add(keyApproved, strings.Join(r.ApprovedInChat, ", "))
	add(keyConfirmation, r.Confirmation)
	if parts > 0 {
		add(keyParts, strconv.Itoa(parts))
	}
	out = append(out, keyArtifacts+":")
	for _, a := range r.Artifacts {
		out = append(out, "- "+a.Name+" sha256:"+a.SHA256)
	}
	return out
}

// comment accumulates one comment and its length in characters.
type comment struct {
	b      strings.Builder
	n      int
	blocks int
}

func (c *comment) write(s string) {
	c.b.WriteString(s)
	c.n += utf8.RuneCountInString(s)
}

// pack lays out the record comment and as many parts as the bodies need.
func pack(r Record, keys []string, limit int) ([]string, error) {
	var head strings.Builder
	head.WriteString(RecordMarker + "\n" + KeyBlockOpen + "\n")
	for _, l := range keys {
		head.WriteString(l + "\n")
	}
	head.WriteString(KeyBlockClose + "\n")
	cur := &comment{}
	cur.write(head.String())
	if cur.n > limit {
		return nil, rejectf(CodeTooLarge, 0, "the record's key block is %d characters, over the %d limit; shorten source or confirmation", cur.n, limit)
	}
	id := recordID(keys)
	done := []string{}
	newPart := func() error {
		done = append(done, cur.b.String())
		cur = &comment{}
		cur.write(PartMarker(id, len(done)) + "\n")
		if cur.n >= limit {
			return rejectf(CodeTooLarge, 0, "the limit %d cannot hold a continuation part", limit)
		}
		return nil
	}
	if r.CarriedBy != CarriedByTicket {
		return []string{cur.b.String()}, nil
	}
	for _, a := range r.Artifacts {
		body, continued := r.Files[a.Name], false
		fence := fenceFor(body)
		for {
			fresh := cur.blocks == 0 && len(done) > 0
			chunk, rest, ok := fitChunk(body, a.Name, continued, fence, limit-cur.n, fresh)
			if !ok {
				if fresh {
					return nil, rejectf(CodeTooLarge, 0, "the limit %d cannot hold a block of %s", limit, a.Name)
				}
				if err := newPart(); err != nil {
					return nil, err
				}
				continue
			}
			cur.write(renderBlock(a.Name, continued, fence, chunk))
			cur.blocks++
			if rest == "" {
				break
			}
			body, continued = rest, true
			if err := newPart(); err != nil {
				return nil, err
			}
		}
	}
	return append(done, cur.b.String()), nil
}

// fitChunk returns the longest leading chunk of body that fits in avail
// characters as one block: the whole body, else a prefix ending at a line
// break, else (when splitLine) a prefix cut inside a line.
func fitChunk(body, name string, continued bool, fence string, avail int, splitLine bool) (string, string, bool) {
	if blockLen(name, continued, fence, body) <= avail {
		return body, "", true
	}
	over := blockLen(name, continued, fence, "\n") - 1 // overhead of an eol block
	best := -1
	n := 0
	for i, c := range body {
		n++
		if c == '\n' && over+n <= avail {
			best = i + 1
		}
		if over+n > avail {
			break
		}
	}
	if best > 0 {
		return body[:best], body[best:], true
	}
	if !splitLine {
		return "", body, false
	}
	room := avail - blockLen(name, continued, fence, "x") + 1 // characters for a noeol chunk
	if room <= 0 {
		return "", body, false
	}
	k := 0
	for i := range body {
		if k == room {
			return body[:i], body[i:], true
		}
		k++
	}
	return "", body, false
}

// renderBlock writes one <details> block, preceded by a blank line.
func renderBlock(name string, continued bool, fence, chunk string) string {
	summary := name
	if continued {
		summary += continuedSuffix
	}
	var b strings.Builder
	b.WriteString("\n<details><summary>" + summary + "</summary>\n\n")
	b.WriteString(fence + fileFenceInfo)
	if !strings.HasSuffix(chunk, "\n") {
		b.WriteString(" " + noEOL)
	}
	b.WriteString("\n")
	b.WriteString(chunk)
	if chunk != "" && !strings.HasSuffix(chunk, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence + "\n\n" + detailsClose + "\n")
	return b.String()
}

// blockLen is the length in characters of renderBlock's output.
func blockLen(name string, continued bool, fence, chunk string) int {
	return utf8.RuneCountInString(renderBlock(name, continued, fence, chunk))
}
