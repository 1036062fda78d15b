package runtime

// Outcomes a ready-to-ship reading routes on when a pull request needs
// work: its checks failed, or review threads on it carry words nobody has
// answered yet.
const (
	OutcomeCIFailed          = "ci-failed"
	OutcomeThreadsUnresolved = "threads-unresolved"
)

// Result data keys the walk acts on beside decisions.
const (
	// DataFixRound carries a *FixRound: on a pass it is recorded in the
	// state, and the session of the node the walk enters is briefed with it.
	DataFixRound = "fixRound"
	// DataEscalate carries a reason (string): the walk escalates at once,
	// whatever the chain's verdict, spending no attempt.
	DataEscalate = "escalate"
)

// maxFixRounds bounds the rounds a state keeps; fixDetailed is how many of
// the newest keep their details (logs, annotations, comments).
const (
	maxFixRounds = 100
	fixDetailed  = 3
)

// FixRound is one time the loop sent a pull request's work back for what
// it read on GitHub: the failing checks with what CI said about them, the
// review threads with their authorized comments, the review that asked for
// changes. It is the loop's own reading, kept so the next session is told
// exactly what to fix; what it quotes is GitHub's and the CI's text, data
// for the session, never instructions to the loop.
type FixRound struct {
	// Reason is ci-failed, threads-unresolved or changes-requested.
	Reason string `json:"reason"`
	// From is the node that sent the work back; To the node the walk
	// entered, and Entry that node's visit (its Entries then): the visit
	// the round briefs.
	From  string `json:"from"`
	To    string `json:"to,omitempty"`
	Entry int    `json:"entry,omitempty"`
	At    string `json:"at"`
	// Forces is how many forces the item had when the round was recorded:
	// only the CI rounds since the last force count towards
	// ci.maxFixAttempts, so an operator's force starts them again.
	Forces int `json:"forces"`
	// Heads are the pull requests read, each OWNER/REPO#N@SHA.
	Heads   []string    `json:"heads,omitempty"`
	Checks  []FixCheck  `json:"checks,omitempty"`
	Threads []FixThread `json:"threads,omitempty"`
	// Review is the deciding review of a changes-requested round.
	Review *FixComment `json:"review,omitempty"`
	// Also are the reading's other findings (a briefing to refresh, a
	// capability doc to name), as the ready-to-ship messages say them.
	Also []string `json:"also,omitempty"`
}

// FixCheck is one failed check of a fix round and what CI said about it.
type FixCheck struct {
	PullRequest string          `json:"pullRequest"`
	Head        string          `json:"head"`
	Name        string          `json:"name"`
	Conclusion  string          `json:"conclusion"`
	URL         string          `json:"url,omitempty"`
	Title       string          `json:"title,omitempty"`
	Summary     string          `json:"summary,omitempty"`
	Text        string          `json:"text,omitempty"`
	Annotations []FixAnnotation `json:"annotations,omitempty"`
	// Log is the end of the job's log (LogLines lines).
	Log      string `json:"log,omitempty"`
	LogLines int    `json:"logLines,omitempty"`
	// Notes say what could not be read and why.
	Notes []string `json:"notes,omitempty"`
}

// FixAnnotation is a check run's finding on a line of a file.
type FixAnnotation struct {
	Path      string `json:"path,omitempty"`
	StartLine int    `json:"startLine,omitempty"`
	EndLine   int    `json:"endLine,omitempty"`
	Level     string `json:"level,omitempty"`
	Title     string `json:"title,omitempty"`
	Message   string `json:"message"`
}

// FixThread is an unresolved review thread of a fix round: where it sits
// and the comments of authorized reviewers in it.
type FixThread struct {
	PullRequest string       `json:"pullRequest"`
	ID          string       `json:"id"`
	Path        string       `json:"path,omitempty"`
	Line        int          `json:"line,omitempty"`
	Outdated    bool         `json:"outdated,omitempty"`
	URL         string       `json:"url,omitempty"`
	Comments    []FixComment `json:"comments,omitempty"`
	// Withheld counts the thread's comments by accounts that are not
	// authorized reviewers: never quoted.
	Withheld int `json:"withheld,omitempty"`
}

// FixComment is an authorized reviewer's comment quoted in a fix round.
type FixComment struct {
	ID     int64  `json:"id,omitempty"`
	Author string `json:"author"`
	Body   string `json:"body"`
	URL    string `json:"url,omitempty"`
	At     string `json:"at,omitempty"`
}

// CIFixRounds counts the rounds sent back for failing checks since the
// item was last forced.
func (s *State) CIFixRounds() []*FixRound {
	var out []*FixRound
	for _, r := range s.FixRounds {
		if r != nil && r.Reason == OutcomeCIFailed && r.Forces >= len(s.Forced) {
			out = append(out, r)
		}
	}
	return out
}

// HandedComment is the newest comment of thread id any fix round quoted
// (0 when none did): a thread routes back again only with a newer one.
func (s *State) HandedComment(id string) int64 {
	var newest int64
	for _, r := range s.FixRounds {
		if r == nil {
			continue
		}
		for _, t := range r.Threads {
			if t.ID != id {
				continue
			}
			for _, c := range t.Comments {
				newest = max(newest, c.ID)
			}
		}
	}
	return newest
}

// Briefing is the fix round that sent the walk into the current visit of
// node (nil when the visit began otherwise).
func (s *State) Briefing(node string) *FixRound {
	rec := s.Nodes[node]
	if rec == nil || len(s.FixRounds) == 0 {
		return nil
	}
	last := s.FixRounds[len(s.FixRounds)-1]
	if last == nil || last.To != node || last.Entry != rec.Entries {
		return nil
	}
	return last
}

// recordFixRound appends a round reported by node, stamped.
func (s *State) recordFixRound(node string, fr *FixRound) {
	fr.From, fr.At, fr.Forces, fr.To, fr.Entry = node, Now(), len(s.Forced), "", 0
	s.FixRounds = append(s.FixRounds, fr)
	if n := len(s.FixRounds); n > maxFixRounds {
		s.FixRounds = append([]*FixRound(nil), s.FixRounds[n-maxFixRounds:]...)
	}
	for i := 0; i < len(s.FixRounds)-fixDetailed; i++ {
		s.FixRounds[i] = s.FixRounds[i].summary()
	}
}

// landFixRound notes on a round recorded by this evaluation the visit it
// briefs.
func (s *State) landFixRound(from, node string) {
	if n := len(s.FixRounds); n > 0 {
		if r := s.FixRounds[n-1]; r != nil && r.To == "" && r.From == from {
			r.To, r.Entry = node, s.Record(node).Entries
		}
	}
}

// summary is the round without its details (logs, annotations, output and
// comment bodies): what an old round keeps. Thread comments keep their
// ids, so a thread already handed does not route back again.
func (r *FixRound) summary() *FixRound {
	if r == nil {
		return nil
	}
	out := *r
	out.Checks = make([]FixCheck, len(r.Checks))
	for i, c := range r.Checks {
		out.Checks[i] = FixCheck{PullRequest: c.PullRequest, Head: c.Head, Name: c.Name, Conclusion: c.Conclusion, URL: c.URL}
	}
	out.Threads = make([]FixThread, len(r.Threads))
	for i, t := range r.Threads {
		th := t
		th.Comments = make([]FixComment, len(t.Comments))
		for j, c := range t.Comments {
			th.Comments[j] = FixComment{ID: c.ID, Author: c.Author, URL: c.URL, At: c.At}
		}
		out.Threads[i] = th
	}
	if r.Review != nil {
		out.Review = &FixComment{ID: r.Review.ID, Author: r.Review.Author, URL: r.Review.URL, At: r.Review.At}
	}
	return &out
}

// escalation is the reason the first result asking for an escalation
// gives ("" when none does).
func escalation(results []Result) string {
	for _, res := range results {
		if why, ok := res.Data[DataEscalate].(string); ok && why != "" {
			return why
		}
	}
	return ""
}
