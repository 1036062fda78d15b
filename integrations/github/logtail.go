package github

import (
	"regexp"
	"strings"

	"github.com/the-loop/the-loop/internal/plaintext"
)

// logStamp is the timestamp GitHub Actions writes before every log line.
var logStamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?`)

// Tail is the part of a GitHub Actions job log a fix needs: the lines up to
// and including its last error line (`##[error]`; what follows is the
// job's clean-up), else up to its end — at most maxLines lines and
// maxBytes bytes, each without its timestamp, terminal escapes and control
// characters. cut says the log's start was not read, so its first line may
// be a fragment and is dropped. It returns the text and its line count.
func Tail(log string, cut bool, maxLines, maxBytes int) (string, int) {
	lines := strings.Split(plaintext.Printable(log), "\n")
	if cut && len(lines) > 1 {
		lines = lines[1:]
	}
	end := len(lines)
	for end > 0 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "##[error]") {
			end = i + 1
			break
		}
	}
	var out []string
	size := 0
	for i := end - 1; i >= 0 && len(out) < maxLines; i-- {
		l := logStamp.ReplaceAllString(lines[i], "")
		if size+len(l)+1 > maxBytes {
			break
		}
		size += len(l) + 1
		out = append(out, l)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return strings.Join(out, "\n"), len(out)
}
