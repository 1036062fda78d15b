package service

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TempGrace is the age below which a temporary file may still belong to a
// write in progress in another process, so CleanTempFiles leaves it alone.
// An atomic write lives for milliseconds.
const TempGrace = time.Minute

// CleanTempFiles removes the temporary files that atomic writes leave in a
// repository's spec folders when their process is killed mid-write
// (".NAME.tmp-XXXX"): left alone they show up as untracked files that
// `git add -A` would commit. Files younger than TempGrace are kept. It
// returns the removed paths, relative to the repository root.
func (s *Service) CleanTempFiles(repoDir string) ([]string, error) {
	return s.cleanTempFiles(context.Background(), repoDir)
}

// cleanTempFiles is CleanTempFiles with the repository opened through ctx
// (once per poll cycle).
func (s *Service) cleanTempFiles(ctx context.Context, repoDir string) ([]string, error) {
	repo, err := s.openItemRepo(ctx, repoDir)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(repo.Root, filepath.FromSlash(repo.SpecRoot))
	cutoff := s.now().Add(-TempGrace)
	var removed []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !isTempName(d.Name()) {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.ModTime().After(cutoff) {
			return nil
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		rel, _ := filepath.Rel(repo.Root, path)
		removed = append(removed, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return removed, fmt.Errorf("clean temporary files under %s: %w", repo.SpecRoot, err)
	}
	return removed, nil
}

// isTempName reports the name an atomic write gives its temporary file:
// "." + target name + ".tmp-" + a random suffix of letters and digits.
func isTempName(name string) bool {
	i := strings.LastIndex(name, ".tmp-")
	if i < 2 || name[0] != '.' {
		return false
	}
	suffix := name[i+len(".tmp-"):]
	if suffix == "" {
		return false
	}
	for _, c := range suffix {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
