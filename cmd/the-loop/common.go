package main

import (
	"fmt"
	"io"

	"github.com/the-loop/the-loop/runtime"
)

// writeJSON prints v as indented UTF-8 JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := runtime.MarshalJSON(v)
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err = w.Write(b)
	return err
}
