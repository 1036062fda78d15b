package mcp

import (
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/runtimetest"
	"github.com/the-loop/the-loop/service"
	"github.com/the-loop/the-loop/store"
)

// fixtureRepo is the shared fixture repository: six work items under
// docs/specs (issue-1 never started, issue-2 blocked at
// requirements-definition, issue-3 waiting at design-approval, issue-4
// complete, ...). Tests never write to it; copyFixture makes a private copy.
const fixtureRepo = "../testdata/repo"

// copyFixture copies the fixture repository into a temp dir and returns
// the copy's root.
func copyFixture(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "repo")
	require.NoError(t, copyTree(fixtureRepo, dst))
	return dst
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// cloneItem copies the spec folder of from to a new work item to inside
// repo, renaming the id in its state record and artifacts.
func cloneItem(t testing.TB, repo, from, to string) {
	t.Helper()
	src := filepath.Join(repo, "docs", "specs", from)
	dst := filepath.Join(repo, "docs", "specs", to)
	require.NoError(t, os.MkdirAll(dst, 0o755))
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		text := strings.ReplaceAll(string(data), `"`+from+`"`, `"`+to+`"`)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), []byte(text), 0o644))
	}
	if _, err := os.Stat(filepath.Join(dst, runtime.StateFile)); err == nil {
		require.NoError(t, runtimetest.ResignFixtureState(dst), "a decision moved to another item must be signed again")
	}
}

// newLoopService is the real core over repo with a private state store and
// no ticket integration.
func newLoopService(t testing.TB, repo string) *service.Service {
	t.Helper()
	return newLoopServiceWith(t, repo, config.Default(), nil)
}

// newLoopServiceWith is newLoopService over cfg with the ticket providers
// of providers (nil: none).
func newLoopServiceWith(t testing.TB, repo string, cfg *config.Config, providers func(string) (integrations.Provider, error)) *service.Service {
	t.Helper()
	svc := service.New(cfg, service.Deps{
		Store:       store.NewHandle(filepath.Join(t.TempDir(), "state.db")),
		Providers:   providers,
		DefaultRepo: repo,
		Log:         slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	t.Cleanup(func() { _ = svc.Close() })
	return svc
}

// loopClient is an in-process client on a server with every shipped tool
// bound to svc.
func loopClient(t *testing.T, svc *service.Service) *client.Client {
	t.Helper()
	return inProcess(t, Deps{Backend: svc, DefaultRepo: svc.DefaultRepo(), Operator: svc.Config().Routing.Operator}, AllTools()...)
}

// structured decodes a result's structured content as JSON, the shape a
// remote client receives.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	require.NotNil(t, res.StructuredContent, "the result carries structured content")
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// gitCheckout makes an empty git repository with an origin remote.
func gitCheckout(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := filepath.Join(t.TempDir(), "checkout")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, args := range [][]string{{"init", "-q", "."}, {"remote", "add", "origin", "https://github.com/acme/widgets.git"}} {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	return dir
}
