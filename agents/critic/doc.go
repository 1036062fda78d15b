// Package critic runs the operator's configured critics: other harnesses or
// models that review a work item's change and print findings.
//
// A critic is an argv, never a shell line. It runs through proc.Run in the
// item's working tree with an environment built from its allow-list (no
// secrets), bounded in time and output, and every round ends in one
// Envelope. A round that could not start, timed out, failed or printed
// nothing carries an Unavailable reason and does not count as a review
// round. Running a critic adds work; it never approves anything.
package critic
