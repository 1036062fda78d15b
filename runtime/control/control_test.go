package control

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
)

func TestParseDefaults(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		want      Command
		ambiguous bool
	}{
		{"bare", "the-loop start", Start, false},
		{"trailing period", "the-loop start.", Start, false},
		{"bold", "**the-loop start**", Start, false},
		{"parenthesised", "(the-loop start)", Start, false},
		{"upper case", "THE-LOOP START", Start, false},
		{"alone on a middle line", "hi\nthe-loop execute\nthanks", Execute, false},
		{"inside a fenced block still counts", "```\nthe-loop pause\n```", Pause, false},
		{"word char before", "xthe-loop start", None, false},
		{"word char after", "the-loop startx", None, false},
		{"glued word", "the-loop startlater", None, false},
		{"colon after", "the-loop start:now", None, false},
		{"hyphen after", "the-loop start-now", None, false},
		{"hyphen before", "-the-loop start", None, false},
		{"does is not do", "the-loop does things", None, false},
		{"done is not do", "the-loop done", None, false},
		{"docs is not do", "see the-loop docs", None, false},
		{"do", "please, the-loop do: no wait", None, false},
		{"do with space", "the-loop do this typo fix", Do, false},
		{"review", "the-loop review please", Review, false},
		{"contribute", "Goal: x\nthe-loop contribute", Contribute, false},
		{"same command twice", "the-loop stop ... the-loop stop", Stop, false},
		{"two commands", "the-loop start and the-loop execute", None, true},
		{"nothing", "looks good to me", None, false},
		{"unicode letter before", "éthe-loop start", None, false},
		{"emoji before", "🚀the-loop start", Start, false},
		{"double space is not the keyword", "the-loop  start", None, false},
	}
	p := New(config.Default())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.Parse(tt.body)
			assert.Equal(t, tt.want, got.Command)
			assert.Equal(t, tt.ambiguous, got.Ambiguous)
		})
	}
}

func TestAmbiguousListsWhatItFound(t *testing.T) {
	got := Parse(nil, "the-loop execute — or rather the-loop start")
	require.True(t, got.Ambiguous)
	assert.Equal(t, []Command{Start, Execute}, got.Found)
	assert.Equal(t, None, got.Command)
}

func TestConfiguredVocabulary(t *testing.T) {
	off := false
	tests := []struct {
		name string
		cfg  config.Config
		body string
		want Command
	}{
		{"custom keyword", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"execute": "  go go go  "}}}}, "GO GO GO!", Execute},
		{"default no longer matches once replaced", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"execute": "go go go"}}}}, "the-loop execute", None},
		{"empty keyword disables one command", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"stop": ""}}}}, "the-loop stop", None},
		{"other commands still work", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"stop": ""}}}}, "the-loop pause", Pause},
		{"disabled recognises nothing", config.Config{Routing: config.Routing{Control: config.Control{Enabled: &off}}}, "the-loop start", None},
		{"regex metacharacters are literal", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"start": "/loop.start+"}}}}, "/loopXstart", None},
		{"metacharacter keyword matches itself", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"start": "/loop.start+"}}}}, "/loop.start+ now", Start},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			assert.Equal(t, tt.want, Parse(&cfg, tt.body).Command)
		})
	}
}

func TestLoopForAndClasses(t *testing.T) {
	assert.Equal(t, "pdlc-work-item-loop", LoopFor(Start))
	assert.Equal(t, "pdlc-contribution-loop", LoopFor(Contribute))
	assert.Equal(t, "pdlc-adhoc-loop", LoopFor(Do))
	assert.Equal(t, "pdlc-review-loop", LoopFor(Review))
	for _, c := range []Command{Resume, Execute, Stop, Pause, Cleanup, None} {
		assert.Empty(t, LoopFor(c), c)
	}
	assert.True(t, IsArming(Resume))
	assert.False(t, SpawnsSession(Resume))
	assert.True(t, SpawnsSession(Review))
	assert.False(t, IsArming(Execute))
	assert.True(t, IsGraphCommand(Execute))
	assert.True(t, IsDisarming(Cleanup))
	assert.False(t, IsDisarming(Start))
}
