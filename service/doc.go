// Package service is the core every surface calls: each CLI verb and each
// MCP tool is a thin binding over one method here, of one shape — a request
// in, a result carrying its warnings out — so the two cannot drift. It
// resolves a repository (runtime/repoconfig), compiles the shipped loops,
// keeps state in the store (store.Handle, opened on first use) and runs the
// runtime; the poller is the service run on a timer.
//
// New is the only constructor and Deps are everything it is built from; the
// CLI fills them in one place (cmd/the-loop's Factory).
package service
