package handoff

import (
	"strconv"
	"strings"
)

// maxParts bounds the continuation parts one record may declare.
const maxParts = 100

// Parse reads one handoff record: a record comment, optionally followed by
// its continuation parts in order (each starting at its own marker line, as
// when the comments are joined with newlines). It returns the record, with
// Files holding the carried bodies, or an *Error naming why it is rejected.
// Parse does not compare bodies with their hashes; import does, so a
// tampered file demotes its phase instead of discarding the handoff.
func Parse(body string) (Record, error) {
	p, err := parseWire(body)
	if err != nil {
		return Record{}, err
	}
	return p.rec, nil
}

// ParseComments parses a record comment and its continuation part comments.
func ParseComments(record string, parts []string) (Record, error) {
	return Parse(joinComments(record, parts))
}

func joinComments(record string, parts []string) string {
	all := append([]string{record}, parts...)
	return strings.Join(all, "\n")
}

// parsed is a record together with wire-level facts FindRecord needs.
type parsed struct {
	rec   Record
	id    string
	parts int
}

type block struct {
	name      string
	continued bool
	text      string
	line      int
}

// header is the record comment's key block, read without its bodies.
type header struct {
	rec   Record
	id    string
	parts int
	end   int // index of the line after the key block's closing fence
}

// readHeader finds the marker and reads the key block.
func readHeader(lines []string) (header, error) {
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) {
		return header{}, rejectf(CodeNoRecord, 0, "the comment is empty; a record starts with the line %s", RecordMarker)
	}
	if trimRight(lines[i]) != RecordMarker {
		for j := i + 1; j < len(lines); j++ {
			if trimRight(lines[j]) == RecordMarker {
				return header{}, rejectf(CodeMarkerNotFirst, j+1, "text precedes the record marker; the marker must be the comment's first line")
			}
		}
		if partMarkerRE().MatchString(trimRight(lines[i])) {
			return header{}, rejectf(CodeNoRecord, i+1, "this is a continuation part, not a record; parse it after its record comment")
		}
		return header{}, rejectf(CodeNoRecord, i+1, "no record marker; a record starts with the line %s", RecordMarker)
	}
	i++
	if i >= len(lines) || trimRight(lines[i]) != KeyBlockOpen {
		return header{}, rejectf(CodeNoKeyBlock, i+1, "the marker must be followed by the line %s opening the key block", KeyBlockOpen)
	}
	start := i + 1
	end := -1
	for j := start; j < len(lines); j++ {
		if trimRight(lines[j]) == KeyBlockClose {
			end = j
			break
		}
	}
	if end < 0 {
		return header{}, rejectf(CodeUnterminated, i+1, "the key block is never closed; end it with a line %s", KeyBlockClose)
	}
	keyLines := make([]string, 0, end-start)
	for _, l := range lines[start:end] {
		keyLines = append(keyLines, trimRight(l))
	}
	rec, parts, err := parseKeys(keyLines, start+1)
	if err != nil {
		return header{}, err
	}
	return header{rec: rec, id: recordID(keyLines), parts: parts, end: end + 1}, nil
}

func parseWire(body string) (parsed, error) {
	lines := strings.Split(string(NormalizeLF([]byte(body))), "\n")
	h, err := readHeader(lines)
	if err != nil {
		return parsed{}, err
	}
	blocks, seenParts, err := readBlocks(lines, h)
	if err != nil {
		return parsed{}, err
	}
	rec := h.rec
	files, err := assembleFiles(blocks)
	if err != nil {
		return parsed{}, err
	}
	rec.Files = files
	if err := Validate(rec); err != nil {
		return parsed{}, err
	}
	if h.parts > 0 && rec.CarriedBy != CarriedByTicket {
		return parsed{}, rejectf(CodeBadParts, 0, "parts is %d but carried-by is %s; continuation parts carry file bodies, which only carried-by ticket has", h.parts, rec.CarriedBy)
	}
	if seenParts < h.parts {
		return parsed{}, rejectf(CodeMissingParts, 0, "the record declares %d continuation parts but %d follow; post or pass every part", h.parts, seenParts)
	}
	return parsed{rec: rec, id: h.id, parts: h.parts}, nil
}

// readBlocks reads everything after the key block: file blocks, part
// markers, blank lines and the loop's self-authored trailer.
func readBlocks(lines []string, h header) ([]block, int, error) {
	var blocks []block
	seenParts := 0
	inPart := 0 // blocks in the current part
	for i := h.end; i < len(lines); {
		line := trimRight(lines[i])
		switch {
		case line == "" || isSelfTrailer(line) || isPostedBy(line):
			i++
		case partMarkerRE().MatchString(line):
			m := partMarkerRE().FindStringSubmatch(line)
			idx, _ := strconv.Atoi(m[2])
			if m[1] != h.id {
				return nil, 0, rejectf(CodeBadPart, i+1, "part names record %s but this record is %s; a part belongs to the record it was rendered with", m[1], h.id)
			}
			if seenParts > 0 && inPart == 0 {
				return nil, 0, rejectf(CodeBadPart, i+1, "part %d carries no file block; every part carries at least one", seenParts)
			}
			if idx != seenParts+1 || idx > h.parts {
				return nil, 0, rejectf(CodeBadPart, i+1, "part index %d is out of order (expected %d of %d); pass the parts in order, each once", idx, seenParts+1, h.parts)
			}
			seenParts, inPart = idx, 0
			i++
		case summaryRE().MatchString(line):
			b, next, err := readFileBlock(lines, i)
			if err != nil {
				return nil, 0, err
			}
			blocks = append(blocks, b)
			inPart++
			i = next
		case line == RecordMarker:
			return nil, 0, rejectf(CodeUnexpectedText, i+1, "a second record marker; post one record per comment")
		default:
			return nil, 0, rejectf(CodeUnexpectedText, i+1, "unexpected text outside the key block and file blocks; remove it")
		}
	}
	if seenParts > 0 && inPart == 0 {
		return nil, 0, rejectf(CodeBadPart, 0, "part %d carries no file block; every part carries at least one", seenParts)
	}
	return blocks, seenParts, nil
}

// readFileBlock reads one <details> block starting at lines[i].
func readFileBlock(lines []string, i int) (block, int, error) {
	start := i
	summary := summaryRE().FindStringSubmatch(trimRight(lines[i]))[1]
	b := block{name: summary, line: i + 1}
	if n, ok := strings.CutSuffix(summary, continuedSuffix); ok {
		b.name, b.continued = n, true
	}
	if !IsArtifactName(b.name) {
		return block{}, 0, rejectf(CodeUnknownFile, i+1, "file block %q is not one of %s; a summary names a file, never a path", summary, strings.Join(chain, ", "))
	}
	i++
	if i >= len(lines) || trimRight(lines[i]) != "" {
		return block{}, 0, rejectf(CodeBadFileBlock, i+1, "file block %s: a blank line must follow the summary", b.name)
	}
	for i < len(lines) && trimRight(lines[i]) == "" {
		i++
	}
	var m []string
	if i < len(lines) {
		m = fenceOpenRE.FindStringSubmatch(trimRight(lines[i]))
	}
	if m == nil {
		return block{}, 0, rejectf(CodeBadFileBlock, i+1, "file block %s: expected a fence like ```%s opening the body", b.name, fileFenceInfo)
	}
	fence, eol := len(m[1]), m[2] == ""
	i++
	bodyStart := i
	for i < len(lines) && !isClosingFence(lines[i], fence) {
		i++
	}
	if i >= len(lines) {
		return block{}, 0, rejectf(CodeUnterminated, start+1, "file block %s: the body's fence is never closed", b.name)
	}
	content := lines[bodyStart:i]
	b.text = strings.Join(content, "\n")
	if eol && len(content) > 0 {
		b.text += "\n"
	}
	i++
	for i < len(lines) && trimRight(lines[i]) == "" {
		i++
	}
	if i >= len(lines) || trimRight(lines[i]) != detailsClose {
		return block{}, 0, rejectf(CodeBadFileBlock, i+1, "file block %s: expected %s after the body", b.name, detailsClose)
	}
	return b, i + 1, nil
}

// assembleFiles joins chunks into bodies, enforcing chain order.
func assembleFiles(blocks []block) (map[string]string, error) {
	if len(blocks) == 0 {
		return nil, nil
	}
	files := map[string]string{}
	prev, lastIdx := "", -1
	for _, b := range blocks {
		if b.continued {
			if b.name != prev {
				return nil, rejectf(CodeFileOrder, b.line, "block %s%s does not follow a block of %s; a continuation follows its file directly", b.name, continuedSuffix, b.name)
			}
			files[b.name] += b.text
			continue
		}
		if _, dup := files[b.name]; dup {
			return nil, rejectf(CodeFileOrder, b.line, "file %s appears twice; carry each body once", b.name)
		}
		if chainIndex(b.name) < lastIdx {
			return nil, rejectf(CodeFileOrder, b.line, "file %s is out of chain order; carry bodies as %s", b.name, strings.Join(chain, ", "))
		}
		files[b.name] = b.text
		prev, lastIdx = b.name, chainIndex(b.name)
	}
	return files, nil
}

func trimRight(s string) string { return strings.TrimRight(s, " \t") }

// clip shortens text quoted back in an error.
func clip(s string) string {
	const n = 80
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
