package scenario

// The scripted agent's work, node by node: what a session writes into the
// item's spec folder (a file), or edits there ("old => new" lines in a
// .sed file). Each passes its node's checks.
var script = map[string]map[string]string{
	"requirements-definition": {"requirements.md": `# Requirements: export the report as CSV

## Requirements

- R1: WHEN a user asks for the report as CSV THEN the system SHALL stream every row as one CSV line.
- R2: WHEN the export passes 100 000 rows THEN the system SHALL stop and say so.

## Security considerations

The rows cross a trust boundary: other tenants typed them. The abuse case is a cell that a
spreadsheet would run as a formula; every such cell is neutralised before it leaves.
`},
	"design": {"design.md": `# Design: export the report as CSV

## Architecture

A streaming writer wraps the report query and writes one line per row.

` + "```mermaid\nflowchart LR\n  query[report query] --> writer[CSV writer] --> client\n```" + `

## Security design

At the trust boundary the writer prefixes a quote to any cell starting with = + - or @,
so the abuse case (a formula run by a spreadsheet) cannot happen; a negative test proves it.

## Testing strategy

Unit tests over the writer; one end-to-end export of 10 000 rows.
`},
	"test-planning": {"testing-plan.md": `# Testing plan: export the report as CSV

## Test matrix

- [ ] unit: a formula cell leaves quoted
- [ ] e2e: 10 000 rows stream in one response

## Verification environment

A local checkout; go test.

## Evidence plan

The test run's output, pasted under Verification results.

## Verification results

Not run yet.
`},
	"tasks-breakdown": {"tasks.md": `# Tasks: export the report as CSV

## Task list

- [ ] T1 the streaming writer
- [ ] T2 the row limit
`},
	// The implementation writes the quoting and ticks the tasks; its code
	// forgets the @ of a formula cell, which the repository's CI catches.
	"implementation": {"tasks.md.sed": "- [ ] T1 => - [x] T1\n- [ ] T2 => - [x] T2\n", "root/export/csv.sh": quoteCell("=*|+*|-*")},
	// Sent back with CI's failure, the pull request's implementation
	// quotes @ too.
	"pr/implementation.ci-fix": {"root/export/csv.sh": quoteCell("=*|+*|-*|@*")},
	// Sent back by the design review, the design answers it.
	"design.revise": {"design.md.sed": "one end-to-end export of 10 000 rows. => one end-to-end export of 10 000 rows; an empty report exports its header row only.\n"},
	// The pull request's loop: the review nodes record into the execution
	// log, and reviewer-briefing writes the briefing and the documentation
	// evidence the ready-to-ship gate reads.
	"pr/self-review": {"evidence/self-review.md": "# Self-review\n\n| Round | Findings | New findings |\n|---|---|---|\n| 1 | 1 | 1 |\n| 2 | 0 | 0 |\n",
		"execution-log.md": `# Execution log: export the report as CSV

## Review cycles

- cycle 1 (self): the writer quotes a formula cell; no finding left.
- cycle 2 (critic): no finding.

## Security review (gate)

The one trust boundary is the cell text; the quoting closes the abuse case, and its negative test passes.

## Pull requests

- octo/widgets: the streaming writer and the row limit.
`},
	"pr/reviewer-briefing": {
		"pr-briefing.md": `## Summary

A CSV export of the report: one streamed line per row, stopping at 100 000 rows.

## Where to focus

The quoting of cells that start with = + - or @.

## What changed

` + "```mermaid\nflowchart LR\n  query[report query] --> writer[CSV writer] --> client\n```" + `

## Decisions and why

Streaming rather than buffering: the report can be large.

## How it was verified

Unit tests over the writer; one end-to-end export of 10 000 rows.
`,
		"evidence/documentation.md": `# Documentation

## Capability docs

none affected: the export is new and documented in its README section.

## Documentation

README: a section on the CSV export.
`},
	"verification": {"testing-plan.md.sed": "- [ ] unit => - [x] unit\n- [ ] e2e => - [x] e2e\nNot run yet. => ok  example/export 0.4s: both rows pass.\n"},
}

// quoteCell is the export's quoting of a cell a spreadsheet would run as a
// formula: the cells matching patterns get a leading quote.
func quoteCell(patterns string) string {
	return "#!/bin/sh\n# Quote a cell a spreadsheet would run as a formula.\ncase \"$1\" in\n  " + patterns +
		") printf \"'%s\\n\" \"$1\" ;;\n  *) printf '%s\\n' \"$1\" ;;\nesac\n"
}

// ciScript is the demo repository's CI (scripts/ci.sh): it checks the
// export's quoting, and says what failed the way a GitHub Actions step
// does, an `::error file=…,line=…::` line the run's annotation is made of.
const ciScript = `#!/bin/sh
# The repository's CI: every formula cell leaves quoted.
if [ ! -f export/csv.sh ]; then echo "ok    nothing to export yet"; exit 0; fi
fail=0
for cell in '=SUM(A1)' '+1' '-1' '@SUM(A1)'; do
  got=$(sh export/csv.sh "$cell")
  if [ "$got" = "'$cell" ]; then echo "ok    $cell leaves as $got"; continue; fi
  line=$(grep -n '=\*' export/csv.sh | head -n 1 | cut -d: -f1)
  echo "FAIL  $cell leaves as $got, want '$cell"
  echo "::error file=export/csv.sh,line=${line:-1}::a cell starting with $(printf %.1s "$cell") leaves unquoted: a spreadsheet runs it as a formula"
  fail=1
done
exit $fail
`

// AgentNodes are the nodes the scripted agent works, in walk order, when
// brainstorming and the review chain are unticked and the human asks for
// changes once at design-approval: the work item's (design and its testing
// plan twice), then, while its implementation waits, its pull request's
// loop's (pr/<node>) — twice, as CI fails once and sends it back to
// implementation — then the work item's verification.
var AgentNodes = []string{"requirements-definition", "design", "test-planning", "design", "test-planning", "tasks-breakdown", "implementation",
	"pr/implementation", "pr/verification", "pr/self-review", "pr/critic-review", "pr/security-review", "pr/reviewer-briefing",
	"pr/implementation", "pr/verification", "pr/self-review", "pr/critic-review", "pr/security-review", "pr/reviewer-briefing",
	"verification"}
