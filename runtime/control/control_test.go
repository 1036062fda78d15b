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
		{"bold is not a line of its own", "**the-loop start**", None, false},
		{"parenthesised is not a line of its own", "(the-loop start)", None, false},
		{"upper case", "THE-LOOP START", Start, false},
		{"alone on a middle line", "hi\nthe-loop execute\nthanks", Execute, false},
		{"inside a fenced block never counts", "```\nthe-loop pause\n```", None, false},
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
		{"do with trailing words", "the-loop do this typo fix", None, false},
		{"do alone", "Fix the typo in the footer.\n\nthe-loop do", Do, false},
		{"review with a word after", "the-loop review please", None, false},
		{"review", "the-loop review", Review, false},
		{"contribute", "Goal: x\nthe-loop contribute", Contribute, false},
		{"same command twice", "the-loop stop\n\nthe-loop stop.", Stop, false},
		{"same command inline twice", "the-loop stop ... the-loop stop", None, false},
		{"two commands", "the-loop start and the-loop execute", None, true},
		{"nothing", "looks good to me", None, false},
		{"unicode letter before", "éthe-loop start", None, false},
		{"emoji before", "🚀the-loop start", None, false},
		{"double space is not the keyword", "the-loop  start", None, false},
		{"surrounding space and one period", "   THE-LOOP START.   ", Start, false},
		{"two periods", "the-loop start..", None, false},
		{"after a blank line", "Please pick this up.\n\nthe-loop start", Start, false},
		{"crlf line ends", "hi\r\nthe-loop start\r\n", Start, false},
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

// Each way of writing a keyword that is not the author's plain, own line is
// never a command.
func TestCommandsAreOwnLinesOnly(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"negated on the line", "do NOT the-loop start this yet"},
		{"quoted line", "> the-loop start"},
		{"lazy quote continuation", "> from the other thread:\nthe-loop start"},
		{"question with a mark", "the-loop start?"},
		{"question without a mark", "should we the-loop start"},
		{"inline code", "`the-loop start`"},
		{"fenced block", "```\nthe-loop start\n```"},
		{"tilde fence", "~~~\nthe-loop start\n~~~"},
		{"indented code", "example:\n\n    the-loop start"},
		{"html comment", "<!--\nthe-loop start\n-->"},
		{"unterminated html comment", "hello <!--\nthe-loop start"},
		{"struck through", "~~the-loop start~~"},
		{"del element", "<del>the-loop start</del>"},
		{"unticked task", "- [ ] the-loop start"},
		{"list item", "- the-loop start"},
		{"heading", "# the-loop start"},
		{"zero-width space inside", "the-loop st\u200bart"},
		{"look-alike letter", "the-loop st\u0430rt"},
		{"long s look-alike", "the-loop \u017ftart"},
		{"html bold", "<b>the-loop start</b>"},
		{"entity-encoded", "the-loop&#32;start"},
	}
	p := New(config.Default())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, None, p.Parse(tt.body).Command)
		})
	}
}

func TestAnotherCommandAnywhereIsAmbiguous(t *testing.T) {
	p := New(config.Default())
	for _, body := range []string{
		"the-loop start\nthe-loop stop",
		"the-loop start\n\nor rather the-loop pause",
		"the-loop execute\n- [x] design\nthen the-loop stop",
	} {
		got := p.Parse(body)
		assert.True(t, got.Ambiguous, body)
		assert.Equal(t, None, got.Command, body)
	}
	got := p.Parse("the-loop start\n\n> the-loop stop")
	assert.Equal(t, Start, got.Command, "a quoted command is not the author's, so it is not another command")
	assert.False(t, got.Ambiguous)
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
		{"custom keyword", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"execute": "  go go go  "}}}}, "GO GO GO.", Execute},
		{"custom keyword with a bang", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"execute": "go go go"}}}}, "GO GO GO!", None},
		{"default no longer matches once replaced", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"execute": "go go go"}}}}, "the-loop execute", None},
		{"empty keyword disables one command", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"stop": ""}}}}, "the-loop stop", None},
		{"other commands still work", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"stop": ""}}}}, "the-loop pause", Pause},
		{"disabled recognises nothing", config.Config{Routing: config.Routing{Control: config.Control{Enabled: &off}}}, "the-loop start", None},
		{"regex metacharacters are literal", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"start": "/loop.start+"}}}}, "/loopXstart", None},
		{"metacharacter keyword matches itself", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"start": "/loop.start+"}}}}, "/loop.start+", Start},
		{"invalid UTF-8 in a keyword is no panic", config.Config{Routing: config.Routing{Control: config.Control{Keywords: map[string]string{"execute": "go\xffgo"}}}}, "go\xffgo", Execute},
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
