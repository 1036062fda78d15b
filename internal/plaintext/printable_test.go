package plaintext

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPrintableKeepsTextAndDropsWhatIsNeverShown(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text and layout stay", "line 1\n\tindented é ✓", "line 1\n\tindented é ✓"},
		{"colours go", "\x1b[31m--- FAIL\x1b[0m: TestX", "--- FAIL: TestX"},
		{"a terminal title and a hyperlink go", "\x1b]0;title\x07a \x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", "a link"},
		{"carriage returns become line breaks", "a\r\nb\rc", "a\nb\nc"},
		{"controls, bidi and zero-width characters go", "ok\x00\x07\u202e\u200bay", "okay"},
		{"invalid bytes go", "a\xffb", "ab"},
		{"a cursor move goes", "50%\x1b[2K\x1b[1G100%", "50%100%"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, Printable(tc.in)) })
	}
}
