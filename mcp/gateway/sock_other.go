//go:build !linux

package gateway

func shortPath(path string) (string, func(), error) { return path, func() {}, nil }
