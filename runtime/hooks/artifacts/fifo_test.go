//go:build unix

package artifacts

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

func TestReadRefusesAFIFOSoACheckCannotHang(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "design", Produces: []string{"design.md"}}, map[string]any{"sections": []any{"Architecture"}})
	require.NoError(t, syscall.Mkfifo(filepath.Join(hc.WorkItem.SpecDir, "design.md"), 0o644))
	hc.ReadOnly = true
	res, err := ValidateArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Block, res.Status)
	assert.Contains(t, res.Render(), "not a regular file")
}
