// Package work holds the hooks that check the implementation work itself
// rather than an artifact: verify-tests runs the repository's test command,
// await-inner-loops holds the work item until every pull request's inner
// loop has finished.
package work
