// Package theloop holds what the binary reads from the plugin it ships
// beside (skills/): embedded here, at the module root, because an embed
// reaches only files below its own package.
package theloop

import _ "embed"

// PRBriefingTemplate is the operating-model skill's PR-briefing template:
// the reviewer briefing the loop posts on each pull request is rendered
// from its sections.
//
//go:embed skills/operating-model/templates/pr-briefing.md
var PRBriefingTemplate string
