package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Resign brings every recorded decision of id that verifies to the form
// this host signs today, and re-signs it with its Ed25519 key: one carrying
// a legacy HMAC signature, one signed by a key this host rotated from, and
// one recorded before decisions named their repository, which it binds to
// the item's (only when each comment it rests on belongs to the item's
// ticket). bind, when set, completes what else a decision of that time
// lacks (the hashes of what an approval locked). A decision that does not
// verify, names another repository, rests on a comment of another, or that
// bind refuses, is left exactly as it is (it stays unhonoured). It returns
// how many were re-signed and how many were left.
func (r *Runtime) Resign(ctx context.Context, id string, bind func(st *State, d *Decision) (bool, error)) (resigned, left int, err error) {
	if err := ValidateID(id); err != nil {
		return 0, 0, err
	}
	s := r.signer()
	if !s.SignsWithEd25519() {
		return 0, 0, errors.New("no Ed25519 signing key is loaded: run `the-loop keys init` and set signing.privateKeyFile")
	}
	own := schemeEd25519 + KeyID(s.HostKey()) + ":"
	err = r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		resigned, left = 0, 0
		home := r.Home(st)
		var nodes []string
		for _, d := range st.AllDecisions() {
			if s.Verify(d) != Verified || d.WorkItem != st.WorkItem {
				left++
				continue
			}
			stale := !strings.HasPrefix(d.Signature, own)
			if d.Repository == "" && home != "" {
				d.Repository, stale = home, true
				if r.bindingFault(st, d, false) != "" {
					d.Repository = ""
					left++
					continue
				}
			}
			if bind != nil {
				changed, err := bind(st, d)
				if err != nil {
					left++
					continue
				}
				stale = stale || changed
			}
			if !stale {
				continue
			}
			if err := s.Sign(d); err != nil {
				return nil, fmt.Errorf("re-sign the decision for %s: %w", d.Node, err)
			}
			resigned++
			nodes = append(nodes, d.Node)
		}
		if resigned == 0 {
			return nil, errNoSave
		}
		return []EventRecord{{Name: "graph.decisions_resigned", Data: map[string]any{"nodes": nodes, "left": left, "repository": home}}}, nil
	})
	if errors.Is(err, errNoSave) {
		return 0, left, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("re-sign %s: %w", id, err)
	}
	return resigned, left, nil
}
