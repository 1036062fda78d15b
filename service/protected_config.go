package service

import (
	"context"
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/runtime/repoconfig"
)

// ConfigChanged begins the warning, the status line and the gate's note
// that an item's branch changes the repository's commands: they are not
// used until merged.
const ConfigChanged = "this branch changes the repository's commands (commands: in " + repoconfig.Path + ")"

// protectCommands gives an item tree's repository the commands the
// remote's default branch has committed, never the tree's own: a session
// writes its tree, and could otherwise replace commands.test with `true`.
// A branch whose commands differ is named in the warnings (ConfigChanged);
// a default branch whose config cannot be read or used leaves no command
// to run, so verification waits rather than trusting the tree.
func protectCommands(ctx context.Context, repo *repoconfig.Repo) {
	data, ref, pinned, found, err := workspace.ProtectedFile(ctx, repo.Root, repoconfig.Path)
	if !pinned {
		return
	}
	var protected repoconfig.Commands
	switch {
	case err != nil:
		repo.Warnings = append(repo.Warnings, fmt.Sprintf("the default branch's %s could not be read (%v): no repository command runs until it can", repoconfig.Path, err))
	case found:
		if protected, err = repoconfig.CommandsOf(data); err != nil {
			repo.Warnings = append(repo.Warnings, fmt.Sprintf("the default branch's %s is unusable (%v): no repository command runs until it is fixed there", repoconfig.Path, err))
		}
	}
	if !protected.Equal(repo.Config.Commands) {
		repo.Warnings = append(repo.Warnings, fmt.Sprintf("%s; they are not used until the change is merged: verification runs those of the default branch (%s): %s",
			ConfigChanged, shortRef(ref), describeCommands(protected)))
	}
	repo.Config.Commands = protected
}

func shortRef(ref string) string {
	return strings.TrimSuffix(strings.TrimPrefix(ref, "refs/remotes/"), "/HEAD")
}

// describeCommands lists the declared commands as the config spells them.
func describeCommands(c repoconfig.Commands) string {
	var parts []string
	for _, d := range c.Declared() {
		parts = append(parts, fmt.Sprintf("%s `%s`", d.Key, strings.Join(d.Argv, " ")))
	}
	if len(parts) == 0 {
		return "none declared"
	}
	return strings.Join(parts, ", ")
}

// configChange is the warning naming a branch's change of the repository's
// commands ("" when it changes none).
func configChange(warns []string) string {
	for _, w := range warns {
		if strings.HasPrefix(w, ConfigChanged) {
			return w
		}
	}
	return ""
}
