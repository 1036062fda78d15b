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

// DecodeFrozen reads the record frozen in a work item's state and checks it
// against every rule a posted record must satisfy (bodies aside: state never
// holds them). A record that fails is treated as no verified handoff.
func DecodeFrozen(data []byte) (Record, error) {
	if len(data) == 0 {
		return Record{}, errors.New("no handoff is frozen in state")
	}
	rec, err := DecodeJSON(data)
	if err != nil {
		return Record{}, err
	}
	check := rec
	if check.CarriedBy == CarriedByTicket {
		// State drops the carried bodies; stand-ins let the rest be checked.
		check.Files = map[string]string{}
		for _, n := range rec.Names() {
			check.Files[n] = ""
		}
	}
	if err := Validate(check); err != nil {
		return Record{}, fmt.Errorf("frozen handoff record: %w", err)
	}
	return rec, nil
}
