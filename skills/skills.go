// Package skills holds what the binary reads from the plugin's skills it
// ships beside (the folders here, one per skill): embedded from this
// package because an embed reaches only files below its own folder.
package skills

import _ "embed"

// PRBriefingTemplate is the operating-model skill's PR-briefing template:
// the reviewer briefing the loop posts on each pull request is rendered
// from its sections.
//
//go:embed operating-model/templates/pr-briefing.md
var PRBriefingTemplate string
