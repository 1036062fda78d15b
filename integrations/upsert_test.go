package integrations_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/the-loop/the-loop/integrations"
)

func TestIsOwnComment(t *testing.T) {
	marked := integrations.MarkSelfAuthored("status")
	tests := []struct {
		name  string
		c     integrations.Comment
		self  []string
		owned bool
	}{
		{name: "marked and by a self login", c: integrations.Comment{Author: "loop-bot", Body: marked}, self: []string{"loop-bot"}, owned: true},
		{name: "logins compare case-insensitively with @ ignored", c: integrations.Comment{Author: "Loop-Bot", Body: marked}, self: []string{" @loop-bot "}, owned: true},
		{name: "a forged marker by someone else is not the loop's", c: integrations.Comment{Author: "mallory", Body: marked}, self: []string{"loop-bot"}},
		{name: "the loop's login without the marker is not a loop comment", c: integrations.Comment{Author: "loop-bot", Body: "status"}, self: []string{"loop-bot"}},
		{name: "no self logins owns nothing", c: integrations.Comment{Author: "loop-bot", Body: marked}},
		{name: "an author-less comment (deleted account) owns nothing", c: integrations.Comment{Body: marked}, self: []string{""}},
		{name: "a Kelvin sign never stands in for k", c: integrations.Comment{Author: "\u212Aloop", Body: marked}, self: []string{"kloop"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.owned, integrations.IsOwnComment(tc.c, tc.self))
		})
	}
}

func TestSummarizeChecks(t *testing.T) {
	pass := integrations.Check{Name: "b", State: integrations.CheckPassed}
	wait := integrations.Check{Name: "a", State: integrations.CheckPending}
	fail := integrations.Check{Name: "c", State: integrations.CheckFailed}
	odd := integrations.Check{Name: "d", State: "surprising"}
	tests := []struct {
		name   string
		checks []integrations.Check
		want   integrations.ChecksVerdict
	}{
		{name: "none reported is pending", want: integrations.ChecksPending},
		{name: "all passed is green", checks: []integrations.Check{pass}, want: integrations.ChecksGreen},
		{name: "one pending waits", checks: []integrations.Check{pass, wait}, want: integrations.ChecksPending},
		{name: "one failed fails over pending", checks: []integrations.Check{wait, fail, pass}, want: integrations.ChecksFailing},
		{name: "an unknown state fails closed", checks: []integrations.Check{pass, odd}, want: integrations.ChecksFailing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := integrations.SummarizeChecks("sha", tc.checks)
			assert.Equal(t, tc.want, got.Verdict)
			assert.Len(t, got.All, len(tc.checks))
		})
	}
	got := integrations.SummarizeChecks("sha", []integrations.Check{fail, pass, wait})
	assert.Equal(t, []string{"a", "b", "c"}, []string{got.All[0].Name, got.All[1].Name, got.All[2].Name}, "ordered by name")
}
