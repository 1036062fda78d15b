// Package hooks holds the shipped hooks the process graphs name. Each file
// registers its hooks into the process-wide registry (runtime.Register) from
// an init function, so importing the package makes them available to the
// graph compiler.
package hooks

import "github.com/the-loop/the-loop/runtime"

// init registers the artifact-reading hooks.
func init() {
	runtime.Register(hookValidate, validateArtifacts)
	runtime.Register(hookBoundaries, enforcesBoundariesFrom)
	runtime.Register(hookLint, lintArtifacts)
	runtime.Register(hookVerifyTests, verifyTests)
	runtime.Register(hookInnerLoops, awaitInnerLoops)
	runtime.Register(hookLogEntry, logEntry)
	runtime.Register(hookLock, lockArtifacts)
}
