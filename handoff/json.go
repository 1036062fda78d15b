package handoff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonRecord is the JSON shape DecodeJSON accepts: the record plus the three
// reader-filled fields of the state's handoff block, which are accepted so a
// state block can be fed back, and ignored because the author always comes
// from comment metadata.
type jsonRecord struct {
	Record
	Author     string `json:"author,omitempty"`
	CommentURL string `json:"commentUrl,omitempty"`
	RecordedAt string `json:"recordedAt,omitempty"`
}

// DecodeJSON reads a record in its camelCase JSON form strictly: unknown
// fields and trailing data are errors. It does not validate the record;
// Render and Validate do.
func DecodeJSON(data []byte) (Record, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var jr jsonRecord
	if err := dec.Decode(&jr); err != nil {
		return Record{}, fmt.Errorf("decode handoff record JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Record{}, errors.New("decode handoff record JSON: trailing data after the record object")
	}
	rec := jr.Record
	if rec.Artifacts == nil {
		rec.Artifacts = []Artifact{}
	}
	return rec, nil
}

// EncodeJSON writes the record's JSON form, indented, with a final newline.
func EncodeJSON(rec Record) ([]byte, error) {
	if rec.Artifacts == nil {
		rec.Artifacts = []Artifact{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // UTF-8 JSON as every other document the loop writes
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec); err != nil {
		return nil, fmt.Errorf("encode handoff record JSON: %w", err)
	}
	return buf.Bytes(), nil
}
