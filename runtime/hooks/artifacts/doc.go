// Package artifacts holds the hooks that read and write a work item's
// artifacts in its spec folder: validate-artifacts, enforces-boundaries-from,
// lint-artifacts, check-success-criteria, lock-artifacts and log-entry.
// None calls a ticket integration.
package artifacts
