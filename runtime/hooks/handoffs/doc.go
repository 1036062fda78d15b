// Package handoffs holds import-handoff, the hook that verifies the
// artifacts a conversation handoff carried into a work item and demotes the
// walk to the first one that does not verify.
package handoffs
