package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Resign re-signs with Ed25519 every recorded decision of id that carries a
// legacy HMAC signature and verifies with the HMAC key: the migration step
// after which the HMAC key can be retired. A decision that does not verify
// is left exactly as it is (it stays unhonoured). It returns how many were
// re-signed and how many were left.
func (r *Runtime) Resign(ctx context.Context, id string) (resigned, left int, err error) {
	if err := ValidateID(id); err != nil {
		return 0, 0, err
	}
	s := r.signer()
	if !s.SignsWithEd25519() {
		return 0, 0, errors.New("no Ed25519 signing key is loaded: run `the-loop keys init` and set signing.privateKeyFile")
	}
	err = r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		var nodes []string
		for _, d := range st.AllDecisions() {
			if !strings.HasPrefix(d.Signature, schemeHMAC) {
				continue
			}
			if s.Verify(d) != Verified {
				left++
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
		return []EventRecord{{Name: "graph.decisions_resigned", Data: map[string]any{"nodes": nodes, "left": left}}}, nil
	})
	if errors.Is(err, errNoSave) {
		return 0, left, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("re-sign %s: %w", id, err)
	}
	return resigned, left, nil
}
