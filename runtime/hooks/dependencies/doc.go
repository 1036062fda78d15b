// Package dependencies holds the hook that keeps a work item at phase
// selection while the items it depends on have not finished: await-blockers
// reads the dependency record the poller keeps in the item's state (package
// dag decides it from the trackers' relationships; see docs/dag.md).
package dependencies
