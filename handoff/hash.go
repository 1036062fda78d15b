package handoff

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
)

// NormalizeLF returns data with every CRLF and lone CR turned into LF.
func NormalizeLF(data []byte) []byte {
	if !bytes.ContainsRune(data, '\r') {
		return data
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '\r' {
			out = append(out, '\n')
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			continue
		}
		out = append(out, c)
	}
	return out
}

// HashLF returns the SHA-256, as 64 lowercase hex digits, of data with its
// line endings normalised to LF. It is the hash every record carries.
func HashLF(data []byte) string {
	sum := sha256.Sum256(NormalizeLF(data))
	return hex.EncodeToString(sum[:])
}

// isHexHash reports 64 lowercase hex digits.
func isHexHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
