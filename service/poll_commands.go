package service

import (
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime/authz"
	"github.com/the-loop/the-loop/runtime/control"
)

// lastCommand is the last control command an authorized person gave on the
// issue and the comment that gave it, or, when none, start for an issue an
// authorized person labelled for auto-execution (by its author).
func (p *Poller) lastCommand(src config.Source, is integrations.Issue, comments []integrations.Comment) (control.Command, integrations.Comment) {
	cfg := p.Svc.cfg
	var parser *control.Parser // made at the first comment it reads
	last, by := control.None, integrations.Comment{}
	for _, c := range AuthorizedComments(cfg, comments) {
		if isHandoffComment(c.Body) || authz.Edited(c) {
			continue // a record carries conversation text, and an edited comment is never a command
		}
		if parser == nil {
			parser = control.New(cfg)
		}
		res := parser.Parse(c.Body)
		if res.Ambiguous || res.Command == control.None || res.Command == control.Execute {
			continue
		}
		last, by = res.Command, c
	}
	label := src.Label
	if label == "" {
		label = cfg.Routing.AutoExecuteLabel
	}
	if last == control.None && hasLabel(is.Labels, label) && IsAuthorized(cfg, is.Author) {
		last, by = control.Start, integrations.Comment{Author: is.Author}
	}
	return last, by
}
