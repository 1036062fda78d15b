package markdown

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFenceIsLongerThanAnyRunOfBackticks(t *testing.T) {
	assert.Equal(t, "```", Fence("plain"))
	assert.Equal(t, "````", Fence("a ``` b"))
	assert.Equal(t, "``````", Fence("`````x``"))
}
