package handoff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// maxFileBytes bounds one carried file read from any source.
const maxFileBytes = 16 << 20

// SpecFilesScriptID is the id of the <script type="application/json">
// element in which a spec-chain artifact embeds its files.
const SpecFilesScriptID = "the-loop-spec-files"

// Source supplies the bytes of carried artifacts.
type Source interface {
	// Read returns the named artifact's bytes; a missing file is an error
	// wrapping fs.ErrNotExist.
	Read(name string) ([]byte, error)
	// String names the source in messages.
	String() string
}

// DirSource reads artifacts from dir (a checked-out docs/specs/<id>/ or a
// directory a session extracted files into). Reads go through os.Root, so a
// symlink cannot lead outside dir.
func DirSource(dir string) Source { return dirSource{dir: dir} }

type dirSource struct{ dir string }

func (d dirSource) String() string { return "directory " + d.dir }

func (d dirSource) Read(name string) ([]byte, error) {
	if !IsArtifactName(name) || !filepath.IsLocal(name) {
		return nil, fmt.Errorf("read %q: not a carried artifact name", name)
	}
	root, err := os.OpenRoot(d.dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", d.dir, err)
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read %s from %s: %w", name, d.dir, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", name, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s from %s: not a regular file", name, d.dir)
	}
	return readLimited(f, name)
}

func readLimited(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("read %s: larger than %d bytes", name, maxFileBytes)
	}
	return data, nil
}

// TicketSource serves the bodies carried in the ticket comments
// (Record.Files for carried-by ticket).
func TicketSource(files map[string]string) Source {
	return mapSource{files: files, what: "ticket comments"}
}

type mapSource struct {
	files map[string]string
	what  string
}

func (m mapSource) String() string { return m.what }

func (m mapSource) Read(name string) ([]byte, error) {
	body, ok := m.files[name]
	if !ok {
		return nil, fmt.Errorf("%s carry no %s: %w", m.what, name, fs.ErrNotExist)
	}
	return []byte(body), nil
}

// SpecArtifactSource reads a saved spec-chain artifact page and serves the
// files embedded in its <script type="application/json"
// id="the-loop-spec-files"> element.
func SpecArtifactSource(htmlPath string) (Source, error) {
	f, err := os.Open(htmlPath)
	if err != nil {
		return nil, fmt.Errorf("open spec-chain artifact: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 4*maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read spec-chain artifact %s: %w", htmlPath, err)
	}
	files, err := SpecFilesFromHTML(data)
	if err != nil {
		return nil, fmt.Errorf("spec-chain artifact %s: %w", htmlPath, err)
	}
	return mapSource{files: files, what: "spec-chain artifact " + filepath.Base(htmlPath)}, nil
}

var (
	scriptOpenRE = regexp.MustCompile(`(?is)<script\b([^>]*)>`)
	scriptEndRE  = regexp.MustCompile(`(?i)</script`)
	attrRE       = regexp.MustCompile(`([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?`)
)

// SpecFilesFromHTML extracts the embedded files of a spec-chain artifact
// page. The element's JSON is either an array of {"name", "md"} objects or
// an object mapping name to content. Exactly one such element must exist,
// and no name may repeat.
func SpecFilesFromHTML(html []byte) (map[string]string, error) {
	var payload []byte
	count := 0
	for _, loc := range scriptOpenRE.FindAllSubmatchIndex(html, -1) {
		attrs := parseAttrs(string(html[loc[2]:loc[3]]))
		if attrs["id"] != SpecFilesScriptID {
			continue
		}
		count++
		if t := strings.ToLower(strings.TrimSpace(attrs["type"])); t != "application/json" {
			return nil, fmt.Errorf("the %s element has type %q; it must be application/json", SpecFilesScriptID, attrs["type"])
		}
		rest := html[loc[1]:]
		end := scriptEndRE.FindIndex(rest)
		if end == nil {
			return nil, fmt.Errorf("the %s element is never closed", SpecFilesScriptID)
		}
		payload = rest[:end[0]]
	}
	switch count {
	case 0:
		return nil, fmt.Errorf("no <script type=\"application/json\" id=%q> element; save the artifact page that embeds the files", SpecFilesScriptID)
	case 1:
	default:
		return nil, fmt.Errorf("%d elements with id %q; an artifact embeds its files once", count, SpecFilesScriptID)
	}
	return decodeSpecFiles(bytes.TrimSpace(payload))
}

func parseAttrs(s string) map[string]string {
	out := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(s, -1) {
		key := strings.ToLower(m[1])
		if _, dup := out[key]; dup {
			continue // HTML keeps the first occurrence
		}
		out[key] = m[2] + m[3] + m[4]
	}
	return out
}

func decodeSpecFiles(payload []byte) (map[string]string, error) {
	files := map[string]string{}
	add := func(name, body string) error {
		if _, dup := files[name]; dup {
			return fmt.Errorf("file %q is embedded twice; embed each file once", name)
		}
		files[name] = body
		return nil
	}
	if len(payload) > 0 && payload[0] == '[' {
		var items []struct {
			Name *string `json:"name"`
			MD   *string `json:"md"`
		}
		if err := json.Unmarshal(payload, &items); err != nil {
			return nil, fmt.Errorf("embedded files are not valid JSON: %w", err)
		}
		for i, it := range items {
			if it.Name == nil || it.MD == nil {
				return nil, fmt.Errorf("embedded file %d lacks name or md", i)
			}
			if err := add(*it.Name, *it.MD); err != nil {
				return nil, err
			}
		}
		return files, nil
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("embedded files are neither a JSON array of {name, md} nor an object of name to content")
	}
	for dec.More() {
		var name, body string
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("embedded files are not valid JSON: %w", err)
		}
		name, _ = tok.(string)
		if err := dec.Decode(&body); err != nil {
			return nil, fmt.Errorf("embedded file %q is not a JSON string: %w", name, err)
		}
		if err := add(name, body); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("embedded files are not valid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("embedded files have trailing data after the JSON object")
	}
	return files, nil
}
