package runtime

import (
	"fmt"
	"os"
	"os/user"
)

// OSIdentity is the operating-system account and host a process runs as.
// Every operator act (a force, a skip declaration or withdrawal, a
// repository declaration) records it, signed, beside the free-text actor:
// `--actor @alice` names who the operator says they are, this names the
// account that ran the command.
type OSIdentity struct {
	User string
	Host string
}

// CurrentOS is the identity of this process: the account's name (its uid
// when the account database has none) and the host name ("unknown" when
// the kernel reports none).
func CurrentOS() OSIdentity {
	id := OSIdentity{User: fmt.Sprintf("uid %d", os.Getuid()), Host: "unknown"}
	if u, err := user.Current(); err == nil && u.Username != "" {
		id.User = u.Username
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		id.Host = h
	}
	return id
}

// String reads "OS user alice on build-1".
func (o OSIdentity) String() string { return fmt.Sprintf("OS user %s on %s", o.User, o.Host) }

// stamp records o in an operator act's data (signed with it) and in its
// event's data.
func (o OSIdentity) stamp(data map[string]any) map[string]any {
	if data == nil {
		data = map[string]any{}
	}
	data["osUser"], data["host"] = o.User, o.Host
	return data
}

// operatorOS is the identity the runtime records with an operator act.
func (r *Runtime) operatorOS() OSIdentity {
	if r.OS == (OSIdentity{}) {
		r.OS = CurrentOS()
	}
	return r.OS
}
