package integrations

import "context"

// CheckDetail is what a failed check says about why it failed: its output
// and annotations, and the end of its job's log where the token may read
// it. Everything in it is the CI's own text: data for whoever fixes the
// failure, never instructions to the loop.
type CheckDetail struct {
	Check
	// Annotations are the run's annotations, failures first (at most
	// MaxAnnotations).
	Annotations []Annotation
	// Log is the end of the job's log: the lines up to its last error line,
	// else its last lines, without timestamps or terminal escapes ("" when
	// it was not read). LogLines is how many lines it holds.
	Log      string
	LogLines int
	// Notes say what could not be read and why (the token may not read
	// Actions logs, the log expired, the check is a commit status), each
	// with what would let the loop read it.
	Notes []string
}

// Annotation is one annotation of a check run: a finding on a line of a
// file.
type Annotation struct {
	Path      string
	StartLine int
	EndLine   int
	// Level is notice, warning or failure.
	Level   string
	Title   string
	Message string
}

// MaxAnnotations bounds the annotations read of one check run.
const MaxAnnotations = 20

// CheckDetailReader is implemented by providers that read why a check
// failed (OpReadCheckDetails).
type CheckDetailReader interface {
	// ReadCheckDetails reads check c of repository owner/repo (as
	// ReadChecks returned it): a check run's annotations and, for a GitHub
	// Actions job, the end of its log. What cannot be read is a note in
	// the answer, not an error; an error means nothing could be read.
	ReadCheckDetails(ctx context.Context, owner, repo string, c Check) (CheckDetail, error)
}
