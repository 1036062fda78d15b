//go:build race

package mcp

// raceEnabled is true under the race detector, which makes the heaviest
// tests shrink their inputs.
const raceEnabled = true
