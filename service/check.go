package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync/atomic"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
)

// CheckRequest selects what check evaluates and, for a caller that
// streams, where each report goes.
type CheckRequest struct {
	Repo      string `json:"repo"`
	WorkItem  string `json:"workItem"`
	All       bool   `json:"all"`
	Recompute bool   `json:"recompute"`
	// TrustedKeysFrom is a git ref whose committed .the-loop/signing.pub
	// anchors the keys decisions are verified with (check
	// --trusted-keys-from): a key the change adds counts only when a
	// rotation signed by a key trusted there vouches for it.
	TrustedKeysFrom string `json:"-"`
	// Repository ([HOST/]OWNER/REPO, check --repository) is the
	// repository the items' own GitHub tickets live in: a decision bound
	// to another repository, or resting on a comment of another, is
	// ignored. "" takes the repository config's ticketing.github.
	Repository string `json:"-"`

	// Emit, when set, receives each report in work-item order instead of
	// the result collecting them, so a caller streams thousands of items in
	// constant memory. Its bytes are Render's.
	Emit func(rep runtime.Report, g *runtime.Graph, rendered []byte) error `json:"-"`
	// Render, when set, encodes each report on the worker that evaluated it
	// (in parallel): a caller printing thousands of reports encodes them on
	// every processor.
	Render func(runtime.Report) ([]byte, error) `json:"-"`
	// Encode asks for each report's JSON encoding (json.Marshal's bytes) in
	// CheckResult.Encoded, beside the report. A report answered from the
	// memo comes with the encoding kept with it: asked again about an
	// unchanged item, a server writes the same bytes without encoding the
	// report again. Not with Render or Emit.
	Encode bool `json:"-"`
	// BeforeEvaluating, when set, is told how many items check is about to
	// evaluate, once, before the first: a batch command sizes its processors
	// to the work (check runs a worker per processor). A repeated check
	// answered from the memo evaluates none and does not call it.
	BeforeEvaluating func(items int) `json:"-"`
}

// CheckResult is the reports (none when the request streams them through
// Emit) plus what the user should be warned about.
type CheckResult struct {
	Reports []runtime.Report `json:"reports"`
	// Graphs maps a work item to the loop its report was computed on.
	Graphs   map[string]*runtime.Graph `json:"-"`
	Warnings []string                  `json:"-"`
	// Encoded holds each report's JSON encoding, in the order of Reports,
	// when the request asked for it (CheckRequest.Encode).
	Encoded [][]byte `json:"-"`
}

// Check evaluates work items read-only — no network, no subprocess, no
// write. Without Recompute it starts from stored state (the store, else the
// portable record); with it, every verdict is derived from the artifacts
// and the verified decisions alone.
func (s *Service) Check(ctx context.Context, req CheckRequest) (CheckResult, error) {
	res := CheckResult{Reports: []runtime.Report{}, Graphs: map[string]*runtime.Graph{}}
	emit := req.Emit
	if emit == nil {
		emit = func(rep runtime.Report, g *runtime.Graph, out []byte) error {
			res.Reports = append(res.Reports, rep)
			res.Graphs[rep.WorkItem] = g
			if req.Encode {
				res.Encoded = append(res.Encoded, out)
			}
			return nil
		}
	}
	warns, err := s.check(ctx, req, emit)
	res.Warnings = warns
	return res, err
}

// check evaluates the requested items on every processor and hands each report
// to emit in work-item order.
func (s *Service) check(ctx context.Context, req CheckRequest, emit func(runtime.Report, *runtime.Graph, []byte) error) ([]string, error) {
	if req.WorkItem == "" && !req.All {
		return nil, invalid(errors.New("give a work item id, or --all"))
	}
	if req.WorkItem != "" && req.All {
		return nil, invalid(errors.New("give either a work item id or --all, not both"))
	}
	render := req.Render
	if req.Encode {
		if req.Render != nil || req.Emit != nil {
			return nil, invalid(errors.New("CheckRequest.Encode is not for a request that renders or emits its reports itself"))
		}
		render = encodeReport
	}
	if req.Repository != "" {
		if err := runtime.CheckRepositoryName(req.Repository); err != nil {
			return nil, invalid(err)
		}
	}
	ids := []string{req.WorkItem}
	if !req.All {
		if err := validID(req.WorkItem); err != nil {
			return nil, err
		}
	}
	// A repeated check of an unchanged item is answered from the memo
	// before the repository is opened again; the stamps cover what the
	// checks below read (the item folder is one).
	key, memoize := s.memoKeyFor(req)
	if e, remembered, warns, ok := s.recall(key, memoize); ok {
		return s.answer(&memoCall{key: key, entry: e}, remembered, warns, req.Encode, render, emit)
	}
	repo, err := s.openRepo(req.Repo)
	if err != nil {
		return nil, err
	}
	call := s.memoCallFor(key, memoize, repo, req.WorkItem)
	if req.All {
		if ids, err = repo.WorkItems(); err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			return repo.Warnings, noWorkItems(repo)
		}
	} else if err := repo.CheckItemDir(req.WorkItem); err != nil {
		return nil, err
	}
	st, release, err := s.readStore(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if !req.All {
		if err := s.requireKnown(ctx, st, repo, req.WorkItem); err != nil {
			return repo.Warnings, err
		}
	}
	p := &persister{st: st, repo: repo}
	warnings := append([]string(nil), repo.Warnings...)
	signer, signWarns, err := s.checkSigner(ctx, repo, req.TrustedKeysFrom)
	if err != nil {
		return repo.Warnings, err
	}
	warnings = append(warnings, signWarns...)
	if req.Recompute && !signer.HasKey() {
		warnings = append(warnings, "warning: no signing key is configured and "+runtime.PublicKeyFile+" is absent, so no recorded decision can be verified: under --recompute none is honoured (commit the public key `the-loop keys init` writes, or pin "+runtime.EnvPublicKey+")")
	}
	evaluate := func(ctx context.Context, id string) itemResult {
		r := s.checkOne(ctx, p, repo, signer, id, req)
		if r.err == nil && render != nil {
			r.out, r.err = render(r.rep)
		}
		return r
	}
	if call != nil {
		ctx, evaluate = s.remembering(ctx, call, warnings, req.Encode, evaluate)
	}
	if req.BeforeEvaluating != nil {
		req.BeforeEvaluating(len(ids))
	}
	return inOrder(ctx, ids, evaluate, warnings, emit)
}

// checkSigner is the signer check verifies with: anchored at the key file
// committed at ref when one is given, else the host's or the repository's.
func (s *Service) checkSigner(ctx context.Context, repo *repoconfig.Repo, ref string) (*runtime.Signer, []string, error) {
	if ref == "" {
		signer, warns := s.signerFor(repo)
		return signer, warns, nil
	}
	if s.deps.Signer.Pinned() {
		return nil, nil, invalid(fmt.Errorf("--trusted-keys-from and a pinned key (%s or signing.publicKey) both name the keys to trust; give one", runtime.EnvPublicKey))
	}
	base, err := keysAtRef(ctx, repo.Root, ref)
	if err != nil {
		return nil, nil, err
	}
	signer, warns := s.deps.Signer.AnchoredAt(repo.Root, ref, base)
	return signer, warns, nil
}

// inOrder evaluates the items on every processor the process has
// (GOMAXPROCS) — they are independent — and emits them in work-item order
// through a bounded window, so memory stays flat however many there are.
// The first failure stops the rest.
func inOrder(ctx context.Context, ids []string, evaluate func(context.Context, string) itemResult, warnings []string,
	emit func(runtime.Report, *runtime.Graph, []byte) error) ([]string, error) {
	workers := goruntime.GOMAXPROCS(0)
	if workers > len(ids) {
		workers = len(ids)
	}
	slots := make([]chan itemResult, len(ids))
	for i := range slots {
		slots[i] = make(chan itemResult, 1)
	}
	// A worker takes the next item itself (an atomic counter), once the
	// window has room: no goroutine hands items out, which was one more
	// wake-up per item.
	var next atomic.Int64
	window := make(chan struct{}, 4*workers+1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for w := 0; w < workers; w++ {
		go func() {
			for {
				select {
				case window <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1) - 1)
				if i >= len(ids) {
					return
				}
				slots[i] <- evaluate(ctx, ids[i])
			}
		}()
	}
	for i := range ids {
		var r itemResult
		select {
		case r = <-slots[i]:
		case <-ctx.Done():
			return warnings, ctx.Err()
		}
		<-window
		warnings = append(warnings, r.warns...)
		if r.err != nil {
			return warnings, r.err
		}
		if err := emit(r.rep, r.g, r.out); err != nil {
			return warnings, err
		}
	}
	return warnings, nil
}

// itemResult is one evaluated work item.
type itemResult struct {
	out   []byte // rendered by the worker, when asked
	rep   runtime.Report
	g     *runtime.Graph
	warns []string
	err   error
}

// checkOne evaluates one work item read-only.
func (s *Service) checkOne(ctx context.Context, p *persister, repo *repoconfig.Repo, signer *runtime.Signer, id string, req CheckRequest) (res itemResult) {
	state, warns, err := p.Load(ctx, id)
	res.warns = warns
	if err != nil {
		res.err = err
		return res
	}
	g, warn, err := loopFor(state)
	if err != nil {
		res.err = err
		return res
	}
	if warn != "" {
		res.warns = append(res.warns, warn)
	}
	rt := &runtime.Runtime{Graph: g, Config: s.cfg, Signer: signer, Repo: repo.Root, SpecRoot: repo.SpecRoot, Commands: repoCommands(repo),
		Origin: originOf(repo, state), Log: s.log(), Hosts: s.hosts(), ExpectRepository: req.Repository}
	res.rep = rt.Status(ctx, id, state, req.Recompute)
	res.rep.Dependencies = s.dependencyReport(ctx, p.st, repo.Root, id, state)
	res.g = g
	res.warns = append(res.warns, res.rep.Warnings...)
	return res
}

// encodeReport is a report's JSON encoding (CheckRequest.Encode).
func encodeReport(rep runtime.Report) ([]byte, error) { return json.Marshal(rep) }
