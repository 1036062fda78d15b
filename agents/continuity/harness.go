package continuity

// DetectHarness names the kind of agent session from its environment:
// THE_LOOP_HARNESS when set, else a known agent's marker variable, else
// "shell".
func DetectHarness(getenv func(string) string) string {
	if getenv == nil {
		return "shell"
	}
	if h := oneLine(getenv("THE_LOOP_HARNESS")); h != "" {
		return h
	}
	switch {
	case getenv("CLAUDECODE") != "":
		return "claude-code"
	case getenv("CODEX_SANDBOX") != "" || getenv("CODEX_HOME") != "":
		return "codex"
	case getenv("CURSOR_TRACE_ID") != "":
		return "cursor"
	}
	return "shell"
}
