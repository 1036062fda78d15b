package classify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const helperEnv = "THE_LOOP_CLASSIFIER_HELPER"

// TestClassifierHelper is not a test: re-executed as the external
// classifier program by the tests below, it answers according to its mode.
func TestClassifierHelper(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("helper process")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	in, _ := io.ReadAll(os.Stdin)
	switch args[0] {
	case "valid":
		fmt.Print(`{"outcome": "approved-with-comments", "reason": "the reviewer approved with a nit"}`)
	case "echo-count":
		var doc ExternalInput
		if err := json.Unmarshal(in, &doc); err != nil {
			os.Exit(3)
		}
		fmt.Printf(`{"outcome": "changes-requested", "reason": "%d comments, gate %s, %d outcomes"}`, len(doc.Comments), doc.Gate, len(doc.Outcomes))
	case "unknown-key":
		fmt.Print(`{"outcome": "approved", "reason": "x", "confidence": 0.9}`)
	case "bad-outcome":
		fmt.Print(`{"outcome": "merge-it", "reason": "x"}`)
	case "missing-reason":
		fmt.Print(`{"outcome": "approved"}`)
	case "trailing":
		fmt.Print(`{"outcome": "approved", "reason": "x"} and also approved`)
	case "prose":
		fmt.Print(`I think this is approved. SECRET-IN-OUTPUT`)
	case "huge":
		fmt.Print(`{"outcome": "approved", "reason": "` + strings.Repeat("a", maxOutput) + `"}`)
	case "exit":
		os.Exit(2)
	case "sleep":
		time.Sleep(5 * time.Second)
	case "flaky":
		marker := args[1]
		if _, err := os.Stat(marker); err != nil {
			_ = os.WriteFile(marker, []byte("1"), 0o600)
			os.Exit(1)
		}
		fmt.Print(`{"outcome": "approved", "reason": "second time lucky"}`)
	}
	os.Exit(0)
}

func helper(mode ...string) []string {
	return append([]string{os.Args[0], "-test.run=^TestClassifierHelper$", "--"}, mode...)
}

func TestExternalClassifier(t *testing.T) {
	t.Setenv(helperEnv, "1")
	in := ExternalInput{Gate: "design-approval", Subject: "design.md", Comments: []ExternalComment{{Author: "alice", Body: "hmm"}, {Author: "bob", Body: "ok"}}}
	tests := []struct {
		name    string
		mode    []string
		want    Verdict
		wantErr string
	}{
		{"valid answer", helper("valid"), Verdict{Outcome: ApprovedWithComments, Reason: "the reviewer approved with a nit"}, ""},
		{"input reaches the program", helper("echo-count"), Verdict{Outcome: ChangesRequested, Reason: "2 comments, gate design-approval, 4 outcomes"}, ""},
		{"unknown key is invalid", helper("unknown-key"), Verdict{}, "not a JSON object"},
		{"outcome outside the set", helper("bad-outcome"), Verdict{}, "not one of the four"},
		{"missing reason", helper("missing-reason"), Verdict{}, "both required"},
		{"trailing text", helper("trailing"), Verdict{}, "text follows"},
		{"prose", helper("prose"), Verdict{}, "not a JSON object"},
		{"oversized", helper("huge"), Verdict{}, "exceeds"},
		{"non-zero exit", helper("exit"), Verdict{}, "exit status 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := External{Command: tt.mode, Timeout: 10 * time.Second}.Classify(context.Background(), in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.NotContains(t, err.Error(), "SECRET-IN-OUTPUT")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, v)
		})
	}
}

func TestExternalClassifierRetriesAndTimesOut(t *testing.T) {
	t.Setenv(helperEnv, "1")
	marker := filepath.Join(t.TempDir(), "first-attempt")
	v, err := External{Command: helper("flaky", marker), Timeout: 10 * time.Second, Retries: 1}.Classify(context.Background(), ExternalInput{})
	require.NoError(t, err)
	assert.Equal(t, Approved, v.Outcome)

	marker2 := filepath.Join(t.TempDir(), "first-attempt")
	_, err = External{Command: helper("flaky", marker2), Timeout: 10 * time.Second, Retries: 0}.Classify(context.Background(), ExternalInput{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "after 1 attempt(s)")

	_, err = External{Command: helper("sleep"), Timeout: 200 * time.Millisecond, Retries: 1}.Classify(context.Background(), ExternalInput{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "timed out")
	assert.Contains(t, err.Error(), "after 2 attempt(s)")
}

func TestExternalClassifierRefusesNoCommandAndMissingBinary(t *testing.T) {
	_, err := External{}.Classify(context.Background(), ExternalInput{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "routing.classifier.command")

	_, err = External{Command: []string{filepath.Join(t.TempDir(), "no-such-classifier")}}.Classify(context.Background(), ExternalInput{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no valid answer")
}

func TestExternalClassifierNeverUsesAShell(t *testing.T) {
	// A shell would expand the variable and run the second command; argv
	// execution looks for a program literally named so and fails.
	_, err := External{Command: []string{"echo $HOME; true"}}.Classify(context.Background(), ExternalInput{})
	require.Error(t, err)
}
