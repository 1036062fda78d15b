package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDeclaresDone(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{"done", true},
		{"Done!", true},
		{"All done, thanks.", true},
		{"That's all, thank you", true},
		{"thats all", true},
		{"Nothing else — close it.", true},
		{"lgtm", true},
		{"we're done here 🎉 (emoji are never read)", false},
		{"we're done here", true},
		{"No more, we're done.", true},
		{"all set", true},
		{"not done yet", false},
		{"We're not done: the footer is still wrong.", false},
		{"isn't done", false},
		{"nope, not done", false},
		{"Are we done?", false},
		{"Once you're done, update the changelog.", false},
		{"Done. Also bump the version.", false},
		{"Looks good, please fix the typo in the title too.", false},
		{"done, but could you add a test?", false},
		{"thanks", false},
		{"undone work remains", false},
		{"the abandoned branch can go", false},
		{"> done\nplease rename the file", false},
		{"Also rename the flag.", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			got, reason := DeclaresDone(tt.body)
			assert.Equal(t, tt.want, got, reason)
			assert.NotEmpty(t, reason)
		})
	}
}

func TestSignsOff(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{"Security sign-off: I reviewed the threat model.", true},
		{"security signoff ✅", true},
		{"security signoff ❌", false},
		{"security signoff", true},
		{"Security approved.", false},
		{"No security sign-off yet.", false},
		{"I'll give the security sign-off once the token handling is fixed.", false},
		{"security sign-off?", false},
		{"> security sign-off\nnot from me", false},
		{"the security sign-offs page", false},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			got, reason := SignsOff(tt.body)
			assert.Equal(t, tt.want, got, reason)
		})
	}
}
