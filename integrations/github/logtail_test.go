package github

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

const actionsLog = "2024-05-01T12:00:00.1234567Z ##[group]Run go test ./...\n" +
	"2024-05-01T12:00:01.0000000Z \x1b[31m--- FAIL: TestQuote (0.00s)\x1b[0m\n" +
	"2024-05-01T12:00:01.1000000Z     csv_test.go:9: got \"@SUM(A1)\", want \"'@SUM(A1)\"\n" +
	"2024-05-01T12:00:02.0000000Z ##[error]Process completed with exit code 1.\n" +
	"2024-05-01T12:00:03.0000000Z Post job cleanup.\n" +
	"2024-05-01T12:00:04.0000000Z Cleaning up orphan processes\n"

func TestTailEndsAtTheLastErrorLineWithoutStampsOrEscapes(t *testing.T) {
	got, n := Tail(actionsLog, false, 60, 6000)
	assert.Equal(t, "##[group]Run go test ./...\n--- FAIL: TestQuote (0.00s)\n    csv_test.go:9: got \"@SUM(A1)\", want \"'@SUM(A1)\"\n##[error]Process completed with exit code 1.", got)
	assert.Equal(t, 4, n)
}

func TestTailBounds(t *testing.T) {
	got, n := Tail(actionsLog, false, 2, 6000)
	assert.Equal(t, 2, n, "at most maxLines lines, counted back from the error line")
	assert.True(t, strings.HasSuffix(got, "##[error]Process completed with exit code 1."))

	got, n = Tail(actionsLog, true, 60, 6000)
	assert.Equal(t, 3, n, "a log read from its middle loses its first, possibly partial, line")
	assert.False(t, strings.Contains(got, "##[group]"))

	long := strings.Repeat("x", 100)
	_, n = Tail(long+"\n"+long+"\n"+long+"\n", false, 10, 250)
	assert.Equal(t, 2, n, "at most maxBytes bytes")

	got, _ = Tail("build ok\nstep 2\n\n\n", false, 10, 6000)
	assert.Equal(t, "build ok\nstep 2", got, "a log without an error line ends at its last line")
}
