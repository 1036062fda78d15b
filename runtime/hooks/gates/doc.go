// Package gates holds the hooks of the human gates — the nodes a person
// answers on the ticket — and their side effects on the ticket: posting a
// request, reading the authorized replies into a recorded decision, and
// the phase label, notifications and published artifacts around them.
package gates
